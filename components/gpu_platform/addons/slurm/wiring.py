"""Slinky and the Slurm cluster in the stack: after cert-manager (the operator's webhook certificates) and the GPU
Operator (slurmd asks for ``nvidia.com/gpu``, which its device plugin advertises)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from gpu_platform.addons.slurm.plan import slurm_plan
from gpu_platform.addons.workloads.plan import controller_placement
from gpu_platform.releases import SLURM

if TYPE_CHECKING:
    from gpu_platform.addons.deployment import Deployment
    from gpu_platform.addons.platform_spec import PlatformSpec


def enabled(spec: PlatformSpec) -> bool:
    return spec.slurm is not None


def deploy(d: Deployment) -> dict[str, Any]:
    from gpu_platform.addons.slurm.component import SlurmCluster

    spec = d.spec
    assert spec.slurm is not None
    placement = controller_placement(spec.cloud, spec.workloads.node_selector)
    # cert-manager is the stack's (the cert_manager add-on), never the component's own second copy.
    plan = slurm_plan(spec.slurm, placement, cert_manager=False, secret=d.secret("slurm"), mirror=spec.mirror)
    after = d.after("cert_manager", "gpu_operator")
    component = SlurmCluster.from_plan(SLURM.component_name, plan, d.with_dependencies(after))
    d.created["slurm"] = component
    return {"slurmNodeSets": component.nodesets, "slurmNamespace": component.namespace}
