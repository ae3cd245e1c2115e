"""The OpenShift objects the library creates for GPU nodes, as ``gpu-platform diff`` must know them
(``gpu_platform.diff_rule``). A MachineSet owns its Machines: deleting it deletes them, and with them the nodes and
their pods (openshift/api ``machine/v1beta1`` MachineSet). A new template reaches only Machines created after it,
so it is not flagged."""

from __future__ import annotations

from gpu_platform.diff_rule import DiffRule, gone, kind

DIFF_RULES: tuple[DiffRule, ...] = (
    gone(
        kind("machine.openshift.io", "MachineSet"),
        "removes nodes",
        "OpenShift deletes the MachineSet's Machines: their GPU nodes are drained and removed, with the pods on them",
    ),
)
