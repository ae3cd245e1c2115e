"""What ``gpu-platform diff`` flags in the Slurm cluster this add-on installs (``gpu_platform.diff_rule``).

Slurm's job steps run inside the slurmd pods of its NodeSets. Removing the ``slurm`` release deletes the
Controller, NodeSets and LoginSets (the CRDs are their own release, kept), so running jobs are killed and queued
ones never run. A NodeSet change (its GRES, the GPUs its slurmd holds, its image or placement) makes the Slinky
operator replace its slurmd pods (``updateStrategy.type`` defaults to ``RollingUpdate``: SlinkyProject/slurm-operator
v1.2.1 ``slinky.slurm.net_nodesets.yaml``), and the steps running in them end with them.
"""

from __future__ import annotations

from gpu_platform.diff_rule import DiffRule, changes, chart, gone
from gpu_platform.releases import SLURM

RELEASE = chart(SLURM.chart_name)

DIFF_RULES: tuple[DiffRule, ...] = (
    gone(
        RELEASE,
        "ends running jobs",
        "Slurm's controller, NodeSets and login pods are deleted with the release: running jobs are killed and "
        "queued ones never run; drain the partitions first (`scontrol update partitionname=<p> state=drain`)",
    ),
    changes(
        RELEASE,
        "ends running jobs",
        "the Slinky operator replaces the NodeSet's slurmd pods (RollingUpdate), killing the job steps running in "
        "them; drain its nodes and let their jobs finish first (`scontrol update nodename=<nodes> state=drain "
        "reason=update`, docs/slurm.md)",
        "values.nodesets",
        'values.configFiles["gres.conf"]',
    ),
)
