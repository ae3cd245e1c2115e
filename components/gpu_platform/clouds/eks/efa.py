"""``EfaDevicePlugin``: makes the EFA interfaces of EFA pools requestable as ``vpc.amazonaws.com/efa``.

The EKS accelerated AMIs carry the host side of EFA; pods only see the devices once this plugin runs
(https://docs.aws.amazon.com/eks/latest/userguide/device-management-efa.html). One pinned
``helm.v3.Release`` of aws/eks-charts' ``aws-efa-k8s-device-plugin`` in ``kube-system``,
on the EFA pools' nodes, tolerating their taints.
"""

from typing import Any

import pulumi
from pulumi_kubernetes.helm.v3.outputs import ReleaseStatus

from gpu_platform.clouds.eks.args import EfaDevicePluginArgs
from gpu_platform.clouds.eks.autoscaling_plan import (
    EfaDevicePluginPlan,
    efa_device_plugin_plan,
    efa_device_plugin_values,
)
from gpu_platform.clouds.eks.checks import efa_device_plugin_args
from gpu_platform.component import PlannedComponent
from gpu_platform.helm_release import helm_release
from gpu_platform.releases import AWS_EFA_DEVICE_PLUGIN


class EfaDevicePlugin(PlannedComponent[EfaDevicePluginPlan]):
    """The AWS EFA Kubernetes device plugin on the EFA GPU pools."""

    _type_token = "gpu-platform:index:EfaDevicePlugin"

    status: pulumi.Output[ReleaseStatus]
    """Status of the Helm release."""

    def __init__(
        self, name: str, args: EfaDevicePluginArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        """Check ``args`` (every problem at once; nothing is created on one), then create it. The AWS EFA
        Kubernetes device plugin on the EFA GPU pools."""
        self._start(name, efa_device_plugin_plan(*efa_device_plugin_args(args)), opts)

    def _create(self, name: str, plan: EfaDevicePluginPlan) -> dict[str, Any]:
        release = helm_release(
            self,
            f"{name}-helm",
            AWS_EFA_DEVICE_PLUGIN.pin,
            AWS_EFA_DEVICE_PLUGIN.release_name,
            plan.namespace,
            values=efa_device_plugin_values(plan),
            depends_on=self._dependencies,
            mirror=plan.mirror,
        )
        self.status = release.status
        return {"status": self.status}
