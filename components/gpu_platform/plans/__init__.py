"""Plan pieces every cloud and add-on shares: Helm value merging, system and GPU pool labels and taints,
replacement names, Karpenter NodePools, node agents and the tolerations node DaemonSets need.

Each add-on's plan is ``addons/<add-on>/plan.py`` and each cloud's ``clouds/<cloud>/*_plan.py``: a pure
function from resolved settings to a frozen plan, decided before anything exists.
"""
