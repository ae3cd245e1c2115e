"""``KServe``: CRDs, controller and serving runtimes from the pinned OCI charts, ``Standard`` mode by default.

Three ``helm.v3.Release``s, in order: ``kserve-crd`` (the CRDs), ``kserve-resources`` (controller,
webhooks, ``inferenceservice-config``), and ``kserve-runtime-configs`` (the ClusterServingRuntimes, which
the webhooks of the second release validate). The controller's webhook certificate comes from
cert-manager, so the resources release waits for whatever the component was told to depend on. See
``addons.kserve.plan`` for what each deployment mode needs.
"""

from typing import Any

import pulumi
from pulumi_kubernetes.helm.v3.outputs import ReleaseStatus

from gpu_platform.addons.kserve.checks import resolve_kserve_args
from gpu_platform.addons.kserve.plan import KSERVE_NAMESPACE_LABELS, KServePlan, kserve_plan
from gpu_platform.args.operators import KServeArgs
from gpu_platform.component import PlannedComponent
from gpu_platform.helm_release import helm_namespace, helm_release
from gpu_platform.releases import KSERVE_CRD, KSERVE_RESOURCES, KSERVE_RUNTIME_CONFIGS

_DEFAULTS: KServeArgs = {}
"""No arguments: every default."""


class KServe(PlannedComponent[KServePlan]):
    """KServe CRDs, controller and serving runtimes from the pinned charts."""

    _type_token = "gpu-platform:index:KServe"

    status: pulumi.Output[ReleaseStatus]
    """Status of the ``kserve-resources`` release."""
    deployment_mode: pulumi.Output[str]
    """``Standard`` or ``Knative``."""

    def __init__(
        self, name: str, args: KServeArgs = _DEFAULTS, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        """Check ``args`` (every problem at once; nothing is created on one), then create it. KServe CRDs,
        controller and serving runtimes from the pinned charts."""
        self._start(name, kserve_plan(resolve_kserve_args(args)), opts)

    def _create(self, name: str, plan: KServePlan) -> dict[str, Any]:
        ns = helm_namespace(self, f"{name}-namespace", plan.namespace, labels=dict(KSERVE_NAMESPACE_LABELS))
        crds = helm_release(
            self,
            f"{name}-crd",
            KSERVE_CRD.pin,
            KSERVE_CRD.release_name,
            plan.namespace,
            depends_on=[ns],
            mirror=plan.mirror,
            # The chart is only the CRDs, as templates without a keep policy: uninstalling it would delete
            # every InferenceService in the cluster. Removing KServe leaves it (docs/day2.md).
            retain_on_delete=KSERVE_CRD.release_holds_crds,
        )
        resources = helm_release(
            self,
            f"{name}-helm",
            KSERVE_RESOURCES.pin,
            KSERVE_RESOURCES.release_name,
            plan.namespace,
            values=plan.values,
            secret=plan.secret_values,
            depends_on=[ns, crds, *self._dependencies],
            mirror=plan.mirror,
        )
        if plan.runtime_values is not None:
            helm_release(
                self,
                f"{name}-runtimes",
                KSERVE_RUNTIME_CONFIGS.pin,
                KSERVE_RUNTIME_CONFIGS.release_name,
                plan.namespace,
                values=plan.runtime_values,
                secret=plan.secret_values,
                # The ClusterServingRuntime webhook lives in the resources release.
                depends_on=[crds, resources],
                mirror=plan.mirror,
            )
        self.status = resources.status
        self.deployment_mode = pulumi.Output.from_input(plan.deployment_mode)
        return {"status": self.status, "deployment_mode": self.deployment_mode}
