"""GPU sharing: what a pool's nodes advertise, and the device-plugin and mig-parted configs.

Formats: NVIDIA k8s-device-plugin config ``version: v1`` (``sharing.timeSlicing`` / ``sharing.mps``)
and mig-parted ``version: v1`` / ``mig-configs`` (NVIDIA/cloud-native-docs ``gpu-operator/gpu-sharing.rst``
and ``gpu-operator/gpu-operator-mig.rst``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import Any

from gpu_platform.pools import GpuPool

GPU_RESOURCE = "nvidia.com/gpu"
SHARED_GPU_RESOURCE = "nvidia.com/gpu.shared"
# --- isolated fractions (HAMi) ------------------------------------------------------------------------
ISOLATED = "isolated"
"""``sharing.mode`` of a pool whose GPUs HAMi splits into isolated fractions (what its add-on serves and what
other schedulers' checks must refuse to place)."""
VGPU_RESOURCE = "nvidia.com/vgpu"
"""What HAMi's device plugin advertises on isolated pools: ``deviceSplitCount`` per card. Not ``nvidia.com/gpu``
(HAMi's default ``resourceName``): HAMi's webhook hands every pod asking for its count resource to its own
scheduler, whose extender only places pods on nodes HAMi registered, so whole-GPU pods of the other pools must
not ask for it (Project-HAMi/HAMi v2.10.0 ``pkg/scheduler/webhook.go``)."""
GPU_MEMORY_RESOURCE = "nvidia.com/gpumem"
"""MiB of one card's memory a container may use (HAMi-core enforces it); per ``VGPU_RESOURCE`` unit."""
GPU_CORES_RESOURCE = "nvidia.com/gpucores"
"""Percent of one card's compute a container may use; per ``VGPU_RESOURCE`` unit."""
TOTAL_GPU_MEMORY_RESOURCE = "nvidia.com/total-gpumem"
TOTAL_GPU_CORES_RESOURCE = "nvidia.com/total-gpucores"
"""What Kueue charges once it multiplies the per-unit requests by the units (Kueue v0.19.2
``site/content/en/docs/tasks/run/using_hami.md``)."""
CORES_PER_CARD = 100
"""HAMi counts a card's compute as 100 (percent, ``deviceCoreScaling`` 1)."""
EFA_RESOURCE = "vpc.amazonaws.com/efa"
"""What the AWS EFA device plugin advertises: one unit per EFA device of the node."""
HUGEPAGES_2MI_RESOURCE = "hugepages-2Mi"
EFA_HUGEPAGES_2MI_MIB = 5120
"""2 MiB huge pages an EFA pod requests, in MiB: EFA instances pre-allocate them, and AWS's EFA pod example
asks for ``hugepages-2Mi: 5120Mi`` (awsdocs amazon-eks-user-guide ``latest/ug/ml/node-efa.adoc``). The
library states this much per EFA node (one EFA pod per node), never more than the node pre-allocates."""
RDMA_SHARED_IB_RESOURCE = "rdma/shared_ib"
"""What the RDMA shared device plugin advertises for the InfiniBand HCAs of a node (resource ``shared_ib`` with
the plugin's ``rdma/`` prefix; Azure/aks-rdma-infiniband ``configs/nicclusterpolicy/rdma-shared-device-plugin``)."""
RDMA_HCA_MAX = 63
"""Pods that may share one node's HCAs (``rdmaHcaMax``): each requests one unit and sees every HCA."""
MEBIBYTE_RESOURCES = frozenset({HUGEPAGES_2MI_RESOURCE})
"""Extended resources ``node_resources`` counts in MiB (quantities with ``Mi``), not in units."""
DRA_QUOTA_PREFIX = "dra.gpu-platform.io/"
"""DRA pools: their nodes advertise no extended resources; Kueue charges their claims under these
quota names (``addons.dra.plan.kueue_device_class_mappings``), distinct from the device plugin's so a DRA workload
is never given a device-plugin pool's flavor, nor the other way round."""
COMPUTE_DOMAIN_CHANNEL_RESOURCE = f"{DRA_QUOTA_PREFIX}compute-domain-channel"
"""The quota name Kueue charges ComputeDomain channel claims to (DeviceClass
``compute-domain-default-channel.nvidia.com``): Kueue 0.19 refuses a workload whose claim names a DeviceClass
that no ``deviceClassMappings`` entry lists (``pkg/dra/claims.go``: "DeviceClass ... is not mapped"), so a
multi-node NVLink job would never be admitted without it. One channel per GPU of each DRA node: every pod of such
a job holds one channel and at least one GPU."""


def advertised_resources(pool: GpuPool) -> dict[str, int]:
    """Extended resources one node of the pool advertises to Kubernetes, name -> units (DRA pools: the
    units Kueue counts for their claims, ``DRA_QUOTA_PREFIX``).

    8 x H100 with ``all-1g.10gb`` mixed -> ``{"nvidia.com/mig-1g.10gb": 56}``;
    1 x L4 with time-slicing 4 -> ``{"nvidia.com/gpu": 4}``.
    """
    s = pool.sharing
    n = pool.gpus_per_node
    if pool.dra:  # DRA: units Kueue counts per node, charged from ResourceClaimTemplates
        if s.mode == "mig":
            counts = Counter(s.mig_profiles)
            return {f"{DRA_QUOTA_PREFIX}mig-{p}": n * c for p, c in sorted(counts.items())}
        return {f"{DRA_QUOTA_PREFIX}gpu": n}
    if s.mode in ("time-slicing", "mps"):
        name = SHARED_GPU_RESOURCE if s.rename_by_default else GPU_RESOURCE
        return {name: n * s.replicas}
    if s.mode == "isolated":
        return {VGPU_RESOURCE: n * s.replicas}
    if s.mode == "mig":
        counts = Counter(s.mig_profiles)
        if s.mig_strategy == "single":
            return {GPU_RESOURCE: n * sum(counts.values())}
        return {f"nvidia.com/mig-{p}": n * c for p, c in sorted(counts.items())}
    return {GPU_RESOURCE: n}


def node_resources(pool: GpuPool) -> dict[str, int]:
    """Every extended resource one node advertises: the GPU resources, plus on EFA pools the EFA devices and
    the 2 MiB huge pages EFA pods request (MiB, ``resource_quantity``).

    What Kueue must cover (a job asking for a resource no flavor covers is never admitted) and what the
    Cluster Autoscaler must be told for an empty node group.
    """
    out = dict(advertised_resources(pool))
    if pool.efa and pool.machine is not None and pool.machine.efa_interfaces:
        out[EFA_RESOURCE] = pool.machine.efa_interfaces
        out[HUGEPAGES_2MI_RESOURCE] = EFA_HUGEPAGES_2MI_MIB
    if pool.infiniband:
        out[RDMA_SHARED_IB_RESOURCE] = RDMA_HCA_MAX
    return out


def card_memory_mib(pool: GpuPool) -> int:
    """One card's memory as the catalog states it, in MiB (what an isolated pool's slices add up to)."""
    return pool.gpu.memory_gb * 1024


def fraction_quota(pool: GpuPool) -> dict[str, int]:
    """Isolated pools: what one node holds in the units Kueue charges after its HAMi transformations (MiB of
    card memory, compute percent); ``{}`` on every other pool."""
    if pool.sharing.mode != "isolated":
        return {}
    n = pool.gpus_per_node
    return {
        TOTAL_GPU_MEMORY_RESOURCE: n * card_memory_mib(pool),
        TOTAL_GPU_CORES_RESOURCE: n * CORES_PER_CARD,
    }


def fraction_transformations() -> list[dict[str, object]]:
    """Kueue ``Configuration.resources.transformations`` charging a pod's per-unit memory and compute times its
    units (Kueue v0.19.2 ``apis/config/v1beta2/configuration_types.go``, ``multiplyBy``)."""
    return [
        {
            "input": per_unit,
            "strategy": "Replace",
            "multiplyBy": VGPU_RESOURCE,
            "outputs": {total: "1"},
        }
        for per_unit, total in (
            (GPU_CORES_RESOURCE, TOTAL_GPU_CORES_RESOURCE),
            (GPU_MEMORY_RESOURCE, TOTAL_GPU_MEMORY_RESOURCE),
        )
    ]


def resource_quantity(resource: str, units: int) -> int | str:
    """``units`` of a ``node_resources`` entry as a Kubernetes quantity: ``5120Mi`` for huge pages, else the count
    (and ``0`` for none of either)."""
    return f"{units}Mi" if resource in MEBIBYTE_RESOURCES and units else units


def device_plugin_config_key(pool: GpuPool) -> str | None:
    """Key of the pool's named config in the device-plugin ConfigMap (label value), if it needs one."""
    if pool.sharing.managed_by != "operator" or pool.sharing.mode not in ("time-slicing", "mps"):
        return None
    return f"{pool.name}-{pool.sharing.mode}-{pool.sharing.replicas}"


def device_plugin_config(pool: GpuPool, mig_strategy: str) -> dict[str, Any]:
    """One named config of the NVIDIA device plugin for this pool (time-slicing or MPS)."""
    s = pool.sharing
    resource = {"name": GPU_RESOURCE, "replicas": s.replicas}
    if s.mode == "time-slicing":
        sharing: dict[str, Any] = {
            "timeSlicing": {
                "renameByDefault": s.rename_by_default,
                "failRequestsGreaterThanOne": s.fail_requests_greater_than_one,
                "resources": [resource],
            }
        }
    else:
        sharing = {"mps": {"renameByDefault": s.rename_by_default, "resources": [resource]}}
    return {"version": "v1", "flags": {"migStrategy": "none"}, "sharing": sharing}


def mig_parted_config(pools: Iterable[GpuPool]) -> dict[str, Any]:
    """mig-parted config holding every layout the pools select, per GPU via ``device-filter``.

    It replaces the operator's default config, so it also carries ``all-disabled``. Pools that share
    a named layout on different GPUs get one entry per GPU model, as the operator's default does.
    """
    configs: dict[str, list[dict[str, Any]]] = {
        "all-disabled": [{"devices": "all", "mig-enabled": False}],
    }
    seen: set[tuple[str, str]] = set()
    for pool in pools:
        s = pool.sharing
        if s.mode != "mig" or s.managed_by != "operator" or not s.mig_layout:
            continue
        if (s.mig_layout, pool.gpu.key) in seen:
            continue
        seen.add((s.mig_layout, pool.gpu.key))
        entry: dict[str, Any] = {}
        if pool.gpu.pci_device_ids:
            entry["device-filter"] = list(pool.gpu.pci_device_ids)
        entry.update(
            {
                "devices": "all",
                "mig-enabled": True,
                "mig-devices": dict(sorted(Counter(s.mig_profiles).items())),
            }
        )
        configs.setdefault(s.mig_layout, []).append(entry)
    return {"version": "v1", "mig-configs": configs}


def cluster_mig_strategy(pools: Iterable[GpuPool]) -> str:
    """``mixed`` when any pool needs it, else ``single``; the operator has one strategy per cluster."""
    strategies = {p.sharing.mig_strategy for p in pools if p.sharing.mode == "mig"}
    return "mixed" if "mixed" in strategies else "single"
