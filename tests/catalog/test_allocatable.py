"""Kueue admits only what can run: quotas are what nodes offer pods, CPU-only jobs get the system flavor,
and a service with a Kueue priority is always behind a LocalQueue.

Every expectation is computed here again from the documented formulas (docs/configuration.md, "Node
allocatable"; ``catalog/allocatable.py`` cites the sources), never by calling the code under test, and
the published examples of each cloud are checked where the sources give one.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
import yaml

from gpu_platform.addons.kserve.service import GpuInferenceService
from gpu_platform.addons.kueue.settings import DEFAULT_BLOCK_ADMISSION
from gpu_platform.catalog.allocatable import node_allocatable
from gpu_platform.cli import main
from gpu_platform.cloud_facts import profile_of
from gpu_platform.cloud_facts.eks.allocatable import node_group_max_pods as eks_max_pods
from gpu_platform.errors import ArgumentsError, ConfigError
from gpu_platform.offline import Plan
from gpu_platform.offline.recorder import close_mock_runtime, run_under_mocks, start_mock_runtime
from gpu_platform.offline.stack_file import engine_config
from gpu_platform.stack.program import main as stack_main
from tests.conftest import planned_stack, stack_file_config
from tests.support.plans import plan_kueue

CQ = "kubernetes:kueue.x-k8s.io/v1beta2:ClusterQueue"
FLAVOR = "kubernetes:kueue.x-k8s.io/v1beta2:ResourceFlavor"
ISVC = "kubernetes:serving.kserve.io/v1beta1:InferenceService"
SYSTEM = "system-cpu"
SYSTEM_LABELS = {"gpu-platform.io/pool-role": "system"}
OVERHEAD = Fraction(75, 1000)
"""Karpenter's default VM memory overhead (7.5% of the nominal memory)."""


# --- the documented formulas, written again ----------------------------------------------------


def gke_reserved(vcpus: int, memory_mib: int) -> tuple[int, int]:
    """GKE: 6% of the first core, 1% of the second, 0.5% of cores 3-4, 0.25% above; memory 25% of the first
    4 GiB, 20% of the next 4, 10% of the next 8, 6% of the next 112, 2% above 128 GiB (rounded up)."""
    cpu = Fraction(0)
    for core in range(vcpus):
        cpu += 60 if core == 0 else 10 if core == 1 else 5 if core < 4 else Fraction(5, 2)
    memory = Fraction(0)
    for low, high, share in ((0, 4, 25), (4, 8, 20), (8, 16, 10), (16, 128, 6), (128, 10**6, 2)):
        part = max(0, min(memory_mib, high * 1024) - low * 1024)
        memory += Fraction(part * share, 100)
    return math.ceil(cpu), math.ceil(memory)


def eks_reserved(vcpus: int, max_pods: int) -> tuple[int, int]:
    """EKS AMI: the same CPU tiers in integer millicores per range; memory 11 MiB x maxPods + 255 MiB."""
    above_four = (vcpus - 4) * 1000 * 25 // 10000 if vcpus > 4 else 0
    return 60 + 10 + 10 + above_four, 11 * max_pods + 255


def aks_reserved(vcpus: int, memory_mib: int, max_pods: int = 250) -> tuple[int, int]:
    """AKS: 60/100/140/180/260/420/740m for 1-64 cores (6%, 4%, 2%, 1%); memory min(20 x maxPods + 50, 25%)."""
    cpu = 60 + 40 + 20 + 20 + 10 * (vcpus - 4)
    return cpu, math.ceil(min(Fraction(20 * max_pods + 50), Fraction(memory_mib, 4)))


def allocatable(cloud: str, vcpus: int, memory_gib: int, max_pods: int) -> tuple[int, int]:
    """``(millicores, MiB)``: capacity - kube-reserved - 100 MiB eviction - 7.5% VM memory overhead."""
    memory = memory_gib * 1024
    if cloud == "gke":
        cpu_r, mem_r = gke_reserved(vcpus, memory)
    elif cloud == "eks":
        cpu_r, mem_r = eks_reserved(vcpus, max_pods)
    else:
        cpu_r, mem_r = aks_reserved(vcpus, memory, max_pods)
    return vcpus * 1000 - cpu_r, memory - math.ceil(memory * OVERHEAD) - mem_r - 100


# --- hand-computed nodes ---------------------------------------------------------------------------


def test_p5_48xlarge_on_eks_by_hand() -> None:
    # 192 vCPU, 2048 GiB; maxPods = 2 ENIs x (50 IPv4 - 1) + 2 = 100 (under the managed node group cap 250).
    assert eks_max_pods("p5.48xlarge", 192) == 100
    node = node_allocatable(profile_of("eks"), 192, 2048, 100)
    # CPU: 60 + 10 + 10 + (192000 - 4000) x 0.25% = 550m reserved.
    assert node.reserved_cpu_millicores == 550 and node.cpu_millicores == 191_450
    # Memory: 2097152 MiB - 157287 (7.5%, rounded up) - (11 x 100 + 255 = 1355) - 100 = 1938410 MiB.
    assert node.vm_overhead_memory_mib == 157_287 and node.reserved_memory_mib == 1355
    assert node.memory_mib == 2_097_152 - 157_287 - 1355 - 100 == 1_938_410
    assert (node.cpu_millicores, node.memory_mib) == allocatable("eks", 192, 2048, 100)


def test_g2_standard_8_on_gke_by_hand() -> None:
    node = node_allocatable(profile_of("gke"), 8, 32, 110)
    # CPU: 60 + 10 + 5 + 5 + 4 x 2.5 = 90m reserved.
    assert node.cpu_millicores == 7910
    # Memory: 32768 MiB; 1024 + 819.2 + 819.2 + 6% x 16384 (983.04) = 3645.44 -> 3646 reserved,
    # 7.5% overhead 2457.6 -> 2458, eviction 100: 32768 - 2458 - 3646 - 100 = 26564 MiB.
    assert node.reserved_memory_mib == 3646 and node.memory_mib == 26_564
    assert (node.cpu_millicores, node.memory_mib) == allocatable("gke", 8, 32, 110)


def test_the_clouds_published_examples() -> None:
    # GKE's example node: 4 vCPU -> cpu: 3920m allocatable.
    assert 4000 - profile_of("gke").reserved(4, 16 * 1024, 110)[0] == 3920
    # GKE memory calculator (cites plan-node-sizes): 150 GiB reserves 9.8577 GiB with the 100 MiB eviction.
    assert round((profile_of("gke").reserved(4, 150 * 1024, 110)[1] + 100) / 1024, 4) == pytest.approx(
        9.8577, abs=1e-3
    )
    # AKS table: 1, 2, 4, 8, 16, 32, 64 cores.
    table = {1: 60, 2: 100, 4: 140, 8: 180, 16: 260, 32: 420, 64: 740}
    assert {n: profile_of("aks").reserved(n, 1024 * 1024, 250)[0] for n in table} == table
    # AKS 1.29+: 8 GB and 30 pods -> 20 x 30 + 50 = 650; 4 GB and 70 pods -> 25% (less than 1450).
    assert profile_of("aks").reserved(1, 8 * 1024, 30)[1] == 650
    assert profile_of("aks").reserved(1, 4 * 1024, 70)[1] == 1024
    # EKS AMI: 2 vCPUs reserve 70m (60 + 10); maxPods: m6i.large 3 x 9 + 2 = 29; g5.48xlarge's
    # 7 x 49 + 2 = 345 is capped at 250 (> 30 vCPUs); an unknown type gets the cap (110 at 4 vCPUs).
    assert profile_of("eks").reserved(2, 8 * 1024, 29)[0] == 70
    assert (eks_max_pods("m6i.large", 2), eks_max_pods("g5.48xlarge", 192)) == (29, 250)
    assert eks_max_pods("x9z.xlarge", 4) == 110


# --- every stack's quotas ----------------------------------------------------------------------------

# What the library's DaemonSets request on one node of each pool, added up by hand from the table in
# plans/node_daemonsets.py (per container: driver 200m/512Mi, toolkit 50m/64Mi, device plugin 50m/128Mi,
# GFD 50m/64Mi, DCGM exporter 100m/512Mi, MIG manager 50m/128Mi, validator 10m/32Mi; NFD worker 5m/64Mi;
# GKE COS installer 150m). The device plugin and GFD run a config-manager sidecar when a pool is shared
# through the operator (time-slicing): twice their requests.
OPERANDS: dict[str, dict[str, tuple[int, int]]] = {
    # GKE COS: Google's installer (150m), operator toolkit, device plugin x2, GFD x2, DCGM, validator, NFD.
    "dev": {"l4-spot": (150 + 50 + 100 + 100 + 100 + 10 + 5, 64 + 256 + 128 + 512 + 32 + 64)},
    # AKS, operator driver: driver, toolkit, GFD, DCGM, validator, NFD (no device-plugin config, so no sidecars);
    # the isolated T4s run HAMi's device plugin (no requests) instead of the operator's; A100: its device plugin and
    # MIG manager.
    "staging": {
        "t4-spot": (200 + 50 + 50 + 100 + 10 + 5, 512 + 64 + 64 + 512 + 32 + 64),
        "a100-mig": (200 + 50 + 50 + 50 + 100 + 50 + 10 + 5, 512 + 64 + 128 + 64 + 512 + 128 + 32 + 64),
    },
    # EKS AL2023: driver and toolkit on the AMI; device plugin, GFD, DCGM, MIG manager, validator, NFD.
    "prod": {
        # Plus the library's startup-taint remover (10m/64Mi): its MIG slices appear only once a node runs.
        "h100-inference": (50 + 50 + 100 + 50 + 10 + 5 + 10, 128 + 64 + 512 + 128 + 32 + 64 + 64),
        # Plus the AWS EFA device plugin (its chart's 10m/20Mi) on the EFA pool.
        "h100-training": (50 + 50 + 100 + 50 + 10 + 5 + 10, 128 + 64 + 512 + 128 + 32 + 64 + 20),
    },
}
MACHINES: dict[str, tuple[str, dict[str, tuple[int, int, int, int]]]] = {
    # stack -> (cloud, pool -> (vCPUs, GiB, maxPods, max_nodes)) as the stack files and catalog say.
    "dev": ("gke", {"l4-spot": (8, 32, 110, 3)}),
    "staging": ("aks", {"t4-spot": (8, 56, 250, 4), "a100-mig": (24, 220, 250, 2)}),
    "prod": ("eks", {"h100-inference": (192, 2048, 100, 2), "h100-training": (192, 2048, 100, 4)}),
}
SYSTEM_POOLS: dict[str, tuple[int, int, int, int]] = {
    # e2-standard-4, Standard_D4s_v5 and m6i.xlarge (4 x 15 - 4 + 2 = 58 pods) with their maxNodes.
    "dev": (4, 16, 110, 3),
    "staging": (4, 16, 250, 3),
    "prod": (4, 16, 58, 6),
}
NFD = (5, 64)
HEALTH_CHECKS = (20 + 10, 80 + 64)
"""observability's GPU health checks on every GPU node: node-problem-detector and the tainting remedy."""


def millicores(q: int | str) -> int:
    return int(q[:-1]) if isinstance(q, str) and q.endswith("m") else int(q) * 1000


def mebibytes(q: str) -> int:
    return int(q[:-2]) * (1024 if q.endswith("Gi") else 1)


def flavor_quota(cq: dict[str, Any], flavor: str) -> dict[str, Any]:
    (group,) = cq["resourceGroups"]
    found = next(f for f in group["flavors"] if f["name"] == flavor)
    return {r["name"]: r["nominalQuota"] for r in found["resources"]}


@pytest.fixture(scope="module", params=sorted(MACHINES))
def stack(request: pytest.FixtureRequest) -> tuple[str, Plan]:
    return request.param, planned_stack(request.param)


def test_every_gpu_quota_is_the_machine_less_the_documented_reservation(stack: tuple[str, Plan]) -> None:
    name, plan = stack
    cloud, pools = MACHINES[name]
    queues = plan.by_type(CQ)
    assert queues
    owned: dict[str, int] = {}
    for cq in queues:
        for pool, (vcpus, gib, max_pods, nodes) in pools.items():
            quota = flavor_quota(cq.inputs["spec"], pool)
            if millicores(quota["cpu"]) == 0:
                continue  # a cohort peer's pool: nothing nominal here
            owned[pool] = owned.get(pool, 0) + 1
            cpu, memory = allocatable(cloud, vcpus, gib, max_pods)
            ds_cpu, ds_mem = (a + b for a, b in zip(OPERANDS[name][pool], HEALTH_CHECKS, strict=True))
            assert millicores(quota["cpu"]) == nodes * (cpu - ds_cpu), (cq.name, pool)
            assert mebibytes(quota["memory"]) == nodes * (memory - ds_mem), (cq.name, pool)
            # Below the raw machine total, and by exactly the reservation, overhead and pods.
            assert millicores(quota["cpu"]) < nodes * vcpus * 1000
            assert mebibytes(quota["memory"]) < nodes * gib * 1024
    assert owned == dict.fromkeys(pools, 1), "every pool is the nominal quota of exactly one queue"


def test_the_system_flavor_shares_add_up_to_the_system_pool(stack: tuple[str, Plan]) -> None:
    name, plan = stack
    cloud = MACHINES[name][0]
    vcpus, gib, max_pods, nodes = SYSTEM_POOLS[name]
    cpu, memory = allocatable(cloud, vcpus, gib, max_pods)
    total_cpu, total_mem = nodes * (cpu - NFD[0]), nodes * (memory - NFD[1])
    shares = [flavor_quota(cq.inputs["spec"], SYSTEM) for cq in plan.by_type(CQ)]
    # Split evenly; nominal quotas of all queues together are exactly what the system pool holds.
    assert sum(millicores(s["cpu"]) for s in shares) == total_cpu
    assert sum(mebibytes(s["memory"]) for s in shares) == total_mem
    assert max(millicores(s["cpu"]) for s in shares) - min(millicores(s["cpu"]) for s in shares) <= 1
    for share in shares:
        assert {k: v for k, v in share.items() if k not in ("cpu", "memory")} == dict.fromkeys(
            [k for k in share if k not in ("cpu", "memory")], 0
        ), "no GPU of any kind on the system flavor"


# --- CPU-only jobs land on the system flavor ---------------------------------------------------------


def assign(cq: dict[str, Any], requests: dict[str, int]) -> str | None:
    """Kueue's flavor assignment without borrowing: the first flavor, in order, whose nominal quota holds
    every resource the workload requests (units: millicores, MiB, devices)."""
    (group,) = cq["resourceGroups"]
    for flavor in group["flavors"]:
        quota = {r["name"]: r["nominalQuota"] for r in flavor["resources"]}
        have = {
            k: millicores(v) if k == "cpu" else mebibytes(v) if k == "memory" else v for k, v in quota.items()
        }
        if all(have.get(k, 0) >= v for k, v in requests.items()):
            return str(flavor["name"])
    return None


def test_a_cpu_only_job_gets_the_system_flavor_and_a_gpu_job_skips_it(
    plan_stack: Callable[..., Plan],
) -> None:
    plan = plan_stack("prod")
    flavors = {f.inputs["metadata"]["name"]: f.inputs["spec"] for f in plan.by_type(FLAVOR)}
    assert flavors[SYSTEM] == {"nodeLabels": SYSTEM_LABELS}  # no tolerations: the nodes are untainted
    # The system node group carries exactly the labels the flavor injects as nodeSelector.
    (group,) = [g for g in plan.by_type("aws:eks/nodeGroup:NodeGroup") if g.name.endswith("-system")]
    assert group.inputs["labels"] == SYSTEM_LABELS
    for cq in plan.by_type(CQ):
        spec = cq.inputs["spec"]
        assert spec["resourceGroups"][0]["flavors"][0]["name"] == SYSTEM, "system flavor first"
        assert assign(spec, {"cpu": 2000, "memory": 4096}) == SYSTEM
    training = plan.one(CQ, "kueue-cq-training").inputs["spec"]
    inference = plan.one(CQ, "kueue-cq-inference").inputs["spec"]
    assert assign(training, {"nvidia.com/gpu": 8, "cpu": 32000, "memory": 256 * 1024}) == "h100-training"
    assert assign(inference, {"nvidia.com/mig-3g.40gb": 1, "cpu": 2000, "memory": 8192}) == "h100-inference"


def test_existing_cluster_gets_a_system_flavor_only_from_its_labels() -> None:
    node = {"gpu": "a100-80gb", "gpus_per_node": 4, "cpus_per_node": 64, "memory_gib_per_node": 512}
    pools = [{"name": name, "max_nodes": 2, **node} for name in ("a", "b", "c")]
    base = {"cloud": "existing", "pools": pools, "gpu_operator": {"enabled": False}}
    queues = [{"name": name, "pools": [name]} for name in ("a", "b", "c")]
    # Without labels: no system flavor (CPU-only jobs would take the GPU flavor; documented).
    assert [f["metadata"]["name"] for f in plan_kueue(base).objects.flavors] == ["a", "b", "c"]  # type: ignore[arg-type]
    labelled = plan_kueue(
        {
            **base,
            "cluster_queues": queues,
            "system_flavor": {"node_labels": {"role": "cpu"}, "cpus": 10, "memory_gib": 1},
        }  # type: ignore[typeddict-item]
    )
    assert labelled.objects.flavors[0] == {
        "apiVersion": "kueue.x-k8s.io/v1beta2",
        "kind": "ResourceFlavor",
        "metadata": {"name": SYSTEM},
        "spec": {"nodeLabels": {"role": "cpu"}},
    }
    shares = [flavor_quota(cq["spec"], SYSTEM) for cq in labelled.objects.cluster_queues]
    # 10 cores and 1 GiB over 3 queues: the first queue takes the remainder, the sum is exact.
    assert [s["cpu"] for s in shares] == ["3334m", "3333m", "3333m"]
    assert [s["memory"] for s in shares] == ["342Mi", "341Mi", "341Mi"]


def test_the_system_flavor_can_be_switched_off() -> None:
    args = {"cloud": "gke", "pools": [{"name": "l4", "machine_type": "g2-standard-8", "max_nodes": 1}]}
    with_pool = plan_kueue({**args, "system_pool": {"machine_type": "e2-standard-4"}})  # type: ignore[typeddict-item]
    assert [f["metadata"]["name"] for f in with_pool.objects.flavors] == [SYSTEM, "l4"]
    off = plan_kueue(
        {**args, "system_pool": {"machine_type": "e2-standard-4"}, "system_flavor": {"enabled": False}}  # type: ignore[typeddict-item]
    )
    assert [f["metadata"]["name"] for f in off.objects.flavors] == ["l4"]


# --- a priority class never bypasses Kueue -----------------------------------------------------------


def test_prod_chat_small_is_labelled_with_its_team_queue(plan_stack: Callable[..., Plan]) -> None:
    plan = plan_stack("prod")
    chat = next(s for s in plan.by_type(ISVC) if s.inputs["metadata"]["name"] == "chat-small")
    # prod gives chat-small only a priority; namespace 'serving' is team 'serving's, LocalQueue 'default'.
    assert chat.inputs["metadata"]["labels"] == {
        "kueue.x-k8s.io/queue-name": "default",
        "kueue.x-k8s.io/priority-class": "inference-high",
    }


def _prod_with_chat_small_in(namespace: str) -> dict[str, Any]:
    config = stack_file_config("prod")
    config["gpu-platform:kserve"]["services"][0]["namespace"] = namespace
    return dict(config)


def test_a_priority_outside_any_team_namespace_is_exit_2_from_the_cli(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / "Pulumi.yaml").write_text("name: gpu-platform\nruntime: python\nmain: __main__.py\n")
    (project / "__main__.py").write_text("from gpu_platform.stack import main\n\nmain()\n")
    (project / "Pulumi.web.yaml").write_text(yaml.safe_dump({"config": _prod_with_chat_small_in("web")}))
    rc = main(["plan", "--project", str(project), "--stack", "web", "--out", str(tmp_path / "out")])
    err = capsys.readouterr().err
    errors = [line for line in err.splitlines() if line.startswith("gpu-platform:")]
    assert rc == 2
    assert len(errors) == 1 and errors[0].startswith("gpu-platform:kserve.services[0].priorityClass: ")
    assert "namespace 'web' has no Kueue team" in errors[0] and "foundation-models, serving" in errors[0]
    assert not (tmp_path / "out" / "plan.json").exists()


def test_the_same_under_mocks_is_a_config_error_and_nothing_is_registered() -> None:
    config, secrets = engine_config("gpu-platform", _prod_with_chat_small_in("web"))
    monitor = start_mock_runtime("gpu-platform", "web", config, secrets)
    try:
        with pytest.raises(ConfigError) as err:
            run_under_mocks(stack_main)
        assert [path for path, _ in err.value.problems] == ["gpu-platform:kserve.services[0].priorityClass"]
        assert monitor.registrations == []
    finally:
        close_mock_runtime()


def test_the_component_asks_for_the_queue() -> None:
    pool = {"name": "l4", "machine_type": "g2-standard-8", "max_nodes": 1}
    monitor = start_mock_runtime("test", "test", {}, [])
    try:
        with pytest.raises(ArgumentsError) as err:
            run_under_mocks(
                lambda: GpuInferenceService(
                    "llm",
                    {
                        "pool": pool,
                        "cloud": "gke",
                        "model_format": "huggingface",
                        "priority_class": "training",
                    },  # type: ignore[typeddict-item]
                )
            )
        [(path, reason)] = err.value.problems
        assert path == "priority_class" and "needs queue" in reason
        assert monitor.registrations == []
    finally:
        close_mock_runtime()


# --- gang admission defaults -------------------------------------------------------------------------


def test_block_admission_is_kueues_default_false(plan_stack: Callable[..., Plan]) -> None:
    assert DEFAULT_BLOCK_ADMISSION is False
    release = plan_stack("prod").one("kubernetes:helm.sh/v3:Release", "kueue-helm")
    conf = yaml.safe_load(release.inputs["values"]["managerConfig"]["controllerManagerConfigYaml"])
    # prod's pools scale from zero and one is MIG-partitioned by the operator: 30 minutes.
    assert conf["waitForPodsReady"]["blockAdmission"] is False
    assert conf["waitForPodsReady"]["timeout"] == "30m"
