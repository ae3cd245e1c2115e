"""An EKS GPU node group's plan: AMI type, capacity type, root device, EFA interfaces, the instance store's user
data and the Cluster Autoscaler's node-template tags.

Argument names follow pulumi-aws 7.51.1 (PyPI, ``pulumi_aws/eks/node_group.py``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from gpu_platform.cloud_facts.eks.profile import AL2023, CA_NODE_TEMPLATE, PROFILE
from gpu_platform.clouds.eks.instance_store_plan import RAID0, instance_store_user_data
from gpu_platform.driver import DriverPlan
from gpu_platform.plans.node_pool_plan import CLOUD_TAINT_EFFECT, NodePoolPlan, base_plan
from gpu_platform.pools import GpuPool, Taint
from gpu_platform.sharing import GPU_RESOURCE, node_resources, resource_quantity

AUTOSCALING_OPTIONS = f"{CA_NODE_TEMPLATE}/autoscaling-options"
"""Per-group overrides of the Cluster Autoscaler's scale-down flags (cluster-autoscaler
``cloudprovider/aws/README.md`` at 1.35.0, "Auto-Discovery Setup": ``scaledownutilizationthreshold``,
``scaledowngpuutilizationthreshold``, ``scaledownunneededtime``, ``scaledownunreadytime``,
``ignoredaemonsetsutilization``)."""
BUSY_THRESHOLD = "0.0000001"
"""Scale-down utilization threshold of GPU groups: a node is a candidate only below it (FAQ "How does
scale-down work?"), so an idle node (0) still goes, and any pod that requests one GPU unit, one DRA device,
one millicore or one MiB keeps it (one millicore of 10,000 vCPUs, one MiB of 10 TiB are above it). The
FAQ's own answer to "prevent scale-down of non-empty nodes" is 0, which would also keep idle nodes."""
GPU_SCALE_DOWN_UNNEEDED_TIME = "15m0s"
"""An idle GPU node waits 15 minutes (upstream 10m): re-provisioning one takes 10-25 minutes (boot, driver,
device plugin, a MIG reboot), so a gap between two jobs should not cost a new node."""
GPU_SCALE_DOWN_UNREADY_TIME = "30m0s"
"""A GPU node that is not ready (or keeps its startup taint) goes after 30 minutes (upstream 20m): longer
than ``DEFAULT_MAX_NODE_PROVISION_TIME`` (25m), which a p5 with a MIG reboot may need."""


def scale_down_options() -> dict[str, str]:
    """The Auto Scaling group tags that keep a GPU node running a job out of the autoscaler's scale-down.

    On a node with the GPU label the autoscaler counts only ``nvidia.com/gpu`` (2 of 8 GPUs is 25%, below
    the default 0.5); on MIG ``mixed``, renamed-sharing and DRA nodes it counts CPU and memory (DRA devices
    too, with ``--enable-dynamic-resource-allocation``), where DaemonSets alone would keep an idle node
    above any useful threshold. So DaemonSets are left out and the threshold is ``BUSY_THRESHOLD``.
    """
    return {
        f"{AUTOSCALING_OPTIONS}/ignoredaemonsetsutilization": "true",
        f"{AUTOSCALING_OPTIONS}/scaledowngpuutilizationthreshold": BUSY_THRESHOLD,
        f"{AUTOSCALING_OPTIONS}/scaledownunneededtime": GPU_SCALE_DOWN_UNNEEDED_TIME,
        f"{AUTOSCALING_OPTIONS}/scaledownunreadytime": GPU_SCALE_DOWN_UNREADY_TIME,
        f"{AUTOSCALING_OPTIONS}/scaledownutilizationthreshold": BUSY_THRESHOLD,
    }


def node_template_tags(pool: GpuPool, labels: Mapping[str, str], taints: Sequence[Taint]) -> dict[str, str]:
    """The pool's nodes as the Cluster Autoscaler must imagine them while the group is empty.

    Labels, taints and every extended resource a node will advertise (GPU, MIG profiles, shared replicas,
    EFA devices) as ASG tags ``k8s.io/cluster-autoscaler/node-template/{label,taint,resources}/<name>``
    (cluster-autoscaler FAQ "How can I scale a node group to 0?"). The autoscaler otherwise assumes the
    instance type's whole GPUs and nothing else, so pods asking for MIG slices, renamed replicas or EFA
    never scale an empty group up. ``nvidia.com/gpu`` is stated even when 0, for the same reason.
    """
    tags = {f"{CA_NODE_TEMPLATE}/label/{k}": v for k, v in sorted(labels.items())}
    tags.update({f"{CA_NODE_TEMPLATE}/taint/{t.key}": f"{t.value}:{t.effect}" for t in taints})
    resources = {GPU_RESOURCE: 0, **node_resources(pool)}
    tags.update(
        {
            f"{CA_NODE_TEMPLATE}/resources/{r}": str(resource_quantity(r, n))
            for r, n in sorted(resources.items())
        }
    )
    tags.update(scale_down_options())
    return tags


@dataclass(frozen=True)
class EksNodePoolPlan(NodePoolPlan):
    ami_type: str = PROFILE.default_image or ""
    capacity_type: str = "ON_DEMAND"
    root_device: str = AL2023.root_device or ""
    """Where container images live: AL2023's root volume; Bottlerocket's data volume (its root is the OS)."""
    efa_interfaces: int = 0
    """EFA network cards to attach (0 without EFA)."""
    placement_group: bool = False
    """A cluster placement group: EFA pools always (low-latency EFA traffic), ``compact_placement`` pools too."""
    autoscaler_tags: Mapping[str, str] = field(default_factory=dict)
    """``node_template_tags``: put on the node group's Auto Scaling group."""
    user_data: str | None = None
    """The launch template's user data (before base64): ``local_ssds`` pools put the kubelet's and containerd's
    state on the instance store (``instance_store_plan``); ``None``: EKS's own user data only."""

    @property
    def cloud_taints(self) -> list[dict[str, str | None]]:
        return [
            {"key": t.key, "value": t.value or None, "effect": CLOUD_TAINT_EFFECT[t.effect]}
            for t in self.taints
        ]


def eks_node_pool_plan(pool: GpuPool, driver: DriverPlan, inputs: Mapping[str, Any]) -> EksNodePoolPlan:
    assert pool.machine is not None
    ami = pool.image or PROFILE.default_image or ""
    capacity = pool.capacity_type or ("SPOT" if pool.spot else "ON_DEMAND")
    # EKS replaces a node group for a new AMI type, instance type, capacity type or subnets (zones).
    fixed: tuple[Any, ...] = (ami, pool.machine.name, capacity, pool.zones, pool.efa)
    if pool.compact_placement and not pool.efa:  # EFA pools have the group already: their names stay
        fixed += ("cluster-placement-group",)
    image = PROFILE.images[ami]
    if pool.local_ssds:  # new nodes only: a new group, so the diff gate shows the old one replaced
        fixed += (("instance-store", RAID0),)
    base = base_plan(pool, driver, inputs, *fixed)
    return EksNodePoolPlan(
        **base,
        autoscaler_tags=node_template_tags(pool, base["labels"], base["taints"]),
        ami_type=ami,
        capacity_type=capacity,
        root_device=image.root_device or "",
        efa_interfaces=pool.machine.efa_interfaces if pool.efa else 0,
        placement_group=pool.efa or pool.compact_placement,
        user_data=instance_store_user_data(image) if pool.local_ssds else None,
    )
