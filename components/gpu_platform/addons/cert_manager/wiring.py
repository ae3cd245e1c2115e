"""cert-manager in the stack, once: KServe's webhook and Slinky's both take their certificates from it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pulumi

from gpu_platform.addons.cert_manager.plan import cert_manager_plan
from gpu_platform.releases import CERT_MANAGER

if TYPE_CHECKING:
    from gpu_platform.addons.deployment import Deployment
    from gpu_platform.addons.platform_spec import PlatformSpec
    from gpu_platform.mirror import Mirror


def enabled(spec: PlatformSpec) -> bool:
    """For KServe or for Slurm, each unless told the cluster runs it already."""
    kserve = spec.kserve is not None and spec.kserve.install_cert_manager
    return kserve or (spec.slurm is not None and spec.slurm.install_cert_manager)


def install_cert_manager(opts: pulumi.ResourceOptions, mirror: Mirror | None = None) -> Any:
    """The ``CertManager`` component with every default (and the stack's mirror), under ``opts``."""
    from gpu_platform.addons.cert_manager.component import CertManager

    plan = cert_manager_plan(CERT_MANAGER.namespace, mirror=mirror)
    return CertManager.from_plan(CERT_MANAGER.component_name, plan, opts)


def deploy(d: Deployment) -> dict[str, Any]:
    component = install_cert_manager(d.opts, d.spec.mirror)
    d.created["cert_manager"] = component
    return {"certManagerStatus": component.status}
