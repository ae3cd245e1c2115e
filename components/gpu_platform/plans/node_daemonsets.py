"""The pods the library places on every GPU node, and what they request: one table, two readers.

The GPU Operator plan sets these requests on the operands (``<section>.resources`` in the chart values,
which the operator copies onto every container of the operand's DaemonSet, ``controllers/
object_controls.go`` at v26.7.0); Kueue takes the same numbers off each node's allocatable before it
multiplies by ``max_nodes``. So a quota never counts CPU or memory that the operator's pods hold.

The chart sets no requests by default (``resources: {}`` in ``values.yaml``): the numbers in
``GPU_NODE_DAEMONSET_REQUESTS`` are the library's, sized above the operands' usual footprint [U: no
upstream sizing guidance]. No limits are set, so an operand can still burst.

What runs on a pool's nodes follows the ``DriverPlan`` and the labels ``scheduling`` puts on them:

- ``driver`` and ``toolkit`` only where the operator installs them; the device plugin only where the
  operator's plugin serves the pool (not Bottlerocket, not GKE-shared pools); ``migManager`` on the pools
  ``scheduling.mig_manager_pools`` names; the MPS control daemon on operator-MPS pools.
- ``gfd``, ``validator`` and ``dcgmExporter`` (when enabled) on every GPU node; the chart's NFD worker on
  every node, CPU nodes included (``NFD_WORKER_REQUESTS``, the subchart's own requests).
- The device plugin, GFD and MPS daemon get a ``config-manager`` sidecar (with the same requests) when the
  device-plugin ConfigMap is set, i.e. when some pool is shared through the operator
  (``handleDevicePluginConfig`` removes it otherwise).
- The cloud's driver installer where the driver plan says ``cloud_installer`` (the profile's
  ``driver_installer``; GKE: Google's COS installer, whose init containers request 150m CPU each,
  ``data/gke-cos-daemonset-preloaded.yaml``); a pod holds ``max(init, sum of containers)``.

- node-problem-detector and the tainting remedy on every GPU node when observability's health checks are on
  (``GPU_HEALTH_DETECTOR_REQUESTS``, ``GPU_HEALTH_REMEDY_REQUESTS``, set on the release from here).

- The AWS EFA device plugin on EFA pools (``EFA_DEVICE_PLUGIN_REQUESTS``, the chart's own requests, set
  on the release from here), with or without the GPU Operator: an EFA pool needs it either way.

- Google's GPUDirect DaemonSets on GKE ``gpudirect`` pools (``GPUDIRECT_DAEMONSET_REQUESTS``, the 150m CPU
  Google's manifests request, set on them from here): the NCCL plugin installer of the pool's path (its init
  container holds the request; the pause container requests nothing) and, for TCPX/TCPXO, the NRI device
  injector.

- The startup-taint remover on pools that carry ``pools.STARTUP_TAINT`` (``STARTUP_TAINT_REMOVER_REQUESTS``),
  created with the GPU Operator.

- The NVIDIA DRA driver's kubelet plugin on DRA pools (``DRA_KUBELET_PLUGIN_REQUESTS``, the library's
  numbers [U], set on the chart's ``kubeletPlugin.containers.{gpus,computeDomains}`` from here). The
  ``computeDomains`` container is counted only when ComputeDomains are on: the chart renders it only with
  ``resources.computeDomains.enabled`` (templates/kubeletplugin.yaml, v0.4.1).

A new DaemonSet the library adds to GPU nodes belongs here too: its requests in a table entry, set on the
chart from it, and counted in ``gpu_node_requests`` where it runs; otherwise Kueue's quota counts CPU and
memory its pods hold.

Not subtracted [U]: the clouds' own per-node agents (kube-proxy, CNI, CSI, logging and metrics agents);
their requests vary by cluster version and add-ons and are not published as one table. A pod asking for
every last millicore of a node's quota share can still find it taken by them.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

from gpu_platform.cloud_facts import profile_of
from gpu_platform.driver import DriverPlan, installer_manifest
from gpu_platform.pools import GpuPool
from gpu_platform.scheduling import device_plugin_pools, mig_manager_pools, startup_taints
from gpu_platform.sharing import device_plugin_config_key
from gpu_platform.versions import UpstreamFile


@dataclass(frozen=True)
class GpuOperatorFacts:
    """What decides which GPU Operator operands run on a GPU node: the driver plan, the DCGM exporter."""

    driver: DriverPlan
    dcgm_exporter: bool = True


@dataclass(frozen=True)
class Requests:
    """CPU (millicores) and memory (MiB) a pod or container requests."""

    cpu_millicores: int = 0
    memory_mib: int = 0

    def __add__(self, other: Requests) -> Requests:
        return Requests(self.cpu_millicores + other.cpu_millicores, self.memory_mib + other.memory_mib)

    def __mul__(self, n: int) -> Requests:
        return Requests(self.cpu_millicores * n, self.memory_mib * n)

    def quantities(self) -> dict[str, str]:
        """As Kubernetes quantities: ``{"cpu": "50m", "memory": "128Mi"}``."""
        return {"cpu": f"{self.cpu_millicores}m", "memory": f"{self.memory_mib}Mi"}


GPU_NODE_DAEMONSET_REQUESTS: dict[str, Requests] = {
    "driver": Requests(200, 512),
    "toolkit": Requests(50, 64),
    "devicePlugin": Requests(50, 128),
    "gfd": Requests(50, 64),
    "dcgmExporter": Requests(100, 512),
    "migManager": Requests(50, 128),
    "validator": Requests(10, 32),
}
"""Requests per container of each GPU Operator operand, keyed by its chart values section
(``<section>.resources.requests``). The validator's also go on every operand's ``*-validation`` init
container; they are the smallest, so a pod's ``max(init, sum of containers)`` is its containers' sum."""

NFD_WORKER_REQUESTS = Requests(5, 64)
"""The node-feature-discovery subchart's ``worker.resources.requests`` (gpu-operator v26.7.0, not set by
the library): the NFD worker runs on every node, GPU and CPU."""


EFA_DEVICE_PLUGIN_REQUESTS = Requests(10, 20)
"""The aws-efa-k8s-device-plugin chart's ``resources.requests`` (v0.5.30), kept and set explicitly."""

GPUDIRECT_DAEMONSET_REQUESTS: dict[str, Requests] = {
    "ncclInstaller": Requests(150, 0),
    "nriDeviceInjector": Requests(150, 0),
}
"""Google's GPUDirect DaemonSets (container-engine-accelerators at ``versions.GPUDIRECT_COMMIT``): ``cpu: 150m``
on the installer's init container and on the injector, no memory request."""


def gpudirect_daemonsets(pool: GpuPool) -> tuple[str, ...]:
    """Which of ``GPUDIRECT_DAEMONSET_REQUESTS`` run on a node of ``pool``: none without GPUDirect; the
    installer always; the NRI device injector for TCPX/TCPXO (it puts the GPU devices into the daemon sidecar)."""
    if pool.gpudirect is None:
        return ()
    return ("ncclInstaller",) if pool.gpudirect.kind == "rdma" else ("ncclInstaller", "nriDeviceInjector")


STARTUP_TAINT_REMOVER_REQUESTS = Requests(10, 64)
"""The library's startup-taint remover (``addons.gpu_operator.startup_taint``) on pools that carry the startup taint: a
shell loop around kubectl, which needs some 40 MiB while it runs [U: the library's numbers]."""

GPU_HEALTH_DETECTOR_REQUESTS = Requests(20, 80)
"""node-problem-detector on every GPU node with observability's health checks (``addons.observability.gpu_health``): the chart
sets none; its upstream DaemonSet manifest (``deployment/node-problem-detector.yaml``) requests 10m and 80Mi
and limits memory to 80Mi, which the three log monitors here outgrow [U: the library's numbers]."""
GPU_HEALTH_REMEDY_REQUESTS = Requests(10, 64)
"""The tainting remedy beside it: the same kubectl loop as the startup-taint remover."""


DRA_KUBELET_PLUGIN_REQUESTS: dict[str, Requests] = {
    "gpus": Requests(50, 128),
    "computeDomains": Requests(50, 64),
}
"""Per container of the DRA kubelet plugin pod (the chart sets none)."""


def resources_values() -> dict[str, Any]:
    """Chart values: ``{"devicePlugin": {"resources": {"requests": {...}}}, ...}`` for every operand."""
    return {
        key: {"resources": {"requests": r.quantities()}} for key, r in GPU_NODE_DAEMONSET_REQUESTS.items()
    }


_MEMORY_UNITS_MIB = {"Ki": 1 / 1024, "Mi": 1, "Gi": 1024}


def _container_requests(container: Mapping[str, Any]) -> Requests:
    requests = container.get("resources", {}).get("requests", {})
    cpu = str(requests.get("cpu", "0"))
    millicores = int(cpu[:-1]) if cpu.endswith("m") else round(float(cpu) * 1000)
    memory = str(requests.get("memory", "0Mi"))
    unit = memory[-2:]
    if unit not in _MEMORY_UNITS_MIB:
        raise ValueError(f"memory request {memory!r}: only Ki, Mi and Gi are read here")
    return Requests(millicores, math.ceil(float(memory[:-2]) * _MEMORY_UNITS_MIB[unit]))


def pod_requests(pod_spec: Mapping[str, Any]) -> Requests:
    """A pod's effective requests: per resource, the larger of any init container and the containers' sum."""
    init = [_container_requests(c) for c in pod_spec.get("initContainers", [])]
    total = sum((_container_requests(c) for c in pod_spec.get("containers", [])), Requests())
    return Requests(
        max([total.cpu_millicores, *(r.cpu_millicores for r in init)]),
        max([total.memory_mib, *(r.memory_mib for r in init)]),
    )


@cache
def driver_installer_requests(file: UpstreamFile) -> Requests:
    """What a cloud's driver-installer DaemonSet pod (``file``, the profile's ``driver_installer``; GKE: Google's
    COS installer) holds on each GPU node it serves, read from the packaged manifest."""
    return pod_requests(installer_manifest(file)["spec"]["template"]["spec"])


def device_plugin_config_set(pools: Sequence[GpuPool], driver: DriverPlan) -> bool:
    """The operator's device-plugin ConfigMap is set (some pool is shared through the operator), which adds
    the ``config-manager`` sidecar to the device plugin, GFD and MPS daemon pods."""
    return any(device_plugin_config_key(p) for p in device_plugin_pools(pools, driver))


@dataclass(frozen=True)
class OperandLayout:
    """Where the operator's per-pool operands run, decided once for every pool of the cluster (so a reader
    of many pools' requests does not rescan every pool for each one)."""

    config_set: bool
    """``device_plugin_config_set``: the device plugin, GFD and MPS daemon pods carry a sidecar."""
    device_plugin: frozenset[str]
    """Names of the ``device_plugin_pools``."""
    mig_manager: frozenset[str]
    """Names of the ``mig_manager_pools``."""


def operand_layout(pools: Sequence[GpuPool], driver: DriverPlan) -> OperandLayout:
    served = device_plugin_pools(pools, driver)
    return OperandLayout(
        any(device_plugin_config_key(p) for p in served),
        frozenset(p.name for p in served),
        frozenset(p.name for p in mig_manager_pools(pools, driver)),
    )


def gpu_node_pods(
    pool: GpuPool, pools: Sequence[GpuPool], facts: GpuOperatorFacts, layout: OperandLayout | None = None
) -> dict[str, Requests]:
    """The library's DaemonSet pods on one node of ``pool`` (``pools``: every GPU pool of the cluster), by
    name, with their effective requests; ``layout``: ``operand_layout(pools, facts.driver)``, if known."""
    driver = facts.driver
    table = GPU_NODE_DAEMONSET_REQUESTS
    layout = layout or operand_layout(pools, driver)
    containers = 2 if layout.config_set else 1
    pods: dict[str, Requests] = {}
    if driver.driver == "operator":
        pods["driver"] = table["driver"]
    if driver.toolkit == "operator":
        pods["toolkit"] = table["toolkit"]
    if pool.name in layout.device_plugin:
        pods["devicePlugin"] = table["devicePlugin"] * containers
        if pool.sharing.mode == "mps" and pool.sharing.managed_by == "operator":
            pods["mpsControlDaemon"] = table["devicePlugin"] * containers
    pods["gfd"] = table["gfd"] * containers
    if facts.dcgm_exporter:
        pods["dcgmExporter"] = table["dcgmExporter"]
    if pool.name in layout.mig_manager:
        pods["migManager"] = table["migManager"]
    pods["validator"] = table["validator"]
    pods["nfdWorker"] = NFD_WORKER_REQUESTS
    if driver.cloud_installer and (installer := profile_of(pool.cloud).driver_installer(pool)) is not None:
        pods["cloudDriverInstaller"] = driver_installer_requests(installer)
    return pods


def dra_kubelet_plugin_containers(compute_domains: bool) -> tuple[str, ...]:
    """The kubelet plugin's containers that run: ``gpus`` always (the library turns GPU resources on),
    ``computeDomains`` only with ComputeDomains (templates/kubeletplugin.yaml, chart v0.4.1)."""
    return ("computeDomains", "gpus") if compute_domains else ("gpus",)


def gpu_node_requests(
    pool: GpuPool,
    pools: Sequence[GpuPool],
    facts: GpuOperatorFacts | None,
    dra_compute_domains: bool = False,
    layout: OperandLayout | None = None,
    gpu_health_checks: bool = False,
) -> Requests:
    """Everything the library's DaemonSets request on one node of ``pool``: the GPU Operator's pods (none
    without the operator), the EFA device plugin on EFA pools, Google's GPUDirect DaemonSets on GPUDirect
    pools, the DRA kubelet plugin's running containers on DRA pools and the GPU health checks' two containers
    on every GPU node."""
    extra = EFA_DEVICE_PLUGIN_REQUESTS if pool.efa else Requests()
    for name in gpudirect_daemonsets(pool):
        extra = extra + GPUDIRECT_DAEMONSET_REQUESTS[name]
    if gpu_health_checks:
        extra = extra + GPU_HEALTH_DETECTOR_REQUESTS + GPU_HEALTH_REMEDY_REQUESTS
    if facts is not None and startup_taints(pool):  # the GPU Operator component creates the remover
        extra = extra + STARTUP_TAINT_REMOVER_REQUESTS
    if pool.dra:
        for name in dra_kubelet_plugin_containers(dra_compute_domains):
            extra = extra + DRA_KUBELET_PLUGIN_REQUESTS[name]
    if facts is None:
        return extra
    return sum(gpu_node_pods(pool, pools, facts, layout).values(), extra)


def cpu_node_requests(facts: GpuOperatorFacts | None) -> Requests:
    """What the library's DaemonSets request on a CPU (system) node: the GPU Operator's NFD worker."""
    return NFD_WORKER_REQUESTS if facts is not None else Requests()


def __getattr__(name: str) -> object:
    """``gke_driver_installer_requests`` is ``driver_installer_requests`` now (``gpu_platform._moved``)."""
    from gpu_platform._moved import moved_attribute

    return moved_attribute(__name__, name)
