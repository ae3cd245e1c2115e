"""``--smoke`` across nodes: an NCCL all-reduce between two nodes of each multi-node pool, planned as manifests from
the expectation (the pool's selector, tolerations, GPUs and fabric; the queue's flavor and quota).

Where the CUDA sample proves one GPU, this proves what a distributed training job needs beyond it: Kueue admitting
a two-pod gang as one workload, the scheduler placing it on two nodes of the pool, pod DNS for the rendezvous, and
NCCL moving data between the nodes over the pool's fabric (EFA, InfiniBand, GPUDirect) rather than TCP.

What runs: an Indexed ``batch/v1`` Job of 2 pods (Kueue admits a Job's pods together: one Workload whose pod set
counts ``parallelism``; kubernetes-sigs/kueue v0.19.2 ``pkg/controller/jobs/job/job_controller.go``), each pod
every GPU of one node, and a headless Service of the Job's name: an Indexed Job's pod has the hostname
``<job>-<index>`` and, with ``subdomain`` set to the Service, the DNS name ``<job>-<index>.<job>`` (kubernetes
v1.33 ``pkg/controller/job/job_controller.go``, ``manageJob``; "Job with pod-to-pod communication" in the Kubernetes
documentation). ``torchrun`` (PyTorch's launcher, ``versions.NCCL_SMOKE_IMAGE``) starts a rank per GPU with pod 0 as
the rendezvous, and a small ``torch.distributed`` program checks one all-reduce's sum, then times 20 all-reduces of
1 GiB and prints the bus bandwidth as NVIDIA/nccl-tests reports it (``doc/PERFORMANCE.md``: ``busbw = algbw *
2(n-1)/n``). It needs no MPI and no SSH between the pods, so nothing but Kubernetes and Kueue.

Pools whose ``nvidia.com/gpu`` are not whole GPUs (time-slicing or MPS replicas, MIG slices, HAMi fractions, DRA),
pools of at most one node, and pools no queue gives two nodes' worth of quota get no Job (a warning).
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from gpu_platform.plans.mirror import mirrored_object
from gpu_platform.policy_model.kube import parse_quantity
from gpu_platform.scheduling import POOL_LABEL
from gpu_platform.sharing import (
    EFA_RESOURCE,
    GPU_RESOURCE,
    HUGEPAGES_2MI_RESOURCE,
    MEBIBYTE_RESOURCES,
    RDMA_SHARED_IB_RESOURCE,
)
from gpu_platform.verify.expected import Expected, ExpectedLocalQueue, ExpectedPool
from gpu_platform.verify.finding import SMOKE, Finding, error, warning
from gpu_platform.verify.smoke import MANAGED_BY, QUEUE_LABEL

NODES = 2
PORT = 29500
"""torchrun's default rendezvous port (``--master-port``), on pod 0."""
DEADLINE_SECONDS = 1800
"""How long the Job may run once admitted (``activeDeadlineSeconds``): the NGC image is large, its first pull on a
node takes minutes."""
MESSAGE_BYTES = 1 << 30
"""1 GiB per all-reduce: large enough that the time measures bandwidth, not latency (nccl-tests ``doc/PERFORMANCE.md``)."""
ITERATIONS = 20
JOB_NAME_LABEL = "batch.kubernetes.io/job-name"
"""The label the Job controller puts on its pods (kubernetes v1.33 ``staging/src/k8s.io/api/batch/v1/types.go``,
``JobNameLabel``)."""
HOSTNAME_LABEL = "kubernetes.io/hostname"
RESULT_PREFIX = "nccl-smoke:"
SOCKET_NETWORK = "Socket"
"""What NCCL names its TCP transport in ``Using network <name>`` (NVIDIA/nccl ``src/init.cc``, printed with
``NCCL_DEBUG=INFO``): on a fabric pool, the sign that NCCL did not use the fabric."""

SCRIPT = f"""\
import os, time, torch, torch.distributed as dist
dist.init_process_group("nccl")
rank, world = dist.get_rank(), dist.get_world_size()
torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))
x = torch.ones({MESSAGE_BYTES} // 4, device="cuda")
dist.all_reduce(x)
torch.cuda.synchronize()
if x[0].item() != world:
    raise SystemExit(f"all-reduce sum is {{x[0].item()}}, expected {{world}}")
x.zero_()
for _ in range(5):
    dist.all_reduce(x)
torch.cuda.synchronize()
start = time.perf_counter()
for _ in range({ITERATIONS}):
    dist.all_reduce(x)
torch.cuda.synchronize()
seconds = (time.perf_counter() - start) / {ITERATIONS}
algbw = {MESSAGE_BYTES} / seconds / 1e9
busbw = algbw * 2 * (world - 1) / world
if rank == 0:
    print(f"{RESULT_PREFIX} ranks={{world}} bytes={MESSAGE_BYTES} time_us={{seconds * 1e6:.0f}} "
          f"algbw_GBps={{algbw:.2f}} busbw_GBps={{busbw:.2f}}", flush=True)
dist.destroy_process_group()
"""
"""The program each rank runs: one checked all-reduce, 5 warm-up ones, then ``ITERATIONS`` timed."""

_RESULT = re.compile(rf"{RESULT_PREFIX} ranks=(\d+) .*busbw_GBps=([0-9.]+)")
_NETWORK = re.compile(r"NCCL INFO Using network (.+)$", re.MULTILINE)


@dataclass(frozen=True)
class NcclJob:
    pool: str
    queue: ExpectedLocalQueue
    gpus: int
    """GPUs per pod: every GPU of a node."""
    fabric: tuple[str, ...]
    """What the pods use between the nodes besides TCP: extended resources (``vpc.amazonaws.com/efa``,
    ``rdma/shared_ib``) or the GKE GPUDirect path (``GPUDirect-TCPXO``); empty on pools without one."""
    service: dict[str, Any]
    manifest: dict[str, Any]

    @property
    def subject(self) -> str:
        return f"nccl on pool {self.pool}"

    @property
    def name(self) -> str:
        return str(self.manifest["metadata"]["name"])


@dataclass(frozen=True)
class NcclResult:
    """What rank 0 printed, and where the pods ran (read before the Job is deleted)."""

    nodes: tuple[str, ...] = ()
    busbw_gbps: float | None = None
    ranks: int | None = None
    network: str | None = None
    """NCCL's ``Using network`` (``IB``, ``Socket``, ``AWS Libfabric`` ...), when the log says."""
    unread: str | None = None
    """Why the log could not be read (the bandwidth is then unknown)."""


def whole_gpus(pool: ExpectedPool) -> int:
    """GPUs one node advertises as whole ``nvidia.com/gpu`` (0 when they are shared, sliced or claimed)."""
    return pool.allocatable.get(GPU_RESOURCE, 0) if pool.sharing == "none" else 0


def pod_resources(pool: ExpectedPool) -> dict[str, str]:
    """One pod's requests: every GPU of a node, the node's fabric as the library's own workloads ask for it
    (``examples/kueue-distributed-training``: every EFA device and 5120Mi of 2 MiB huge pages; docs/networking.md:
    ``rdma/shared_ib: 1``), one CPU and 2 GiB per GPU (torchrun's ranks, nothing heavy)."""
    gpus = whole_gpus(pool)
    out = {"cpu": str(gpus), "memory": f"{2 * gpus}Gi", GPU_RESOURCE: str(gpus)}
    for resource in (EFA_RESOURCE, HUGEPAGES_2MI_RESOURCE, RDMA_SHARED_IB_RESOURCE):
        if resource not in pool.allocatable:
            continue
        if resource == RDMA_SHARED_IB_RESOURCE:
            out[resource] = "1"  # the shared plugin hands every HCA of the node to each pod that asks for one
        else:
            unit = "Mi" if resource in MEBIBYTE_RESOURCES else ""
            out[resource] = f"{pool.allocatable[resource]}{unit}"
    return out


def _covers(expected: Expected, pool: ExpectedPool, cluster_queue: str, need: Mapping[str, Decimal]) -> bool:
    """The ClusterQueue's nominal quota on one of the pool's flavors covers every resource of ``need``."""
    flavors = {f.name for f in expected.flavors if f.node_labels.get(POOL_LABEL) == pool.name}
    queue = next((q for q in expected.cluster_queues if q.name == cluster_queue), None)
    if queue is None:
        return False
    for flavor in flavors:
        quotas = {r: parse_quantity(v) or 0 for (f, r), v in queue.quotas.items() if f == flavor}
        if all(r in quotas and quotas[r] >= amount for r, amount in need.items()):
            return True
    return False


def gang_queue(
    expected: Expected, pool: ExpectedPool, per_pod: Mapping[str, str]
) -> ExpectedLocalQueue | None:
    """A LocalQueue whose ClusterQueue's nominal quota on the pool's flavor covers ``NODES`` pods of ``per_pod``
    (Kueue admits the gang whole or not at all; borrowing from a cohort is not counted on)."""
    need = {r: (parse_quantity(q) or Decimal(0)) * NODES for r, q in per_pod.items()}
    return next((lq for lq in expected.local_queues if _covers(expected, pool, lq.cluster_queue, need)), None)


def job_name(pool: str, suffix: str) -> str:
    """``gpu-platform-nccl-<pool>-<suffix>``, short enough that ``<name>-<index>`` is a valid hostname (63)."""
    return f"gpu-platform-nccl-{pool}"[:52].rstrip("-") + f"-{suffix}"


def headless_service(name: str, namespace: str) -> dict[str, Any]:
    """The Service that gives each pod the DNS name ``<job>-<index>.<job>``: headless, and publishing pods before
    they are ready (they have no readiness probe to pass before the rendezvous)."""
    return {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": name, "namespace": namespace, "labels": dict(MANAGED_BY)},
        "spec": {
            "clusterIP": "None",
            "publishNotReadyAddresses": True,
            "selector": {JOB_NAME_LABEL: name},
            "ports": [{"name": "rendezvous", "port": PORT}],
        },
    }


def _fabric_env(pool: ExpectedPool) -> list[dict[str, str]]:
    if EFA_RESOURCE in pool.allocatable:  # as examples/kueue-distributed-training runs NCCL over EFA
        return [{"name": "FI_PROVIDER", "value": "efa"}, {"name": "FI_EFA_USE_DEVICE_RDMA", "value": "1"}]
    if RDMA_SHARED_IB_RESOURCE in pool.allocatable:  # docs/networking.md (Azure/aks-rdma-infiniband)
        return [{"name": "NCCL_IB_DISABLE", "value": "0"}, {"name": "NCCL_NET_GDR_LEVEL", "value": "SYS"}]
    return []


def _gpudirect(expected: Expected, pool: ExpectedPool) -> dict[str, Any]:
    """GKE GPUDirect: what Google's NCCL test pods carry (``clouds.gke.gpudirect_plan.pod_requirements``), its
    daemons as native sidecars (init containers that keep running: Kubernetes 1.33 "Sidecar containers") so the
    Job completes when the ranks do."""
    if pool.gpudirect is None:
        return {
            "annotations": {},
            "volumes": [],
            "sidecars": [],
            "env": [],
            "volumeMounts": [],
            "command": "",
        }
    from gpu_platform.clouds.gke.gpudirect_plan import pod_requirements

    needs = pod_requirements(pool.gpudirect)
    sidecars = [{**c, "restartPolicy": "Always"} for c in needs["sidecars"]]
    needs["sidecars"] = mirrored_object({"containers": sidecars}, expected.mirror)["containers"]
    return needs


def _command(name: str, gpus: int, setup: str) -> str:
    launch = (
        f"exec torchrun --nnodes={NODES} --nproc-per-node={gpus} --node-rank=$JOB_COMPLETION_INDEX "
        f"--master-addr={name}-0.{name} --master-port={PORT} /tmp/nccl_allreduce.py"
    )
    lines = [
        "set -e",
        *([setup] if setup else []),
        "cat > /tmp/nccl_allreduce.py <<'EOF'",
        SCRIPT + "EOF",
        launch,
    ]
    return "\n".join(lines)


def nccl_job(expected: Expected, pool: ExpectedPool, queue: ExpectedLocalQueue, name: str) -> dict[str, Any]:
    """The Job: suspended until Kueue admits both pods, each on its own node of the pool with all its GPUs."""
    gpus = whole_gpus(pool)
    resources = pod_resources(pool)
    gpudirect = _gpudirect(expected, pool)
    # NCCL needs more shared memory than the container runtime's 64Mi; GPUDirect's volumes hold such a /dev/shm.
    volumes = gpudirect["volumes"] or [{"name": "dshm", "emptyDir": {"medium": "Memory"}}]
    mounts = gpudirect["volumeMounts"] or [{"name": "dshm", "mountPath": "/dev/shm"}]
    container = {
        "name": "nccl",
        "image": expected.nccl_image,
        "command": ["bash", "-c", _command(name, gpus, gpudirect["command"])],
        "env": [{"name": "NCCL_DEBUG", "value": "INFO"}, *_fabric_env(pool), *gpudirect["env"]],
        "ports": [{"name": "rendezvous", "containerPort": PORT}],
        "resources": {
            "requests": dict(resources),
            "limits": {r: q for r, q in resources.items() if r not in ("cpu", "memory")},
        },
        "volumeMounts": mounts,
    }
    pod: dict[str, Any] = {
        "restartPolicy": "Never",
        "subdomain": name,
        "nodeSelector": dict(pool.selector),
        "tolerations": [dict(t) for t in pool.tolerations],
        "affinity": {  # two nodes, also where a node has more GPUs than the plan says
            "podAntiAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": [
                    {"labelSelector": {"matchLabels": {JOB_NAME_LABEL: name}}, "topologyKey": HOSTNAME_LABEL}
                ]
            }
        },
        "containers": [container],
        "volumes": volumes,
    }
    if gpudirect["sidecars"]:
        pod["initContainers"] = gpudirect["sidecars"]
    template_meta: dict[str, Any] = {"labels": dict(MANAGED_BY)}
    if gpudirect["annotations"]:
        template_meta["annotations"] = dict(gpudirect["annotations"])
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {
            "name": name,
            "namespace": queue.namespace,
            "labels": {QUEUE_LABEL: queue.name, **MANAGED_BY},
        },
        "spec": {
            "suspend": True,
            "parallelism": NODES,
            "completions": NODES,
            "completionMode": "Indexed",
            "backoffLimit": 0,
            "activeDeadlineSeconds": DEADLINE_SECONDS,
            "template": {"metadata": template_meta, "spec": pod},
        },
    }


def fabric_of(pool: ExpectedPool) -> tuple[str, ...]:
    out = tuple(r for r in (EFA_RESOURCE, RDMA_SHARED_IB_RESOURCE) if r in pool.allocatable)
    return out + ((pool.gpudirect.display,) if pool.gpudirect is not None else ())


def skip_reason(pool: ExpectedPool) -> str | None:
    """Why the pool gets no all-reduce before its queues are looked at, or ``None``."""
    if pool.sharing != "none":
        return f"its GPUs are shared ({pool.sharing}), not whole {GPU_RESOURCE}: no NCCL all-reduce"
    if GPU_RESOURCE not in pool.allocatable:
        return f"its GPUs are claimed through DRA, not requested as {GPU_RESOURCE}: no NCCL all-reduce"
    if pool.max_nodes < NODES:
        return f"at most {pool.max_nodes} node(s): no NCCL all-reduce across {NODES} nodes"
    return None


def nccl_jobs(expected: Expected, suffix: str | None = None) -> tuple[list[NcclJob], dict[str, str]]:
    """The Jobs (with their Services), and the pools that get none with why. ``suffix`` makes the names unique per
    run (random when not given)."""
    jobs, skipped = [], {}
    for pool in expected.pools:
        if (why := skip_reason(pool)) is not None:
            skipped[pool.name] = why
            continue
        per_pod = pod_resources(pool)
        queue = gang_queue(expected, pool, per_pod)
        if queue is None:
            need = ", ".join(f"{r} {q}" for r, q in per_pod.items())
            skipped[pool.name] = (
                f"no LocalQueue's ClusterQueue has quota for {NODES} pods of {need} on its flavor"
            )
            continue
        name = job_name(pool.name, suffix or secrets.token_hex(3))
        service = headless_service(name, queue.namespace)
        manifest = nccl_job(expected, pool, queue, name)
        jobs.append(NcclJob(pool.name, queue, whole_gpus(pool), fabric_of(pool), service, manifest))
    return jobs, skipped


def parse_log(log: str) -> tuple[int | None, float | None, str | None]:
    """Rank 0's log: ``(ranks, bus bandwidth in GB/s, NCCL's network)``, each ``None`` when it is not there."""
    result = _RESULT.search(log)
    network = _NETWORK.search(log)
    return (
        int(result.group(1)) if result else None,
        float(result.group(2)) if result else None,
        network.group(1).strip() if network else None,
    )


def nccl_outcome(
    job: NcclJob, live: dict[str, Any] | str, waited: float, result: NcclResult
) -> list[Finding]:
    """What the Job's last state and rank 0's log say: nothing when it succeeded over the pool's fabric (the bus
    bandwidth is ``describe``'s), else why not (``live``: the Job as read after ``waited`` seconds, or the API
    server's reason for refusing to create it or its Service)."""
    over = f" over {', '.join(job.fabric)}" if job.fabric else ""
    want = (
        f"an NCCL all-reduce across {NODES} nodes x {job.gpus} GPUs{over} through LocalQueue "
        f"{job.queue.namespace}/{job.queue.name}"
    )
    obj = f"Job {job.queue.namespace}/{job.name}"
    if isinstance(live, str):
        return [error(SMOKE, job.subject, obj, want, f"the Job could not be created ({live})")]
    status = live.get("status") or {}
    failed = [
        c for c in status.get("conditions") or [] if c.get("type") == "Failed" and c.get("status") == "True"
    ]
    if failed or status.get("failed"):
        said = f"{failed[0].get('reason')}: {failed[0].get('message')}" if failed else "a pod failed"
        return [error(SMOKE, job.subject, obj, want, f"failed ({said})")]
    if (status.get("succeeded") or 0) < NODES:
        if (live.get("spec") or {}).get("suspend"):
            return [error(SMOKE, job.subject, obj, want, f"not admitted by Kueue within {waited:.0f}s")]
        return [error(SMOKE, job.subject, obj, want, f"admitted, not finished within {waited:.0f}s")]
    if result.nodes and len(set(result.nodes)) < NODES:
        return [error(SMOKE, job.subject, obj, want, f"both pods ran on node {result.nodes[0]}")]
    if job.fabric and result.network == SOCKET_NETWORK:
        return [
            error(SMOKE, job.subject, obj, want, "NCCL used TCP sockets (NCCL INFO Using network Socket)")
        ]
    return []


def describe(job: NcclJob, result: NcclResult) -> str:
    """One line for a successful run: the bus bandwidth, NCCL's network and the nodes."""
    nodes = f" on {', '.join(result.nodes)}" if result.nodes else ""
    if result.busbw_gbps is None:
        why = f" ({result.unread})" if result.unread else ""
        return f"all-reduce passed{nodes}; bus bandwidth not read{why}"
    network = f" over NCCL network {result.network}" if result.network else ""
    return f"bus bandwidth {result.busbw_gbps:.2f} GB/s, {result.ranks} ranks{network}{nodes}"


def skipped_findings(skipped: dict[str, str]) -> list[Finding]:
    """A warning per pool that got no all-reduce."""
    return [
        warning(
            SMOKE, f"nccl on pool {pool}", f"pool {pool}", f"an NCCL all-reduce across {NODES} nodes", why
        )
        for pool, why in skipped.items()
    ]
