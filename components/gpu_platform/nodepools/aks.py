"""AKS GPU node pool: an ``AgentPool`` of GPU VMs in user mode.

Argument names follow azure-native 3.29.0 (GPU_PLATFORM_FACTS.md section 1.3).
"""

from __future__ import annotations

import re
from typing import NotRequired, TypedDict

import pulumi
from pulumi import Input

from gpu_platform import scheduling
from gpu_platform.args import GpuPoolArgs
from gpu_platform.catalog.mig import MigTable
from gpu_platform.config.errors import ConfigError
from gpu_platform.driver import DEFAULT_IMAGE
from gpu_platform.nodepools import PoolPlan, ensure_gpu_taint, resolve_pool_plan
from gpu_platform.pools import Taint

IGNORE_CHANGES = ["count"]
"""The autoscaler owns the node count; AKS refuses manual scaling of an autoscaled pool."""
REPLACE_ON_CHANGES = [
    "vmSize",
    "gpuInstanceProfile",
    "gpuProfile",
    "scaleSetPriority",
    "scaleSetEvictionPolicy",
    "spotMaxPrice",
    "availabilityZones",
    "osDiskSizeGB",
    "osSKU",
    "vnetSubnetID",
]
"""AKS fixes these when the pool is created (VM size, MIG instance profile, driver install, spot
settings, zones, disk, OS, subnet); changing one needs a new pool."""
AKS_MIG_COMPUTE_SLICES = (1, 2, 3, 4, 7)
"""``gpu_instance_profile`` values are ``MIG<compute slices>g``."""
AGENT_POOL_NAME = re.compile(r"^[a-z][a-z0-9]{0,11}$")
"""Linux agent pool names: lowercase letters and digits, at most 12 characters."""


class AksGpuNodePoolArgs(TypedDict):
    resource_group_name: Input[str]
    """Resource group of the cluster."""
    cluster_name: Input[str]
    """Name of the AKS managed cluster."""
    pool: GpuPoolArgs
    """The pool, as in the stack config's ``gpuPools`` entries (snake_case)."""
    agent_pool_name: NotRequired[str]
    """AKS pool name; default: the pool name without dashes, cut to 12 characters."""
    vnet_subnet_id: NotRequired[Input[str]]
    """Node subnet; required when the cluster uses its own VNet (``AksCluster.node_subnet_id``)."""
    kubernetes_version: NotRequired[Input[str]]
    """Node Kubernetes version; default: the cluster's."""
    driver_owner: NotRequired[str]
    """``auto`` (default: the operator installs, AKS driver install skipped), ``operator`` or ``cloud``."""
    operator_version: NotRequired[str]
    """GPU Operator chart version (default ``versions.GPU_OPERATOR``)."""
    driver_version: NotRequired[str]
    """Operator-managed driver version override, for the CUDA check."""
    host_driver_version: NotRequired[str]
    """AKS-installed driver version, for the CUDA check."""


def default_agent_pool_name(pool_name: str) -> str:
    return re.sub(r"[^a-z0-9]", "", pool_name.lower())[:12]


def aks_taint(t: Taint) -> str:
    return f"{t.key}={t.value}:{t.effect}"


def gpu_instance_profile(plan: PoolPlan) -> str | None:
    """``MIG<n>g`` for AKS-managed MIG, from the profile's compute slices; ``None`` otherwise."""
    s = plan.pool.sharing
    if s.mode != "mig" or s.managed_by != "cloud":
        return None
    table = plan.pool.mig_table
    assert table is not None
    return aks_mig_profiles(table)[s.mig_profiles[0]]


def aks_mig_profiles(table: MigTable) -> dict[str, str]:
    """MIG profile -> ``gpu_instance_profile``: per compute size the profile with the fewest memory slices
    (on an A100 40GB: 1g.5gb, 2g.10gb, 3g.20gb, 4g.20gb, 7g.40gb, as AKS documents)."""
    out: dict[str, str] = {}
    for compute in AKS_MIG_COMPUTE_SLICES:
        plain = [p for p in table.profiles.values() if p.compute_slices == compute and "+" not in p.name]
        if plain:
            out[min(plain, key=lambda p: p.memory_slices).name] = f"MIG{compute}g"
    return out


def check_aks_pool(args: AksGpuNodePoolArgs) -> tuple[PoolPlan, str]:
    """Every check on known values, before anything is registered; returns the plan and AKS pool name."""
    plan = resolve_pool_plan("aks", args)
    pool = plan.pool
    problems = []
    name = args.get("agent_pool_name") or default_agent_pool_name(pool.name)
    if not AGENT_POOL_NAME.match(name):
        where = "agent_pool_name" if args.get("agent_pool_name") else "pool.name"
        problems.append(
            (where, f"AKS pool name '{name}' must be 1-12 lowercase letters/digits, starting with a letter")
        )
    for i, zone in enumerate(pool.zones):
        if not zone.isdigit():
            problems.append(
                (f"pool.zones[{i}]", f"AKS availability zones are numbers ('1', '2', '3'), not '{zone}'")
            )
    s = pool.sharing
    if s.mode == "mig" and s.managed_by == "cloud":
        table = pool.mig_table
        assert table is not None
        valid = aks_mig_profiles(table)
        if s.mig_profiles[0] not in valid:
            problems.append(
                (
                    "pool.sharing.mig.layout",
                    f"AKS gpu_instance_profile cannot express {s.mig_profiles[0]}; on {table.display} it offers "
                    + ", ".join(f"{v} ({p})" for p, v in valid.items()),
                )
            )
        if plan.driver.aks_gpu_driver != "Install":
            problems.append(
                (
                    "driver_owner",
                    "AKS partitions GPUs (gpu_instance_profile) with the driver it installs: use owner "
                    "'cloud', or let the GPU Operator's MIG manager do MIG (sharing.managed_by: operator)",
                )
            )
    if problems:
        raise ConfigError(problems)
    return plan, name


class AksGpuNodePool(pulumi.ComponentResource):
    """A tainted, labelled, autoscaled AKS GPU agent pool (``mode=User``).

    - ``node_taints`` strings: ``nvidia.com/gpu=present:NoSchedule`` always (AKS adds none for GPUs), then
      the user's, then on spot pools AKS's own ``kubernetes.azure.com/scalesetpriority=spot:NoSchedule``
      (declared so Pulumi does not see drift; ``scheduling.pool_tolerations`` tolerates it).
    - ``node_labels`` from ``scheduling.pool_labels``.
    - ``gpu_profile.driver`` from the shared ``DriverPlan``: ``None`` when the GPU Operator installs the
      driver, ``Install`` when AKS does.
    - AKS-managed MIG (``sharing.managed_by: cloud``): ``gpu_instance_profile`` ``MIG1g``..``MIG7g``. It is
      fixed when the pool is created: another profile means a new pool.
    - Spot: ``scale_set_priority=Spot``, eviction ``Delete``, ``spot_max_price`` (default -1: up to the
      on-demand price).
    - ``enable_auto_scaling`` with ``min_count``/``max_count``; ``count`` starts at ``initial_nodes`` and is
      in ``ignore_changes``.

    Replacements: VM size, MIG instance profile, driver install mode, spot settings, zones, OS disk, OS SKU
    and subnet cannot change on a live AKS pool, so they are ``replace_on_changes``; the pool keeps its
    name, so it is deleted before its replacement is created (``delete_before_replace``), which also never
    needs twice the GPU quota.
    """

    node_pool_name: pulumi.Output[str]
    labels: pulumi.Output[dict[str, str]]
    taints: pulumi.Output[list[dict[str, str]]]
    """Kubernetes shape, including the AKS spot taint, as pods must tolerate them."""

    def __init__(self, name: str, args: AksGpuNodePoolArgs, opts: pulumi.ResourceOptions | None = None):
        plan, pool_name = check_aks_pool(args)
        super().__init__("gpu-platform:index:AksGpuNodePool", name, None, opts)
        import pulumi_azure_native.containerservice as aks

        pool = plan.pool
        self.pool = pool
        self.driver = plan.driver
        assert pool.machine is not None
        taints = [*plan.taints, *scheduling.cloud_added_taints(pool)]
        ensure_gpu_taint(taints)
        spot = {}
        if pool.spot:
            spot = {
                "scale_set_priority": "Spot",
                "scale_set_eviction_policy": "Delete",
                "spot_max_price": pool.spot_max_price if pool.spot_max_price is not None else -1,
            }
        self.agent_pool = aks.AgentPool(
            f"{name}-agentpool",
            resource_group_name=args["resource_group_name"],
            resource_name_=args["cluster_name"],
            agent_pool_name=pool_name,
            mode="User",
            os_type="Linux",
            os_sku=pool.image or DEFAULT_IMAGE["aks"],
            vm_size=pool.machine.name,
            count=pool.initial_nodes,
            enable_auto_scaling=True,
            min_count=pool.min_nodes,
            max_count=pool.max_nodes,
            node_labels=plan.labels,
            node_taints=[aks_taint(t) for t in taints],
            availability_zones=list(pool.zones) or None,
            os_disk_size_gb=pool.disk_size_gb,
            gpu_profile=aks.GPUProfileArgs(driver=plan.driver.aks_gpu_driver),
            gpu_instance_profile=gpu_instance_profile(plan),
            vnet_subnet_id=args.get("vnet_subnet_id"),
            orchestrator_version=args.get("kubernetes_version"),
            **spot,
            opts=pulumi.ResourceOptions(
                parent=self,
                ignore_changes=IGNORE_CHANGES,
                replace_on_changes=REPLACE_ON_CHANGES,
                delete_before_replace=True,
            ),
        )
        self.node_pool_name = pulumi.Output.from_input(pool_name)
        self.labels = pulumi.Output.from_input(plan.labels)
        self.taints = pulumi.Output.from_input(
            [{"key": t.key, "value": t.value, "effect": t.effect} for t in taints]
        )
        self.register_outputs(
            {"node_pool_name": self.node_pool_name, "labels": self.labels, "taints": self.taints}
        )
