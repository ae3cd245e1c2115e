"""The GPU alerting and recording rules, and the DCGM exporter metrics they need: one definition, rendered
as a ``PrometheusRule`` (Prometheus Operator), as GMP ``ClusterRules`` (GKE managed Prometheus), as a Prometheus
rule file (Amazon Managed Service for Prometheus) or as Azure Prometheus rule groups (Azure Monitor).

Metric names are the DCGM exporter's (its default counters plus ``DCGM_EXTRA_FIELDS``, switched on in the
CSV the GPU Operator is given), kube-state-metrics 2.20's and Kueue 0.19's; tests parse every expression
with a PromQL parser and check every metric against the vendored upstream lists. Node labels reach
kube-state-metrics through its label allowlist (``KSM_NODE_LABELS``), pod labels likewise.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from typing import Any

import yaml

from gpu_platform import scheduling, sharing, versions
from gpu_platform.pools import GPU_UNHEALTHY_TAINT

DCGM_EXTRA_FIELDS: tuple[str, ...] = (
    "DCGM_FI_DEV_ECC_DBE_VOL_TOTAL",
    "DCGM_FI_DEV_ECC_DBE_AGG_TOTAL",
    "DCGM_FI_DEV_POWER_VIOLATION",
    "DCGM_FI_DEV_THERMAL_VIOLATION",
    "DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL",
    "DCGM_FI_DEV_NVLINK_CRC_DATA_ERROR_COUNT_TOTAL",
    "DCGM_FI_DEV_NVLINK_REPLAY_ERROR_COUNT_TOTAL",
    "DCGM_FI_DEV_NVLINK_RECOVERY_ERROR_COUNT_TOTAL",
    "DCGM_EXP_XID_ERRORS_COUNT",
)
"""Fields the exporter's default CSV lists but leaves commented out: the ECC, throttling, NVLink and Xid alerts
need them. Profiling fields stay as upstream has them (they cost DCGM profiling sessions)."""

DCGM_METRICS_CONFIG_MAP = "gpu-platform-dcgm-metrics"
"""ConfigMap the GPU Operator chart creates from ``dcgmExporter.config.data`` (key ``DCGM_METRICS_KEY``)."""
DCGM_METRICS_KEY = "dcgm-metrics.csv"
"""The key the chart writes the counters under and the operator mounts into the exporter
(``/etc/dcgm-exporter/dcgm-metrics.csv``, ``DCGM_EXPORTER_COLLECTORS``)."""

KSM_NODE_LABELS: tuple[str, ...] = (
    scheduling.POOL_LABEL,
    scheduling.ALLOCATION_LABEL,
    "nvidia.com/gpu.present",
    "nvidia.com/gpu.product",
    "nvidia.com/mig.config.state",
)
"""Node labels kube-state-metrics exports as ``kube_node_labels{label_<sanitized>=...}``."""
KUEUE_QUEUE_LABEL = "kueue.x-k8s.io/queue-name"
KSM_POD_LABELS: tuple[str, ...] = (KUEUE_QUEUE_LABEL,)
"""Pod labels kube-state-metrics exports: the LocalQueue a pod was admitted through (its team)."""

CRITICAL_XIDS: tuple[int, ...] = (48, 63, 64, 74, 79, 92, 94, 95, 119, 120, 140)
"""Xids NVIDIA's GPU debug guidelines say need the GPU reset or the node drained: double-bit ECC (48),
row-remapping events (63, 64), NVLink error (74), GPU fallen off the bus (79), high single-bit ECC rate (92),
contained / uncontained ECC (94, 95), GSP errors (119, 120), unrecovered ECC (140). Others (13, 31, 43, 45 ...)
are usually the application's own fault."""
XID_WINDOW_MINUTES = 5
"""``DCGM_EXP_XID_ERRORS_COUNT{xid}`` counts each Xid over the exporter's window (``--xid-count-window-size``,
default 5 minutes: NVIDIA/dcgm-exporter ``pkg/cmd/app.go``), so an Xid alert clears once the window has no
new one. ``DCGM_FI_DEV_XID_ERRORS`` is the last Xid seen and stays until the exporter restarts
(NVIDIA/dcgm-exporter#500, NVIDIA/DCGM#277): alerts on it never clear and a later benign Xid hides a critical one."""

GPU_RESOURCES = "nvidia_com_gpu|nvidia_com_gpu_shared|nvidia_com_mig_.+"
"""kube-state-metrics' names for whole GPUs, shared replicas renamed by the device plugin (``renameByDefault``:
``nvidia.com/gpu.shared``) and MIG slices (``nvidia.com/gpu`` -> ``nvidia_com_gpu``)."""


def ksm_label(label: str) -> str:
    """kube-state-metrics' label name for a Kubernetes label (every non-alphanumeric byte -> ``_``)."""
    return "label_" + ksm_resource(label)


def ksm_resource(resource: str) -> str:
    """kube-state-metrics' ``resource`` label value for a resource name (``nvidia.com/gpu`` -> ``nvidia_com_gpu``)."""
    return "".join(c if c.isalnum() else "_" for c in resource)


VGPU = ksm_resource(sharing.VGPU_RESOURCE)
"""Isolated pools' count resource as kube-state-metrics names it (``nvidia_com_vgpu``): one share of a card."""
GPU_MEMORY = ksm_resource(sharing.GPU_MEMORY_RESOURCE)
GPU_CORES = ksm_resource(sharing.GPU_CORES_RESOURCE)
GPU_MEMORY_PERCENTAGE = ksm_resource("nvidia.com/gpumem-percentage")
"""HAMi's per-unit requests: MiB of the card, percent of its compute, and percent of its memory (the chart's
default ``resourceMemPercentage``, Project-HAMi/HAMi v2.10.0 ``charts/hami/values.yaml``)."""


@dataclass(frozen=True)
class Rule:
    name: str
    """Alert name, or the recorded series for a recording rule."""
    expr: str
    record: bool = False
    for_: str | None = None
    severity: str = "warning"
    summary: str = ""
    description: str = ""

    def as_object(self) -> dict[str, Any]:
        """One rule of a Prometheus rule group (the same shape in ``PrometheusRule`` and GMP ``ClusterRules``)."""
        if self.record:
            return {"record": self.name, "expr": self.expr}
        out: dict[str, Any] = {"alert": self.name, "expr": self.expr}
        if self.for_:
            out["for"] = self.for_
        out["labels"] = {"severity": self.severity}
        out["annotations"] = {"summary": self.summary, "description": self.description}
        return out


@dataclass(frozen=True)
class RuleGroup:
    name: str
    rules: tuple[Rule, ...]
    interval: str | None = None
    needs_cluster_metrics: bool = False
    """Names kube-state-metrics or Kueue series (not scraped by the GKE managed path's DCGM PodMonitoring)."""

    def as_object(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name}
        if self.interval:
            out["interval"] = self.interval
        out["rules"] = [r.as_object() for r in self.rules]
        return out


_CRITICAL_XID_RE = "|".join(str(x) for x in CRITICAL_XIDS)
_POOL = ksm_label(scheduling.POOL_LABEL)
_ALLOCATION = ksm_label(scheduling.ALLOCATION_LABEL)
_MIG_STATE = ksm_label("nvidia.com/mig.config.state")
_QUEUE = ksm_label(KUEUE_QUEUE_LABEL)
_RUNNING = 'max by (namespace, pod) (kube_pod_status_phase{phase="Running"}) == 1'


def _gpu_error_rules() -> tuple[Rule, ...]:
    """Xid, ECC and row-remap alerts: GPU faults that need a reset, a drain or a replacement."""
    return (
        Rule(
            "GpuXidCritical",
            f'max by (node, gpu, UUID, xid) (DCGM_EXP_XID_ERRORS_COUNT{{xid=~"{_CRITICAL_XID_RE}"}}) > 0',
            severity="critical",
            summary="GPU {{ $labels.gpu }} on {{ $labels.node }} reported Xid {{ $labels.xid }}",
            description="An Xid that needs the GPU reset or the node drained (NVIDIA Xid catalog), in the last "
            f"{XID_WINDOW_MINUTES} minutes; the node's health checks and the cloud's auto-repair act on it "
            "(docs/observability.md).",
        ),
        Rule(
            "GpuXidError",
            f'max by (node, gpu, UUID, xid) (DCGM_EXP_XID_ERRORS_COUNT{{xid!~"{_CRITICAL_XID_RE}"}}) > 0',
            severity="warning",
            summary="GPU {{ $labels.gpu }} on {{ $labels.node }} reported Xid {{ $labels.xid }}",
            description=f"An Xid in the last {XID_WINDOW_MINUTES} minutes that is usually the application's "
            "(13, 31, 43, 45); look it up in NVIDIA's Xid catalog.",
        ),
        Rule(
            "GpuDoubleBitEccErrors",
            "max by (node, gpu, UUID) (increase(DCGM_FI_DEV_ECC_DBE_VOL_TOTAL[10m])) > 0",
            severity="critical",
            summary="Double-bit ECC errors on GPU {{ $labels.gpu }} on {{ $labels.node }}",
            description="Uncorrectable memory errors: jobs on this GPU fail; drain the node and reset the GPU.",
        ),
        Rule(
            "GpuRowRemapFailure",
            "max by (node, gpu, UUID) (DCGM_FI_DEV_ROW_REMAP_FAILURE) > 0",
            severity="critical",
            summary="Row remapping failed on GPU {{ $labels.gpu }} on {{ $labels.node }}",
            description="The GPU has no spare rows left: it needs replacing (NVIDIA row-remapping guide).",
        ),
        Rule(
            "GpuUncorrectableRowsRemapped",
            "max by (node, gpu, UUID) (increase(DCGM_FI_DEV_UNCORRECTABLE_REMAPPED_ROWS[1h])) > 0",
            severity="warning",
            summary="GPU {{ $labels.gpu }} on {{ $labels.node }} remapped rows after uncorrectable errors",
            description="A remap is pending until the GPU is reset: drain the node and reset the GPU.",
        ),
    )


def _gpu_throttling_rules() -> tuple[Rule, ...]:
    """Thermal, power and NVLink alerts: GPUs that work but slow jobs down."""
    return (
        Rule(
            "GpuThermalThrottling",
            "max by (node, gpu, UUID) (rate(DCGM_FI_DEV_THERMAL_VIOLATION[5m])) / 1e9 > 0.1",
            for_="10m",
            summary="GPU {{ $labels.gpu }} on {{ $labels.node }} thermally throttled {{ $value | humanizePercentage }} of the time",
            description="Clocks are held down by temperature (cooling, airflow or a failing fan).",
        ),
        Rule(
            "GpuPowerThrottling",
            "max by (node, gpu, UUID) (rate(DCGM_FI_DEV_POWER_VIOLATION[5m])) / 1e9 > 0.2",
            for_="15m",
            # NVML's clocks-event reason for it says the clocks "have been optimized to ensure not to exceed
            # currently set power limits" (NVML API reference, nvmlClocksEventReasonSwPowerCap): expected on a GPU
            # busy with training, so it informs (capacity planning, a lowered power limit), never pages.
            severity="info",
            summary="GPU {{ $labels.gpu }} on {{ $labels.node }} power throttled {{ $value | humanizePercentage }} of the time",
            description="Clocks are held down by the power limit: normal under sustained full load; worth a look when "
            "the limit was lowered (nvidia-smi -pl) or the GPU is not busy.",
        ),
        Rule(
            "GpuNvlinkErrors",
            "max by (node, gpu, UUID) ("
            "increase(DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL[10m])"
            " + increase(DCGM_FI_DEV_NVLINK_CRC_DATA_ERROR_COUNT_TOTAL[10m])"
            " + increase(DCGM_FI_DEV_NVLINK_REPLAY_ERROR_COUNT_TOTAL[10m])"
            " + increase(DCGM_FI_DEV_NVLINK_RECOVERY_ERROR_COUNT_TOTAL[10m])"
            ") > 0",
            for_="10m",
            summary="NVLink errors on GPU {{ $labels.gpu }} on {{ $labels.node }}",
            description="CRC, replay or recovery errors on NVLink: multi-GPU jobs slow down or hang.",
        ),
    )


def gpu_health_group() -> RuleGroup:
    """Hardware health from the DCGM exporter: every alert names the node (``node`` relabelled on scrape)."""
    return RuleGroup("gpu-platform.gpu-health", (*_gpu_error_rules(), *_gpu_throttling_rules()))


def gpu_node_group(gpu_operator_namespace: str, isolated: bool = False) -> RuleGroup:
    """Nodes of GPU pools from kube-state-metrics: no GPUs advertised, MIG stuck, validator failing; with
    ``isolated`` pools, HAMi's ``nvidia.com/vgpu`` counts as advertised GPUs too."""
    resources_ = f"{GPU_RESOURCES}|{VGPU}" if isolated else GPU_RESOURCES
    advertised = f'sum by (node) (kube_node_status_allocatable{{resource=~"{resources_}"}}) > 0'
    return RuleGroup(
        "gpu-platform.gpu-nodes",
        (
            Rule(
                "GpuNodeAdvertisesNoGpus",
                f'max by (node, {_POOL}) (kube_node_labels{{{_POOL}!="", {_ALLOCATION}!="dra"}}) '
                f"unless on (node) ({advertised})",
                for_="15m",
                severity="critical",
                summary="GPU node {{ $labels.node }} of pool {{ $labels." + _POOL + " }} advertises no GPUs",
                description="The device plugin reports no nvidia.com/gpu or MIG resources"
                + (" (nor HAMi's nvidia.com/vgpu)" if isolated else "")
                + ": driver, toolkit or device plugin failed (see the GPU Operator's pods on the node). DRA pools "
                "are excluded.",
            ),
            Rule(
                "GpuMigConfigFailed",
                f'max by (node) (kube_node_labels{{{_MIG_STATE}="failed"}}) == 1',
                for_="5m",
                severity="critical",
                summary="MIG reconfiguration failed on {{ $labels.node }}",
                description="nvidia.com/mig.config.state=failed: the MIG manager could not apply the layout "
                "(GPU in use, or a reboot needed); the node's MIG resources are not what its pool promises.",
            ),
            Rule(
                "GpuOperatorValidatorFailing",
                f'max by (namespace, pod) (kube_pod_status_ready{{namespace="{gpu_operator_namespace}", '
                f'pod=~"nvidia-operator-validator-.+", condition="false"}}) == 1',
                for_="15m",
                severity="critical",
                summary="GPU Operator validator {{ $labels.pod }} not ready",
                description="The driver, toolkit, CUDA or device-plugin validation on that node failed: GPU pods "
                "there will not start.",
            ),
            Rule(
                "GpuNodeTakenOutOfService",
                f'max by (node, value) (kube_node_spec_taint{{key="{GPU_UNHEALTHY_TAINT.key}"}}) == 1',
                severity="warning",
                summary="GPU node {{ $labels.node }} taken out of service ({{ $labels.value }})",
                description="The GPU health checks tainted the node after a critical Xid: nothing new lands "
                "there. Drain it once its jobs finished, then replace it or reset the GPU and remove the taint "
                "(docs/observability.md).",
            ),
        ),
        needs_cluster_metrics=True,
    )


def gpu_queue_group() -> RuleGroup:
    """GPUs left idle while Kueue holds work back, and reserved GPUs doing nothing."""
    free_gpus = (
        f'sum(kube_node_status_allocatable{{resource=~"{GPU_RESOURCES}"}}) - sum('
        f'kube_pod_container_resource_requests{{resource=~"{GPU_RESOURCES}"}} '
        f'* on (namespace, pod) group_left () (max by (namespace, pod) (kube_pod_status_phase{{phase=~"Pending|Running"}}) == 1))'
    )
    return RuleGroup(
        "gpu-platform.gpu-queues",
        (
            Rule(
                "GpusIdleWhileQueueWaits",
                f'sum by (cluster_queue) (kueue_pending_workloads{{status="active"}}) > 0 and on () (({free_gpus}) > 0)',
                for_="30m",
                summary="ClusterQueue {{ $labels.cluster_queue }} has workloads waiting while GPUs are free",
                description="Quota, flavor or topology keeps admitted work off free GPUs: check the queue's "
                "nominal quota and borrowing limits against the pools (kubectl describe clusterqueue).",
            ),
            Rule(
                "GpuAllocatedButIdle",
                'max by (namespace, pod, node) (max_over_time(DCGM_FI_DEV_GPU_UTIL{namespace!=""}[1h])) == 0',
                for_="1h",
                severity="info",
                summary="{{ $labels.namespace }}/{{ $labels.pod }} holds a GPU it has not used for 2 hours",
                description="A reserved GPU at 0% utilisation: an idle notebook or a stuck job.",
            ),
        ),
        needs_cluster_metrics=True,
    )


def pool_table(values: Mapping[str, str]) -> str:
    """A constant per pool (pool -> PromQL number), one series each labelled with the pool label."""
    return " or ".join(
        f'label_replace(vector({value}), "{_POOL}", "{pool}", "", "")'
        for pool, value in sorted(values.items())
    )


_POD_POOL = (
    f"max by (namespace, pod, {_POOL}) (kube_pod_info * on (node) group_left ({_POOL}) "
    f'max by (node, {_POOL}) (kube_node_labels{{{_POOL}!=""}}))'
)
"""1 per pod with its node's pool: pod -> node (``kube_pod_info``) -> pool (the node's pool label)."""


def _share_rules(shares: Mapping[str, int]) -> tuple[Rule, ...]:
    """``gpu_platform:pod_gpu_share:ratio``: the GPU fraction one requested unit is on a pod's pool (``1/replicas`` on a
    time-sliced or MPS pool), joined pod -> node (``kube_pod_info``) -> pool (the node's pool label)."""
    if not shares:
        return ()
    table = pool_table({pool: f"{1 / replicas:g}" for pool, replicas in shares.items()})
    return (
        Rule(
            "gpu_platform:pod_gpu_share:ratio",
            f"{_POD_POOL} * on ({_POOL}) group_left () ({table})",
            record=True,
        ),
    )


def _container_requests(resource: str) -> str:
    return (
        f'sum by (namespace, pod, container) (kube_pod_container_resource_requests{{resource="{resource}"}})'
    )


def _isolated_rules(isolated: Mapping[str, int]) -> tuple[Rule, ...]:
    """Isolated (HAMi) pools, ``isolated``: pool -> one card's memory in MiB (the catalog's, as the pool's Kueue
    quota counts it). ``gpu_platform:pod_card_memory:mib`` is that per running pod on such a pool;
    ``gpu_platform:container_vgpu_share:ratio`` the fraction of a card one ``nvidia.com/vgpu`` unit of a container
    is: its ``nvidia.com/gpumem`` over the card's memory (else ``nvidia.com/gpumem-percentage`` / 100, else the
    whole card, which is what HAMi gives a unit without a memory request: Project-HAMi/HAMi v2.10.0
    ``pkg/device/nvidia/device.go``, ``GenerateResourceRequests``), or its ``nvidia.com/gpucores`` / 100 when that
    is larger (a compute share blocks that much of the card)."""
    if not isolated:
        return ()
    table = pool_table({pool: str(mib) for pool, mib in isolated.items()})
    memory = (
        f"{_container_requests(GPU_MEMORY)} / on (namespace, pod) group_left () "
        "max by (namespace, pod) (gpu_platform:pod_card_memory:mib)"
    )
    percentage = f"{_container_requests(GPU_MEMORY_PERCENTAGE)} / 100 unless on (namespace, pod, container) ({_container_requests(GPU_MEMORY)})"
    cores = f"{_container_requests(GPU_CORES)} / 100"
    whole = (
        f"{_container_requests(VGPU)} * 0 + 1 unless on (namespace, pod, container) "
        f'(kube_pod_container_resource_requests{{resource=~"{GPU_MEMORY}|{GPU_MEMORY_PERCENTAGE}"}})'
    )
    parts = " or ".join(
        f'label_replace(({expr}), "share", "{name}", "", "")'
        for name, expr in (
            ("memory", memory),
            ("memory-percentage", percentage),
            ("cores", cores),
            ("card", whole),
        )
    )
    return (
        Rule(
            "gpu_platform:pod_card_memory:mib",
            f"{_POD_POOL} * on ({_POOL}) group_left () ({table})",
            record=True,
        ),
        Rule(
            "gpu_platform:container_vgpu_share:ratio",
            f"max by (namespace, pod, container) ({parts})",
            record=True,
        ),
    )


def _requests_rule(shares: Mapping[str, int], isolated: bool = False) -> Rule:
    """Requests of running pods in GPUs: a shared pool's replica counts ``1/replicas`` of a GPU, and with
    ``isolated`` pools an ``nvidia.com/vgpu`` unit its share of a card (``gpu_platform:container_vgpu_share:ratio``),
    as ``resource="nvidia_com_vgpu"``."""
    running = (
        f'sum by (namespace, pod, resource) (kube_pod_container_resource_requests{{resource=~"{GPU_RESOURCES}"}}) '
        f"* on (namespace, pod) group_left () ({_RUNNING})"
    )
    if shares:
        running = (
            f"({running}) * on (namespace, pod) group_left () max by (namespace, pod) (gpu_platform:pod_gpu_share:ratio) "
            f"or ({running})"
        )
    if isolated:
        cards = (
            f"label_replace(sum by (namespace, pod) ({_container_requests(VGPU)} * on (namespace, pod, container) "
            f'gpu_platform:container_vgpu_share:ratio), "resource", "{VGPU}", "", "")'
        )
        running = f"({running}) or ({cards} * on (namespace, pod) group_left () ({_RUNNING}))"
    return Rule("gpu_platform:pod_gpu_requests:running", running, record=True)


def _dra_rules(dra: bool) -> tuple[Rule, ...]:
    """GPUs held through DRA ResourceClaims, which no container request shows: the GPUs the DCGM exporter
    attributes to each running pod (``KUBERNETES_ENABLE_DRA``), as resource ``dra_gpu``."""
    if not dra:
        return ()
    held = (
        'label_replace(count by (namespace, pod) (DCGM_FI_DEV_GPU_UTIL{pod!="", namespace!=""}), '
        '"resource", "dra_gpu", "", "")'
    )
    return (
        Rule(
            "gpu_platform:pod_dra_gpus:running",
            f"{held} * on (namespace, pod) group_left () ({_RUNNING}) * on (namespace, pod) group_left () "
            f'max by (namespace, pod) (kube_pod_info * on (node) group_left () max by (node) (kube_node_labels{{{_ALLOCATION}="dra"}}))',
            record=True,
        ),
    )


def gpu_accounting_group(
    shares: Mapping[str, int] | None = None, dra: bool = False, isolated: Mapping[str, int] | None = None
) -> RuleGroup:
    """GPU hours per team: requests of running pods (kube-state-metrics) by namespace and Kueue LocalQueue, in
    GPUs (a time-sliced or MPS replica is ``1/replicas``: ``shares``, pool -> replicas; an isolated share its
    memory's fraction of the card: ``isolated``, pool -> card MiB), plus the GPUs DRA claims hold (``dra``: the
    DCGM exporter's pod attribution), what DCGM saw them use, and what Kueue holds pending.
    Summing ``gpu_platform:team_gpu_hours:1h`` over hourly steps (or
    ``sum_over_time(gpu_platform:team_gpu_requests:running[30d]) / 60``) is the bill."""
    shares = shares or {}
    isolated = isolated or {}
    source = "gpu_platform:pod_gpu_requests:running"
    if dra:
        source = f"({source} or gpu_platform:pod_dra_gpus:running)"
    return RuleGroup(
        "gpu-platform.gpu-accounting",
        (
            *_share_rules(shares),
            *_isolated_rules(isolated),
            _requests_rule(shares, bool(isolated)),
            *_dra_rules(dra),
            Rule(
                "gpu_platform:team_gpu_requests:running",
                "sum by (namespace, queue, resource) (label_replace("
                f"{source} * on (namespace, pod) group_left "
                f"({_QUEUE}) max by (namespace, pod, {_QUEUE}) (kube_pod_labels), "
                f'"queue", "$1", "{_QUEUE}", "(.*)"))',
                record=True,
            ),
            Rule(
                "gpu_platform:team_gpu_hours:1h",
                "sum_over_time(gpu_platform:team_gpu_requests:running[1h:1m]) / 60",
                record=True,
            ),
            Rule(
                "gpu_platform:team_gpu_utilization:avg",
                'avg by (namespace) (DCGM_FI_DEV_GPU_UTIL{namespace!=""}) / 100',
                record=True,
            ),
            Rule(
                "gpu_platform:cluster_queue_pending_workloads:sum",
                'sum by (cluster_queue) (kueue_pending_workloads{status="active"})',
                record=True,
            ),
        ),
        interval="1m",
        needs_cluster_metrics=True,
    )


def rule_groups(
    gpu_operator_namespace: str,
    shares: Mapping[str, int] | None = None,
    dra: bool = False,
    isolated: Mapping[str, int] | None = None,
) -> tuple[RuleGroup, ...]:
    """Every group; ``shares`` (pool -> replicas of its time-sliced or MPS GPUs), ``dra`` (some pool allocates
    through DRA) and ``isolated`` (pool -> card MiB of its HAMi-isolated GPUs) make GPU hours count what the pools
    really hand out."""
    return (
        gpu_health_group(),
        gpu_node_group(gpu_operator_namespace, bool(isolated)),
        gpu_queue_group(),
        gpu_accounting_group(shares, dra, isolated),
    )


def rule_file(groups: Sequence[RuleGroup]) -> str:
    """The groups as a Prometheus rule file (``groups:`` YAML), what Amazon Managed Service for Prometheus takes
    as a rule group namespace's data."""
    return yaml.safe_dump({"groups": [g.as_object() for g in groups]}, sort_keys=False, width=1000)


def dcgm_default_counters() -> str:
    """The exporter's own default counters CSV, byte for byte (``versions.DCGM_EXPORTER_DEFAULT_COUNTERS``)."""
    return (
        resources.files("gpu_platform")
        .joinpath("data", versions.DCGM_EXPORTER_DEFAULT_COUNTERS.file)
        .read_text()
    )


def dcgm_metrics_csv(extra: Sequence[str] = DCGM_EXTRA_FIELDS) -> str:
    """The default counters with ``extra`` switched on: each is a commented-out line of the upstream file
    (uncommented here), so every field the rules name is one the exporter documents."""
    lines = dcgm_default_counters().splitlines()
    wanted = set(extra)
    out = []
    for line in lines:
        body = line.lstrip("#").strip()
        field = body.split(",", 1)[0].strip()
        if line.startswith("#") and field in wanted and "," in body:
            out.append(body)
            wanted.discard(field)
        else:
            out.append(line)
    if wanted:
        raise ValueError(f"not in the exporter's default counters: {', '.join(sorted(wanted))}")
    return "\n".join(out) + "\n"


def exported_dcgm_fields(csv: str) -> frozenset[str]:
    """The fields a counters CSV switches on (uncommented lines)."""
    return frozenset(
        line.split(",", 1)[0].strip()
        for line in csv.splitlines()
        if line.strip() and not line.lstrip().startswith("#") and "," in line
    )
