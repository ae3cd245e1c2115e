"""``NetworkOperator``: makes the InfiniBand HCAs of AKS ND-series pools requestable as ``rdma/shared_ib``.

One pinned ``helm.v3.Release`` of NVIDIA's ``network-operator`` in its own namespace (privileged pod security: the
driver container loads kernel modules), then the ``NicClusterPolicy`` that runs the DOCA driver and the RDMA shared
device plugin on the InfiniBand pools (``clouds.aks.infiniband_plan``). The policy waits for the release, which
installs its CRD.
"""

from typing import Any

import pulumi
from pulumi_kubernetes.apiextensions import CustomResource
from pulumi_kubernetes.helm.v3.outputs import ReleaseStatus

from gpu_platform.clouds.aks.args import NetworkOperatorArgs
from gpu_platform.clouds.aks.checks import network_operator_args
from gpu_platform.clouds.aks.infiniband_plan import (
    NetworkOperatorPlan,
    network_operator_plan,
    network_operator_values,
    nic_cluster_policy,
)
from gpu_platform.component import PlannedComponent
from gpu_platform.helm_release import helm_namespace, helm_release
from gpu_platform.releases import NETWORK_OPERATOR

PRIVILEGED = {"pod-security.kubernetes.io/enforce": "privileged"}
"""The driver and device-plugin pods are privileged (Azure/aks-rdma-infiniband, "Network Operator")."""


class NetworkOperator(PlannedComponent[NetworkOperatorPlan]):
    """The NVIDIA Network Operator and its NicClusterPolicy on the InfiniBand GPU pools."""

    _type_token = "gpu-platform:index:NetworkOperator"

    status: pulumi.Output[ReleaseStatus]
    """Status of the Helm release."""

    def __init__(
        self, name: str, args: NetworkOperatorArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        """Check ``args`` (every problem at once; nothing is created on one), then create it. The NVIDIA Network
        Operator and its NicClusterPolicy for InfiniBand ND-series pools."""
        self._start(name, network_operator_plan(*network_operator_args(args)), opts)

    def _create(self, name: str, plan: NetworkOperatorPlan) -> dict[str, Any]:
        namespace = helm_namespace(self, f"{name}-ns", plan.namespace, PRIVILEGED, self._dependencies)
        release = helm_release(
            self,
            f"{name}-helm",
            NETWORK_OPERATOR.pin,
            NETWORK_OPERATOR.release_name,
            namespace.metadata["name"],
            values=network_operator_values(plan),
            depends_on=[namespace, *self._dependencies],
            mirror=plan.mirror,
        )
        policy = nic_cluster_policy(plan)
        CustomResource(
            f"{name}-nic-cluster-policy",
            api_version=policy["apiVersion"],
            kind=policy["kind"],
            metadata=policy["metadata"],
            spec=policy["spec"],
            opts=self.child_opts(depends_on=[release]),
        )
        self.status = release.status
        return {"status": self.status}
