"""``DraDriver``: the NVIDIA DRA driver for GPUs, its per-MIG-profile DeviceClasses and ResourceClaimTemplates.

One ``helm.v3.Release`` of ``dra-driver-nvidia-gpu`` (``versions.DRA_DRIVER``) in a PodSecurity-privileged
namespace; the library's DeviceClasses and the teams' ResourceClaimTemplates depend on it (the chart
brings the ``gpu.nvidia.com`` class they sit next to). Everything comes from ``addons.dra.plan``. The GPU Operator
must be given the same pools: their labels keep its device plugin and MIG manager off the DRA nodes.
"""

from collections.abc import Mapping
from typing import Any, Self, cast

import pulumi
import pulumi_kubernetes as k8s
from pulumi_kubernetes.helm.v3.outputs import ReleaseStatus

from gpu_platform.addons.dra import plan as d
from gpu_platform.addons.dra.args_checks import resolve_dra_driver
from gpu_platform.addons.dra.settings import DraDriverArgs
from gpu_platform.component import PlannedComponent
from gpu_platform.helm_release import helm_namespace, helm_release
from gpu_platform.releases import DRA_DRIVER


class DraDriver(PlannedComponent[d.DraPlan]):
    """The NVIDIA DRA driver serving the pools with ``allocation: dra``."""

    _type_token = "gpu-platform:index:DraDriver"

    status: pulumi.Output[ReleaseStatus]
    """The Helm release status."""
    device_classes: pulumi.Output[list[str]]
    """The library's DeviceClasses pods claim from (Kueue charges them): ``whole-gpu.gpu.nvidia.com`` and the per-profile ones."""
    claim_templates: pulumi.Output[list[str]]
    """``<namespace>/<name>`` of every ResourceClaimTemplate created."""

    _given_namespaces: Mapping[str, Any] | None = None

    def __init__(self, name: str, args: DraDriverArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        """Check ``args`` (every problem at once; nothing is created on one), then create it. The NVIDIA DRA
        driver serving the pools with ``allocation: dra``."""
        self._start(name, d.dra_plan(resolve_dra_driver(args)), opts)

    @classmethod
    def in_namespaces(
        cls,
        name: str,
        plan: d.DraPlan,
        namespaces: Mapping[str, Any],
        opts: pulumi.ResourceOptions | None = None,
    ) -> Self:
        """``from_plan`` for a plan whose claim namespaces exist already (``namespaces``: name -> Namespace):
        each ResourceClaimTemplate depends on its own namespace, not on all of them."""
        obj = cls.__new__(cls)
        obj._given_namespaces = dict(namespaces)
        obj._start(name, plan, opts)
        return obj

    def _template_dependencies(self, namespace: str) -> list[Any]:
        if self._given_namespaces is None:
            # The component's own dependencies (a direct user passes what creates the namespaces).
            return list(self._dependencies)
        own = self._given_namespaces.get(namespace)
        return [own] if own is not None else []

    def _create(self, name: str, plan: d.DraPlan) -> dict[str, Any]:
        ns = helm_namespace(self, f"{name}-ns", plan.namespace, labels=d.PSA_PRIVILEGED_LABELS)
        release = helm_release(
            self,
            f"{name}-helm",
            DRA_DRIVER.pin,
            DRA_DRIVER.release_name,
            ns.metadata.name,
            values=plan.values,
            secret=plan.secret_values,
            version=plan.version,
            depends_on=[ns, *self._dependencies],
            mirror=plan.mirror,
        )
        after = self.child_opts(depends_on=[release])
        classes = [
            k8s.resource.v1.DeviceClass(
                f"{name}-class-{o['metadata']['name']}",
                metadata=o["metadata"],
                spec=cast(Any, o["spec"]),
                opts=after,
            )
            for o in d.device_classes(plan)
        ]
        templates = []
        for obj in d.claim_templates(plan):
            meta = obj["metadata"]
            templates.append(f"{meta['namespace']}/{meta['name']}")
            # A template's spec is immutable: a changed device request replaces it.
            opts = self.child_opts(
                depends_on=[release, *classes, *self._template_dependencies(meta["namespace"])],
                replace_on_changes=["spec"],
                delete_before_replace=True,
            )
            k8s.resource.v1.ResourceClaimTemplate(
                f"{name}-claim-{meta['namespace']}-{meta['name']}",
                metadata=meta,
                spec=cast(Any, obj["spec"]),
                opts=opts,
            )
        self.status = release.status
        self.device_classes = pulumi.Output.from_input(
            [o["metadata"]["name"] for o in d.device_classes(plan)]
        )
        self.claim_templates = pulumi.Output.from_input(templates)
        return {
            "status": self.status,
            "device_classes": self.device_classes,
            "claim_templates": self.claim_templates,
        }
