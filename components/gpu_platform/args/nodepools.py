"""GPU node pool component arguments, per cloud. The pool itself is ``GpuPoolArgs``.

No ``from __future__ import annotations``: Pulumi's component analyzer needs real annotations.
"""

from collections.abc import Mapping, Sequence
from typing import Any, NotRequired

from pulumi import Input
from typing_extensions import TypedDict

from gpu_platform.args.common import DriverArgs
from gpu_platform.args.pool import GpuPoolArgs


class GpuNodePoolArgs(TypedDict):
    """What every cloud's GPU node pool takes."""

    pool: GpuPoolArgs
    """The pool, exactly as a ``gpuPools`` entry of the stack file (its keys snake_case in Python)."""
    driver: NotRequired[DriverArgs]
    """Who installs the driver; must be what the GPU Operator is given, so nothing is installed twice."""
    operator_version: NotRequired[str]
    """GPU Operator chart version (default ``versions.GPU_OPERATOR``), for the driver it installs."""
    cuda_version: NotRequired[str]
    """CUDA ``major.minor`` of the images, for a pool without its own ``cuda_version``."""
    kubernetes_version: NotRequired[Input[str]]
    """Node Kubernetes version; default: the cluster's."""
    protect: NotRequired[bool]
    """Protect the pool from deletion and replacement (Pulumi ``protect``); default true. Set false for
    disposable stacks, or to let a replacing change (new machine type, zones, spot) go through: the new
    pool is then created before the old one is deleted."""


class GkeGpuNodePoolArgs(GpuNodePoolArgs):
    """A tainted GKE GPU node pool (``GkeGpuNodePool``)."""

    cluster: Input[str]
    """Cluster name, or its ID ``projects/<project>/locations/<location>/clusters/<name>``."""
    location: Input[str]
    """Cluster location (region or zone)."""
    project: NotRequired[Input[str]]
    """Default: the provider's project."""
    service_account: NotRequired[Input[str]]
    """Node service account email; default: the Compute Engine default account. Use a least-privilege one
    (``GkeCluster.node_service_account_email``)."""
    workload_identity: NotRequired[bool]
    """Run the GKE metadata server on the nodes (Workload Identity). Default true; false only for clusters
    without Workload Identity."""


class EksGpuNodePoolArgs(GpuNodePoolArgs):
    """A tainted EKS managed node group for GPUs (``EksGpuNodePool``)."""

    cluster_name: Input[str]
    """Name of the EKS cluster (``EksCluster.cluster_name`` or one made elsewhere)."""
    node_role_arn: Input[str]
    """IAM role of the nodes (worker node, ECR read-only and CNI policies)."""
    subnet_ids: Input[Sequence[Input[str]]]
    """Private subnets for the nodes; they decide the zones. EFA pools need subnets in one zone."""
    security_group_ids: NotRequired[Input[Sequence[Input[str]]]]
    """Required with ``pool.efa``: security groups of the EFA interfaces, normally the cluster security
    group (it allows all traffic between its members, which EFA needs)."""
    node_repair: NotRequired[bool]
    """EKS node auto repair on the node group (``nodeRepairConfig``): EKS reboots or replaces nodes whose
    conditions the node monitoring agent add-on marks unhealthy (``AcceleratedHardwareReady`` for GPUs).
    Default false here; the stack turns it on with ``observability.nodeAutoRepair``."""


class AksGpuNodePoolArgs(GpuNodePoolArgs):
    """A tainted AKS GPU agent pool (``AksGpuNodePool``)."""

    resource_group_name: Input[str]
    """Resource group of the cluster."""
    cluster_name: Input[str]
    """Name of the AKS managed cluster."""
    agent_pool_name: NotRequired[str]
    """AKS pool name (1-12 lowercase letters/digits). Default: generated from the pool name and the settings
    AKS cannot change in place, so a replacing change creates the new pool before deleting the old one.
    A fixed name must be deleted first instead (a gap in capacity)."""
    vnet_subnet_id: NotRequired[Input[str]]
    """Node subnet; required when the cluster uses its own VNet (``AksCluster.node_subnet_id``)."""


class OpenShiftGpuMachineSetArgs(TypedDict):
    """GPU MachineSets of an OpenShift cluster (``OpenShiftGpuMachineSet``), one per zone, with the library's
    taint, labels and sharing config, and a MachineAutoscaler each when the pool autoscales."""

    pool: GpuPoolArgs
    """The pool, exactly as a ``gpuPools`` entry of an ``openshift`` stack file (its keys snake_case in Python)."""
    infrastructure_id: str
    """The cluster's infrastructure name: ``oc get infrastructure cluster -o jsonpath='{.status.infrastructureName}'``."""
    platform: str
    """The cluster's infrastructure platform: ``aws``, ``azure`` or ``gcp`` (ROSA is ``aws``, ARO ``azure``)."""
    instance_type: str
    """The GPU machine type on that platform (``p4de.24xlarge``, ``Standard_ND96amsr_A100_v4``,
    ``a2-ultragpu-8g``); its GPU model and count must be the pool's."""
    provider_spec: Mapping[str, Any]
    """``spec.template.spec.providerSpec.value`` of one of the cluster's worker MachineSets (image, subnet,
    security groups, credentials). The library sets the machine type, the zone and spot on a copy."""
    zones: Sequence[str]
    """One MachineSet per zone (``us-east-1a``; Azure ``1``; ``us-central1-a``); ``min_nodes``/``max_nodes``
    of the pool are totals over them."""
    zone_provider_specs: NotRequired[Mapping[str, Mapping[str, Any]]]
    """Per zone, what differs from ``provider_spec`` there (AWS: the zone's ``subnet``), merged over it."""
    driver: NotRequired[DriverArgs]
    """Must leave the driver to the GPU Operator: RHCOS builds it with the Driver Toolkit."""
    operator_version: NotRequired[str]
    """GPU Operator version (default ``versions.GPU_OPERATOR``), for the driver it installs."""
    cuda_version: NotRequired[str]
    """CUDA ``major.minor`` of the images, for a pool without its own ``cuda_version``."""
