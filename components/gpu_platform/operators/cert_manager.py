"""``CertManager``: issues the KServe webhook's serving certificate, so it is installed before KServe.

One ``helm.v3.Release`` of the jetstack chart pinned in ``versions.CERT_MANAGER``, with the CRDs installed
by the chart (``crds.enabled=true``; ``crds.keep=true`` keeps them, and every Certificate, if the release
is ever removed). KServe's quick-install scripts install it the same way, first.
"""

from typing import Any

import pulumi
import pulumi_kubernetes as k8s

from gpu_platform import versions
from gpu_platform.args.operators import CertManagerArgs
from gpu_platform.component import PlannedComponent
from gpu_platform.plans.kserve import CertManagerPlan, plan_cert_manager

_DEFAULTS: CertManagerArgs = {}
"""No arguments: every default."""


class CertManager(PlannedComponent[CertManagerPlan]):
    """cert-manager from the pinned jetstack chart, with its CRDs."""

    _type_token = "gpu-platform:index:CertManager"

    status: pulumi.Output[Any]
    """Status of the Helm release (``deployed`` once the webhook is ready)."""

    def __init__(
        self, name: str, args: CertManagerArgs = _DEFAULTS, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        self._start(name, plan_cert_manager(args), opts)

    def _create(self, name: str, plan: CertManagerPlan) -> dict[str, Any]:
        deps = self._dependencies
        ns = k8s.core.v1.Namespace(
            f"{name}-namespace",
            metadata={"name": plan.namespace},
            opts=self.child_opts(depends_on=deps, retain_on_delete=True),
        )
        pin = versions.CERT_MANAGER
        release = k8s.helm.v3.Release(
            f"{name}-helm",
            name="cert-manager",
            chart=pin.chart,
            version=pin.version,
            repository_opts=k8s.helm.v3.RepositoryOptsArgs(repo=pin.repo),
            namespace=plan.namespace,
            create_namespace=False,
            values=plan.values,
            opts=self.child_opts(depends_on=[ns, *deps]),
        )
        self.status = release.status
        return {"status": self.status}
