"""The NVIDIA DRA driver in the stack: after the GPU Operator (NFD labels, driver, toolkit) and Kueue's release
(not its every queue); each claim template after its own namespace."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from gpu_platform.addons.dra.checks import ResolvedDra
from gpu_platform.addons.dra.plan import dra_plan
from gpu_platform.addons.requirement import Requirement, Sections, section_on
from gpu_platform.catalog.nvlink import NVLINK_DOMAIN_GPUS, NvlinkDomain
from gpu_platform.pools import GpuPool
from gpu_platform.releases import DRA_DRIVER

if TYPE_CHECKING:
    from gpu_platform.addons.deployment import Deployment
    from gpu_platform.addons.platform_spec import PlatformSpec


REQUIRES = (
    Requirement(
        ("dra", "enabled"),
        "gpu_operator.enabled",
        met=lambda s, pool: section_on(s, "gpu_operator", True),
        applies=lambda s, pool: section_on(s, "dra", False),
        reason=lambda s, pool: (
            "needs {{gpu_operator.enabled}}: the operator's NFD labels place the DRA plugin and its per-node "
            "labels keep its device plugin off the DRA nodes"
        ),
    ),
    Requirement(
        ("dra", "compute_domains"),
        "gpu_pools.allocation",
        met=lambda s, pool: pool is not None and pool.dra and nvlink_domain(pool) is not None,
        applies=lambda s, pool: section_on(s, "dra", False) and _compute_domains(s),
        reason=lambda s, pool: (
            "ComputeDomains share GPU memory over a rack-scale NVLink fabric (IMEX), and no DRA pool "
            "(allocation 'dra') has one (GB200 NVL72: GKE a4x-highgpu-4g, or gpu gb200-186gb): add "
            "such a pool, or remove computeDomains"
        ),
        any_pool=True,
    ),
)


def nvlink_domain(pool: GpuPool) -> NvlinkDomain | None:
    """The rack-scale NVLink domain the pool's nodes belong to: its machine type's, or its GPU's on pools
    described by the GPU alone."""
    if pool.machine is not None:
        return pool.machine.nvlink_domain
    return NVLINK_DOMAIN_GPUS.get(pool.gpu.key)


def _compute_domains(sections: Sections) -> bool:
    dra = sections.get("dra", {})
    return bool(dra.get("compute_domains", False)) if isinstance(dra, Mapping) else False


def enabled(spec: PlatformSpec) -> bool:
    return spec.dra is not None


def deploy(d: Deployment) -> dict[str, Any]:
    from gpu_platform.addons.dra.component import DraDriver

    spec = d.spec
    assert spec.dra is not None and spec.cluster.kubernetes_version is not None
    resolved = ResolvedDra(
        spec.cloud,
        spec.pools,
        spec.driver,
        spec.cluster.kubernetes_version,
        spec.dra,
        DRA_DRIVER.namespace,
        spec.mirror,
    )
    plan = dra_plan(resolved, secret=d.secret("dra"))
    after = d.after("gpu_operator")
    if (kueue := d.created.get("kueue")) is not None:
        after.append(kueue.release)
    component = DraDriver.in_namespaces(
        DRA_DRIVER.component_name, plan, d.namespaces, d.with_dependencies(after)
    )
    d.created["dra"] = component
    return {"draDeviceClasses": component.device_classes, "draClaimTemplates": component.claim_templates}
