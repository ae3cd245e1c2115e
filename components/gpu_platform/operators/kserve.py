"""``KServe``: CRDs, controller and serving runtimes from the pinned OCI charts, ``Standard`` mode by default.

Three ``helm.v3.Release``s, in order: ``kserve-crd`` (the CRDs), ``kserve-resources`` (controller,
webhooks, ``inferenceservice-config``), and ``kserve-runtime-configs`` (the ClusterServingRuntimes, which
the webhooks of the second release validate). The controller's webhook certificate comes from
cert-manager, so the resources release waits for whatever the component was told to depend on. See
``plans.kserve`` for what each deployment mode needs.
"""

from typing import Any

import pulumi
import pulumi_kubernetes as k8s

from gpu_platform import versions
from gpu_platform.args.operators import KServeArgs
from gpu_platform.component import PlannedComponent
from gpu_platform.plans.kserve import KSERVE_NAMESPACE_LABELS, KServePlan, plan_kserve

_DEFAULTS: KServeArgs = {}
"""No arguments: every default."""


class KServe(PlannedComponent[KServePlan]):
    """KServe CRDs, controller and serving runtimes from the pinned charts."""

    _type_token = "gpu-platform:index:KServe"

    status: pulumi.Output[Any]
    """Status of the ``kserve-resources`` release."""
    deployment_mode: pulumi.Output[str]
    """``Standard`` or ``Knative``."""

    def __init__(
        self, name: str, args: KServeArgs = _DEFAULTS, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        self._start(name, plan_kserve(args), opts)

    def _create(self, name: str, plan: KServePlan) -> dict[str, Any]:
        ns = k8s.core.v1.Namespace(
            f"{name}-namespace",
            metadata={"name": plan.namespace, "labels": dict(KSERVE_NAMESPACE_LABELS)},
            opts=self.child_opts(retain_on_delete=True),
        )
        crds = k8s.helm.v3.Release(
            f"{name}-crd",
            name="kserve-crd",
            chart=versions.KSERVE_CRD.chart,
            version=versions.KSERVE_CRD.version,
            namespace=plan.namespace,
            create_namespace=False,
            # The chart is only the CRDs, as templates without a keep policy: uninstalling it would delete
            # every InferenceService in the cluster. Removing KServe leaves it (docs/day2.md).
            opts=self.child_opts(depends_on=[ns], retain_on_delete=True),
        )
        resources = k8s.helm.v3.Release(
            f"{name}-helm",
            name="kserve-resources",
            chart=versions.KSERVE_RESOURCES.chart,
            version=versions.KSERVE_RESOURCES.version,
            namespace=plan.namespace,
            create_namespace=False,
            values=pulumi.Output.secret(plan.values) if plan.secret_values else plan.values,
            opts=self.child_opts(depends_on=[ns, crds, *self._dependencies]),
        )
        if plan.runtime_values is not None:
            pin = versions.KSERVE_RUNTIME_CONFIGS
            k8s.helm.v3.Release(
                f"{name}-runtimes",
                name="kserve-runtime-configs",
                chart=pin.chart,
                version=pin.version,
                namespace=plan.namespace,
                create_namespace=False,
                values=plan.runtime_values,
                # The ClusterServingRuntime webhook lives in the resources release.
                opts=self.child_opts(depends_on=[crds, resources]),
            )
        self.status = resources.status
        self.deployment_mode = pulumi.Output.from_input(plan.deployment_mode)
        return {"status": self.status, "deployment_mode": self.deployment_mode}
