"""Node labels, taints and tolerations of a GPU pool: what every other component selects on.

The node pool puts them on nodes; the GPU Operator, Kueue flavors and KServe predictors read the
same functions, so selectors and tolerations always match what the nodes carry.
"""

from __future__ import annotations

from collections.abc import Sequence

from gpu_platform.cloud_facts import profile_of
from gpu_platform.driver import DriverPlan
from gpu_platform.pools import GPU_TAINT, GPU_UNHEALTHY_TAINT, STARTUP_TAINT, GpuPool, Taint
from gpu_platform.sharing import GPU_RESOURCE, advertised_resources, device_plugin_config_key

LABEL_PREFIX = "gpu-platform.io"
POOL_LABEL = f"{LABEL_PREFIX}/pool"
GPU_LABEL = f"{LABEL_PREFIX}/gpu"
SHARING_LABEL = f"{LABEL_PREFIX}/sharing"
ISOLATION_LABEL = f"{LABEL_PREFIX}/isolation"
"""``required`` on pools whose workloads need memory/fault isolation (policy: no time-slicing there)."""
EFA_LABEL = f"{LABEL_PREFIX}/efa"
"""``true`` on EFA pools: the AWS EFA device plugin runs on these nodes only."""
INFINIBAND_LABEL = f"{LABEL_PREFIX}/infiniband"
"""``true`` on InfiniBand pools: the Network Operator's DOCA driver and RDMA device plugin run there only."""
GPUDIRECT_LABEL = f"{LABEL_PREFIX}/gpudirect"
"""``tcpx``, ``tcpxo`` or ``rdma`` on GKE GPUDirect pools: Google's NCCL plugin installer of that path runs
on these nodes only."""
DEVICE_PLUGIN_CONFIG_LABEL = "nvidia.com/device-plugin.config"
MIG_CONFIG_LABEL = "nvidia.com/mig.config"
DEPLOY_DEVICE_PLUGIN_LABEL = "nvidia.com/gpu.deploy.device-plugin"
"""GPU Operator per-node switch: ``false`` keeps its device plugin off that node."""
DEPLOY_MIG_MANAGER_LABEL = "nvidia.com/gpu.deploy.mig-manager"
POOL_ROLE_LABEL = f"{LABEL_PREFIX}/pool-role"
SYSTEM_POOL_LABELS = {POOL_ROLE_LABEL: "system"}
"""On the untainted system pool of clusters the library creates: Kueue's system flavor selects it."""

# --- DRA ---------------------------------------------------------------------------------
ALLOCATION_LABEL = f"{LABEL_PREFIX}/allocation"
"""``dra`` on DRA pools (what the policy pack and the DRA driver's plugin selector read)."""
DRA_KUBELET_PLUGIN_LABEL = "nvidia.com/dra-kubelet-plugin"
"""NVIDIA's label for nodes whose GPUs the DRA driver owns: the DRA kubelet plugin's ``nodeSelector`` and the
GPU Operator driver manager's ``NODE_LABEL_FOR_GPU_POD_EVICTION`` (NVIDIA dra-intro-install, 26.3)."""


JOB_POD_LABEL = "batch.kubernetes.io/job-name"
"""Every pod of a Kubernetes Job carries this label (JobSet, TrainJob and Kueue-admitted Jobs run as Jobs): the
selector driver upgrades wait on (``waitForCompletion``) before they touch a node."""


def dra_labels(pool: GpuPool) -> dict[str, str]:
    """Labels of a DRA pool's nodes: the DRA plugin's selector, and the GPU Operator's device plugin and MIG
    manager switched off so a device plugin never runs next to DRA and nothing re-partitions the GPUs
    under the DRA plugin (which publishes the MIG devices it finds at start)."""
    labels = {
        ALLOCATION_LABEL: "dra",
        DRA_KUBELET_PLUGIN_LABEL: "true",
        DEPLOY_DEVICE_PLUGIN_LABEL: "false",
        DEPLOY_MIG_MANAGER_LABEL: "false",
    }
    if off := profile_of(pool.cloud).default_device_plugin_off_label:
        labels[off[0]] = off[1]
    return labels


# --- end DRA ------------------------------------------------------------------------------------------


def isolated_labels(pool: GpuPool) -> dict[str, str]:
    """Isolated pools: HAMi's device plugin owns the cards, so the GPU Operator's device plugin (and the
    cloud's default one, where a label turns it off) stays off them; the operator keeps the driver, the
    container toolkit, GFD and DCGM there. HAMi's DaemonSets select ``SHARING_LABEL=isolated``."""
    labels = {DEPLOY_DEVICE_PLUGIN_LABEL: "false"}
    if off := profile_of(pool.cloud).default_device_plugin_off_label:
        labels[off[0]] = off[1]
    return labels


def selector_labels(pool: GpuPool) -> dict[str, str]:
    """The labels that identify a pool's nodes (Kueue flavor ``nodeLabels``, KServe ``nodeSelector``)."""
    return {POOL_LABEL: pool.name, GPU_LABEL: pool.gpu.key}


def pool_labels(pool: GpuPool, driver: DriverPlan | None = None) -> dict[str, str]:
    """Every label the pool's nodes carry at creation, user labels first so ours win."""
    labels = dict(pool.user_labels)
    labels.update(selector_labels(pool))
    labels[SHARING_LABEL] = pool.sharing.mode
    if pool.isolation_required:
        labels[ISOLATION_LABEL] = "required"
    if pool.efa:
        labels[EFA_LABEL] = "true"
    if pool.infiniband:
        labels[INFINIBAND_LABEL] = "true"
    if pool.gpudirect is not None:
        labels[GPUDIRECT_LABEL] = pool.gpudirect.kind
    profile = profile_of(pool.cloud)
    if advertised_resources(pool).get(GPU_RESOURCE) and (accelerator := profile.accelerator_label(pool)):
        labels[accelerator[0]] = accelerator[1]
    key = device_plugin_config_key(pool)
    if key:
        labels[DEVICE_PLUGIN_CONFIG_LABEL] = key
    if pool.sharing.mode == "mig" and pool.sharing.managed_by == "operator" and pool.sharing.mig_layout:
        labels[MIG_CONFIG_LABEL] = pool.sharing.mig_layout
    cloud_shares = pool.sharing.managed_by == "cloud" and pool.sharing.mode != "none"
    if cloud_shares:
        # The cloud partitions/shares these GPUs (GKE gpu_sharing_config / gpu_partition_size, AKS
        # gpu_instance_profile): keep the operator's MIG manager off them so it never resets the
        # layout, and where the cloud's device plugin implements the sharing (GKE), keep it instead of ours.
        labels[DEPLOY_MIG_MANAGER_LABEL] = "false"
        if profile.cloud_sharing_runs_own_device_plugin:
            labels[DEPLOY_DEVICE_PLUGIN_LABEL] = "false"
    elif (off := profile.default_device_plugin_off_label) and (
        driver is None or driver.device_plugin == "operator"
    ):
        labels[off[0]] = off[1]
    if pool.sharing.mode == "isolated":
        labels.update(isolated_labels(pool))
    if pool.dra:  # DRA: no device-plugin or MIG-manager config on DRA pools
        for key in (DEVICE_PLUGIN_CONFIG_LABEL, MIG_CONFIG_LABEL, DEPLOY_DEVICE_PLUGIN_LABEL):
            labels.pop(key, None)
        labels.update(dra_labels(pool))
    return labels


def pool_taints(pool: GpuPool) -> list[Taint]:
    """Taints the library sets: the GPU taint first, always, then the user's."""
    taints = [GPU_TAINT]
    taints += [t for t in pool.user_taints if (t.key, t.effect) != (GPU_TAINT.key, GPU_TAINT.effect)]
    return taints


def cloud_added_taints(pool: GpuPool) -> list[Taint]:
    """Taints the cloud adds by itself (AKS spot), which workloads must tolerate too."""
    return profile_of(pool.cloud).added_taints(pool)


def late_resources(pool: GpuPool) -> dict[str, int]:
    """The GPU resources a new node advertises only once the operator has configured it (MIG ``mixed``
    profiles, renamed shared replicas), or ``{}`` where the Cluster Autoscaler's own GPU-not-ready gate
    covers the node (``nvidia.com/gpu`` with the accelerator label), the cloud shares the GPUs, or DRA
    publishes the devices."""
    resources = advertised_resources(pool)
    if pool.dra or pool.sharing.managed_by != "operator" or resources.get(GPU_RESOURCE):
        return {}
    return resources


def startup_taints(pool: GpuPool) -> list[Taint]:
    """``STARTUP_TAINT`` on pools with ``late_resources`` where the cloud's autoscaler honours it; the
    library's DaemonSets on those nodes tolerate it, workloads never do."""
    if profile_of(pool.cloud).startup_taint_for_late_resources and late_resources(pool):
        return [STARTUP_TAINT]
    return []


def node_agent_tolerations(pool: GpuPool) -> list[dict[str, str]]:
    """What a DaemonSet that prepares or serves the pool's nodes tolerates: the workloads' tolerations, the
    startup taint, which only goes once those agents have run, and the GPU-unhealthy taint (any value): a
    failing node still needs its driver, device plugin, exporter and health checks to report and recover; and
    the taints the cloud puts on some nodes for the pods it meant them for (``node_agent_taints``: GKE's
    queued-provisioning taint), which only node agents tolerate. The one list every such DaemonSet uses."""
    return (
        pool_tolerations(pool)
        + [toleration(t) for t in profile_of(pool.cloud).node_agent_taints(pool)]
        + [toleration(t) for t in startup_taints(pool)]
        + [toleration(GPU_UNHEALTHY_TAINT, exists=True)]
    )


def toleration(taint: Taint, exists: bool = False) -> dict[str, str]:
    if exists:
        return {"key": taint.key, "operator": "Exists", "effect": taint.effect}
    return {"key": taint.key, "operator": "Equal", "value": taint.value, "effect": taint.effect}


def pool_tolerations(pool: GpuPool) -> list[dict[str, str]]:
    """Tolerations a workload needs to run on this pool (its taints and the cloud's)."""
    out = [toleration(GPU_TAINT, exists=True)]
    out += [toleration(t) for t in pool.user_taints if t.key != GPU_TAINT.key]
    out += [toleration(t) for t in cloud_added_taints(pool)]
    return out


def operand_runs(pool: GpuPool, driver: DriverPlan, deploy_label: str) -> bool:
    """Whether a GPU Operator operand runs on the pool's nodes, read from the labels the pool carries."""
    return pool_labels(pool, driver).get(deploy_label) != "false"


def device_plugin_pools(pools: Sequence[GpuPool], driver: DriverPlan) -> list[GpuPool]:
    """Pools served by the GPU Operator's device plugin (not Bottlerocket's, not GKE's shared one)."""
    if driver.device_plugin != "operator":
        return []
    return [p for p in pools if operand_runs(p, driver, DEPLOY_DEVICE_PLUGIN_LABEL)]


def mig_manager_pools(pools: Sequence[GpuPool], driver: DriverPlan) -> list[GpuPool]:
    """MIG-capable pools the operator's MIG manager looks after (never cloud-partitioned ones)."""
    return [p for p in pools if p.gpu.mig_capable and operand_runs(p, driver, DEPLOY_MIG_MANAGER_LABEL)]
