"""``EfaDevicePlugin``: makes the EFA interfaces of EFA pools requestable as ``vpc.amazonaws.com/efa``.

The EKS accelerated AMIs carry the host side of EFA; pods only see the devices once this plugin runs
(GPU_PLATFORM_FACTS.md section 10). One pinned ``helm.v3.Release`` of aws/eks-charts'
``aws-efa-k8s-device-plugin`` in ``kube-system``, on the EFA pools' nodes, tolerating their taints.
"""

from typing import Any

import pulumi
import pulumi_kubernetes as k8s

from gpu_platform import versions
from gpu_platform.args.autoscaling import EfaDevicePluginArgs
from gpu_platform.clouds.eks.autoscaling_plan import (
    EfaDevicePluginPlan,
    efa_device_plugin_values,
    plan_efa_device_plugin,
)
from gpu_platform.component import PlannedComponent


class EfaDevicePlugin(PlannedComponent[EfaDevicePluginPlan]):
    """The AWS EFA Kubernetes device plugin on the EFA GPU pools."""

    _type_token = "gpu-platform:index:EfaDevicePlugin"

    status: pulumi.Output[Any]
    """Status of the Helm release."""

    def __init__(
        self, name: str, args: EfaDevicePluginArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        self._start(name, plan_efa_device_plugin(args), opts)

    def _create(self, name: str, plan: EfaDevicePluginPlan) -> dict[str, Any]:
        pin = versions.AWS_EFA_DEVICE_PLUGIN
        release = k8s.helm.v3.Release(
            f"{name}-helm",
            name="aws-efa-k8s-device-plugin",
            chart=pin.chart,
            version=pin.version,
            repository_opts=k8s.helm.v3.RepositoryOptsArgs(repo=pin.repo),
            namespace=plan.namespace,
            create_namespace=False,
            values=efa_device_plugin_values(plan),
            opts=self.child_opts(depends_on=self._dependencies),
        )
        self.status = release.status
        return {"status": self.status}
