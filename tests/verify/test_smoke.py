"""``--smoke``: a CUDA sample Job per pool through a queue that admits its GPUs, an NCCL all-reduce across two nodes
of each multi-node pool, and what their outcomes report."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest

from gpu_platform import versions
from gpu_platform.verify import nccl
from gpu_platform.verify.load import load_expected
from gpu_platform.verify.nccl import nccl_jobs
from gpu_platform.verify.smoke import outcome, smoke_jobs
from tests.support.verify import REPO, stack_expectation


def test_dev_smokes_its_l4_pool_through_the_team_queue() -> None:
    (job,), skipped = smoke_jobs(stack_expectation("dev"))
    assert skipped == {}
    assert (job.pool, job.queue.namespace, job.queue.name, job.resource) == (
        "l4-spot",
        "ml-dev",
        "default",
        "nvidia.com/gpu",
    )
    manifest = job.manifest
    assert manifest["metadata"]["namespace"] == "ml-dev"
    assert manifest["metadata"]["labels"]["kueue.x-k8s.io/queue-name"] == "default"
    assert manifest["spec"]["suspend"] is True
    pod = manifest["spec"]["template"]["spec"]
    assert pod["nodeSelector"] == {"gpu-platform.io/pool": "l4-spot", "gpu-platform.io/gpu": "l4"}
    assert pod["tolerations"] == [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}]
    (container,) = pod["containers"]
    assert container["image"] == versions.CUDA_SAMPLE_IMAGE
    assert container["resources"]["limits"] == {"nvidia.com/gpu": "1"}


def test_prod_smokes_a_mig_slice_and_tolerates_the_training_taint() -> None:
    jobs, _ = smoke_jobs(stack_expectation("prod"))
    by_pool = {j.pool: j for j in jobs}
    assert by_pool["h100-inference"].resource == "nvidia.com/mig-1g.10gb"
    assert by_pool["h100-inference"].queue.cluster_queue == "inference"
    training = by_pool["h100-training"]
    assert training.queue.cluster_queue == "training"
    tolerations = training.manifest["spec"]["template"]["spec"]["tolerations"]
    assert {
        "key": "dedicated",
        "operator": "Equal",
        "value": "training",
        "effect": "NoSchedule",
    } in tolerations


def test_a_pool_no_queue_admits_gets_no_job() -> None:
    expected = stack_expectation("dev")
    queues = tuple(
        dataclasses.replace(
            q, quotas={k: (0 if k[1] == "nvidia.com/gpu" else v) for k, v in q.quotas.items()}
        )
        for q in expected.cluster_queues
    )
    jobs, skipped = smoke_jobs(dataclasses.replace(expected, cluster_queues=queues))
    assert jobs == []
    assert skipped == {"l4-spot": "no LocalQueue's ClusterQueue has a nvidia.com/gpu quota on its flavor"}


def test_the_sample_comes_from_the_stack_mirror(tmp_path: Path) -> None:
    (tmp_path / "mirror.yaml").write_text(
        "config:\n  gpu-platform:mirror:\n    images: registry.acme/mirror\n"
    )
    expected = load_expected(REPO, "dev", tmp_path / "mirror.yaml")
    assert expected.smoke_image == "registry.acme/mirror/nvidia/k8s/cuda-sample:vectoradd-cuda12.5.0"
    assert expected.nccl_image == "registry.acme/mirror/nvidia/pytorch:25.01-py3"


def test_each_outcome_is_reported() -> None:
    (job,), _ = smoke_jobs(stack_expectation("dev"))
    meta = {"name": "gpu-platform-smoke-l4-spot-x1", "namespace": "ml-dev"}
    assert outcome(job, {"metadata": meta, "status": {"succeeded": 1}}, 30) == []
    failed = {"metadata": meta, "status": {"failed": 1, "conditions": [
        {"type": "Failed", "status": "True", "reason": "BackoffLimitExceeded", "message": "Job has reached the specified backoff limit"}
    ]}}  # fmt: skip
    waiting = {"metadata": meta, "spec": {"suspend": True}, "status": {}}
    running = {"metadata": meta, "spec": {"suspend": False}, "status": {"active": 1}}
    found = [f.found for case in (failed, waiting, running) for f in outcome(job, case, 600)]
    assert found == [
        "failed (BackoffLimitExceeded: Job has reached the specified backoff limit)",
        "not admitted by Kueue within 600s",
        "admitted, not finished within 600s",
    ]
    (not_created,) = outcome(job, "404 Not Found", 0)
    assert (not_created.severity, not_created.subject, not_created.object, not_created.found) == (
        "error",
        "smoke on pool l4-spot",
        "Job ml-dev/gpu-platform-smoke-l4-spot-",
        "the Job could not be created (404 Not Found)",
    )


# --- NCCL all-reduce across two nodes ------------------------------------------------------------------------


def _env(container: dict[str, Any]) -> dict[str, str]:
    return {e["name"]: e["value"] for e in container["env"]}


def test_prod_runs_an_nccl_all_reduce_across_two_efa_nodes_of_its_training_pool() -> None:
    (job,), skipped = nccl_jobs(stack_expectation("prod"), suffix="abc123")
    assert skipped == {
        "h100-inference": "its GPUs are shared (mig), not whole nvidia.com/gpu: no NCCL all-reduce"
    }
    name = "gpu-platform-nccl-h100-training-abc123"
    assert (job.pool, job.queue.namespace, job.queue.name, job.queue.cluster_queue, job.gpus, job.name) == (
        "h100-training", "foundation-models", "default", "training", 8, name,
    )  # fmt: skip
    assert job.fabric == ("vpc.amazonaws.com/efa",)
    manifest = job.manifest
    assert manifest["metadata"] == {
        "name": name,
        "namespace": "foundation-models",
        "labels": {
            "kueue.x-k8s.io/queue-name": "default",
            "app.kubernetes.io/managed-by": "gpu-platform-verify",
        },
    }
    spec = manifest["spec"]
    assert (spec["suspend"], spec["parallelism"], spec["completions"], spec["completionMode"]) == (
        True, 2, 2, "Indexed",
    )  # fmt: skip
    assert spec["backoffLimit"] == 0
    pod = spec["template"]["spec"]
    assert pod["subdomain"] == name
    assert pod["nodeSelector"] == {
        "gpu-platform.io/pool": "h100-training",
        "gpu-platform.io/gpu": "h100-80gb",
    }
    assert {"key": "dedicated", "operator": "Equal", "value": "training", "effect": "NoSchedule"} in pod[
        "tolerations"
    ]
    assert {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"} in pod["tolerations"]
    (term,) = pod["affinity"]["podAntiAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]
    assert term == {
        "labelSelector": {"matchLabels": {"batch.kubernetes.io/job-name": name}},
        "topologyKey": "kubernetes.io/hostname",
    }
    (container,) = pod["containers"]
    assert container["image"] == versions.NCCL_SMOKE_IMAGE
    assert container["resources"]["limits"] == {
        "nvidia.com/gpu": "8",
        "vpc.amazonaws.com/efa": "32",
        "hugepages-2Mi": "5120Mi",
    }
    assert container["resources"]["requests"] == {
        "cpu": "8",
        "memory": "16Gi",
        **container["resources"]["limits"],
    }
    assert _env(container) == {"NCCL_DEBUG": "INFO", "FI_PROVIDER": "efa", "FI_EFA_USE_DEVICE_RDMA": "1"}
    script = container["command"][2]
    assert script.splitlines()[-1] == (
        "exec torchrun --nnodes=2 --nproc-per-node=8 --node-rank=$JOB_COMPLETION_INDEX "
        f"--master-addr={name}-0.{name} --master-port=29500 /tmp/nccl_allreduce.py"
    )
    assert container["volumeMounts"] == [{"name": "dshm", "mountPath": "/dev/shm"}]
    assert job.service == {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": name, "namespace": "foundation-models", "labels": {"app.kubernetes.io/managed-by": "gpu-platform-verify"}},
        "spec": {
            "clusterIP": "None",
            "publishNotReadyAddresses": True,
            "selector": {"batch.kubernetes.io/job-name": name},
            "ports": [{"name": "rendezvous", "port": 29500}],
        },
    }  # fmt: skip


def test_the_all_reduce_program_checks_the_sum_and_reports_bus_bandwidth() -> None:
    """The program runs as written: one all-reduce checked, the timed ones turned into nccl-tests' bus bandwidth."""
    compile(nccl.SCRIPT, "nccl_allreduce.py", "exec")
    assert "if x[0].item() != world:" in nccl.SCRIPT
    assert "busbw = algbw * 2 * (world - 1) / world" in nccl.SCRIPT
    log = (
        "gpu-0:1:1 [0] NCCL INFO Using network AWS Libfabric\n"
        "nccl-smoke: ranks=16 bytes=1073741824 time_us=11234 algbw_GBps=95.58 busbw_GBps=179.21\n"
    )
    assert nccl.parse_log(log) == (16, 179.21, "AWS Libfabric")
    assert nccl.parse_log("Traceback ...") == (None, None, None)


def test_shared_single_node_and_dra_pools_get_no_all_reduce() -> None:
    (dev_pool,) = stack_expectation("dev").pools
    assert nccl.skip_reason(dev_pool) == (
        "its GPUs are shared (time-slicing), not whole nvidia.com/gpu: no NCCL all-reduce"
    )
    training = next(p for p in stack_expectation("prod").pools if p.name == "h100-training")
    assert nccl.skip_reason(dataclasses.replace(training, max_nodes=1)) == (
        "at most 1 node(s): no NCCL all-reduce across 2 nodes"
    )
    dra = dataclasses.replace(training, allocatable={"vpc.amazonaws.com/efa": 32})
    assert nccl.skip_reason(dra) == (
        "its GPUs are claimed through DRA, not requested as nvidia.com/gpu: no NCCL all-reduce"
    )
    assert nccl.skip_reason(training) is None


@pytest.mark.parametrize(
    ("resource", "quota"),
    [("nvidia.com/gpu", 8), ("vpc.amazonaws.com/efa", 32), ("hugepages-2Mi", "5120Mi")],
)
def test_a_queue_without_two_nodes_of_quota_gets_no_all_reduce(resource: str, quota: Any) -> None:
    """Kueue admits the pair whole or not at all: one node's worth of GPUs or fabric is not enough."""
    expected = stack_expectation("prod")
    queues = tuple(
        dataclasses.replace(q, quotas={k: (quota if k == ("h100-training", resource) else v) for k, v in q.quotas.items()})
        for q in expected.cluster_queues
    )  # fmt: skip
    jobs, skipped = nccl_jobs(dataclasses.replace(expected, cluster_queues=queues))
    assert jobs == []
    assert skipped["h100-training"] == (
        "no LocalQueue's ClusterQueue has quota for 2 pods of cpu 8, memory 16Gi, nvidia.com/gpu 8, "
        "vpc.amazonaws.com/efa 32, hugepages-2Mi 5120Mi on its flavor"
    )
    (warned,) = [f for f in nccl.skipped_findings(skipped) if f.subject == "nccl on pool h100-training"]
    assert (warned.severity, warned.object) == ("warning", "pool h100-training")


def test_infiniband_and_gpudirect_pools_use_their_fabric() -> None:
    """AKS InfiniBand: ``rdma/shared_ib`` and NCCL's IB settings; GKE TCPXO: Google's annotations, the receive
    daemon as a native sidecar (so the Job completes with its ranks) and the NCCL profile sourced first."""
    example = REPO / "examples" / "topology-aware-training"
    (ib,), _ = nccl_jobs(load_expected(example, "aks-nd-h100"), suffix="abc123")
    (container,) = ib.manifest["spec"]["template"]["spec"]["containers"]
    assert container["resources"]["limits"] == {"nvidia.com/gpu": "8", "rdma/shared_ib": "1"}
    assert _env(container) == {"NCCL_DEBUG": "INFO", "NCCL_IB_DISABLE": "0", "NCCL_NET_GDR_LEVEL": "SYS"}
    assert ib.fabric == ("rdma/shared_ib",)

    (tcpxo,), _ = nccl_jobs(load_expected(example, "gke-a3-mega"), suffix="abc123")
    template = tcpxo.manifest["spec"]["template"]
    assert tcpxo.fabric == ("GPUDirect-TCPXO",)
    assert "networking.gke.io/interfaces" in template["metadata"]["annotations"]
    (sidecar,) = template["spec"]["initContainers"]
    assert (sidecar["name"], sidecar["restartPolicy"]) == ("tcpxo-daemon", "Always")
    (container,) = template["spec"]["containers"]
    assert container["resources"]["limits"] == {"nvidia.com/gpu": "8"}
    assert container["command"][2].splitlines()[:2] == [
        "set -e",
        "source ${NCCL_LIB_DIR}/nccl-env-profile.sh",
    ]
    assert _env(container)["NCCL_DEBUG"] == "INFO"


def test_each_all_reduce_outcome_is_reported() -> None:
    (job,), _ = nccl_jobs(stack_expectation("prod"), suffix="abc123")
    meta = {"name": job.name, "namespace": "foundation-models"}
    spec = {"suspend": False, "completions": 2}
    ran = nccl.NcclResult(
        nodes=("h100-training-0", "h100-training-1"), busbw_gbps=179.21, ranks=16, network="AWS Libfabric"
    )
    done = {"metadata": meta, "spec": spec, "status": {"succeeded": 2}}
    assert nccl.nccl_outcome(job, done, 60, ran) == []
    assert nccl.describe(job, ran) == (
        "bus bandwidth 179.21 GB/s, 16 ranks over NCCL network AWS Libfabric on h100-training-0, h100-training-1"
    )
    assert nccl.describe(
        job, nccl.NcclResult(nodes=("a", "b"), unread="rank 0's log: 500 Internal Server Error")
    ) == ("all-reduce passed on a, b; bus bandwidth not read (rank 0's log: 500 Internal Server Error)")
    failed = {"metadata": meta, "spec": spec, "status": {"failed": 1, "conditions": [
        {"type": "Failed", "status": "True", "reason": "BackoffLimitExceeded", "message": "Job has reached the specified backoff limit"}
    ]}}  # fmt: skip
    waiting = {"metadata": meta, "spec": {**spec, "suspend": True}, "status": {}}
    half = {"metadata": meta, "spec": spec, "status": {"succeeded": 1, "active": 1}}
    found = [f.found for case in (failed, waiting, half) for f in nccl.nccl_outcome(job, case, 900, ran)]
    assert found == [
        "failed (BackoffLimitExceeded: Job has reached the specified backoff limit)",
        "not admitted by Kueue within 900s",
        "admitted, not finished within 900s",
    ]
    (tcp,) = nccl.nccl_outcome(job, done, 60, dataclasses.replace(ran, network="Socket"))
    assert tcp.found == "NCCL used TCP sockets (NCCL INFO Using network Socket)"
    (one_node,) = nccl.nccl_outcome(job, done, 60, dataclasses.replace(ran, nodes=("n1", "n1")))
    assert one_node.found == "both pods ran on node n1"
    (not_created,) = nccl.nccl_outcome(job, "its Service: 403 Forbidden", 0, nccl.NcclResult())
    assert (
        not_created.severity,
        not_created.subject,
        not_created.object,
        not_created.expected,
        not_created.found,
    ) == (
        "error",
        "nccl on pool h100-training",
        f"Job foundation-models/{job.name}",
        "an NCCL all-reduce across 2 nodes x 8 GPUs over vpc.amazonaws.com/efa through LocalQueue "
        "foundation-models/default",
        "the Job could not be created (its Service: 403 Forbidden)",
    )
