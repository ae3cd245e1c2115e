"""``CertManager``: issues the KServe webhook's serving certificate, so it is installed before KServe.

One ``helm.v3.Release`` of the jetstack chart pinned in ``versions.CERT_MANAGER``, with the CRDs installed
by the chart (``crds.enabled=true``; ``crds.keep=true`` keeps them, and every Certificate, if the release
is ever removed). KServe's quick-install scripts install it the same way, first.
"""

from typing import Any

import pulumi
from pulumi_kubernetes.helm.v3.outputs import ReleaseStatus

from gpu_platform.addons.cert_manager.checks import resolve_cert_manager_args
from gpu_platform.addons.cert_manager.plan import CertManagerPlan, cert_manager_plan
from gpu_platform.args.operators import CertManagerArgs
from gpu_platform.component import PlannedComponent
from gpu_platform.helm_release import helm_namespace, helm_release
from gpu_platform.releases import CERT_MANAGER

_DEFAULTS: CertManagerArgs = {}
"""No arguments: every default."""


class CertManager(PlannedComponent[CertManagerPlan]):
    """cert-manager from the pinned jetstack chart, with its CRDs."""

    _type_token = "gpu-platform:index:CertManager"

    status: pulumi.Output[ReleaseStatus]
    """Status of the Helm release (``deployed`` once the webhook is ready)."""

    def __init__(
        self, name: str, args: CertManagerArgs = _DEFAULTS, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        """Check ``args`` (every problem at once; nothing is created on one), then create it. cert-manager from
        the pinned jetstack chart, with its CRDs."""
        self._start(name, cert_manager_plan(*resolve_cert_manager_args(args)), opts)

    def _create(self, name: str, plan: CertManagerPlan) -> dict[str, Any]:
        deps = self._dependencies
        ns = helm_namespace(self, f"{name}-namespace", plan.namespace, depends_on=deps)
        release = helm_release(
            self,
            f"{name}-helm",
            CERT_MANAGER.pin,
            CERT_MANAGER.release_name,
            plan.namespace,
            values=plan.values,
            # crds.keep: the chart keeps its CRDs when the release goes, so the release itself is not kept.
            depends_on=[ns, *deps],
            mirror=plan.mirror,
        )
        self.status = release.status
        return {"status": self.status}
