"""The Kueue component under mocks: Helm release values, the Configuration it carries, dependencies."""

from __future__ import annotations

import re
from typing import Any

import pulumi
import pytest
import yaml

from gpu_platform import versions
from gpu_platform.addons.deployment import Deployment
from gpu_platform.addons.kueue import wiring as kueue_wiring
from gpu_platform.addons.kueue.checks import KNOWN_FRAMEWORKS
from gpu_platform.addons.kueue.component import Kueue
from gpu_platform.addons.kueue.plan import helm_values, kueue_plan
from gpu_platform.addons.workloads.plan import kueue_integrations
from gpu_platform.args import KueueArgs
from gpu_platform.errors import ArgumentsError
from gpu_platform.offline import Plan, run_program
from gpu_platform.offline.recorder import close_mock_runtime, run_under_mocks, start_mock_runtime
from gpu_platform.stack import load_platform
from tests.conftest import REPO, upstream
from tests.support.plans import plan_kueue

RELEASE = "kubernetes:helm.sh/v3:Release"
KUEUE_TYPE = "kubernetes:kueue.x-k8s.io/v1beta2:"
H100 = {"gpu": "h100-80gb", "gpus_per_node": 8, "cpus_per_node": 208, "memory_gib_per_node": 1872}

ARGS: KueueArgs = {
    "cloud": "existing",
    "pools": [
        {"name": "h100", "max_nodes": 2, **H100},  # type: ignore[typeddict-item]
        {
            "name": "l4",
            "gpu": "l4",
            "gpus_per_node": 1,
            "cpus_per_node": 8,
            "memory_gib_per_node": 32,
            "max_nodes": 4,
        },
    ],
    "cluster_queues": [
        {"name": "training", "pools": ["h100"], "cohort": "ml"},
        {"name": "inference", "pools": ["l4"], "cohort": "ml"},
    ],
    "teams": [
        {"name": "research", "cluster_queue": "training"},
        {"name": "serving", "namespace": "prod", "cluster_queue": "inference", "queue_name": "online"},
    ],
    "integrations": ["batch/job", "jobset.x-k8s.io/jobset", "kubeflow.org/pytorchjob"],
}


def run(args: KueueArgs, captured: dict[str, Any] | None = None) -> Plan:
    def program() -> None:
        k = Kueue("kueue", args)
        if captured is not None:
            k.cluster_queue_names.apply(lambda v: captured.__setitem__("queues", v))
            k.local_queues.apply(lambda v: captured.__setitem__("local", v))

    return run_program(program)


@pytest.fixture(scope="module")
def plan() -> Plan:
    return run(ARGS)


def _key_paths(value: Any, prefix: tuple[str, ...] = ()) -> set[tuple[str, ...]]:
    if isinstance(value, dict) and value:
        out: set[tuple[str, ...]] = set()
        for k, v in value.items():
            path = (*prefix, k)
            out |= {path} | _key_paths(v, path)
        return out
    return set()


def test_release_is_the_pinned_oci_chart(plan: Plan) -> None:
    release = plan.one(RELEASE, "kueue-helm")
    assert release.inputs["chart"] == "oci://registry.k8s.io/kueue/charts/kueue" == versions.KUEUE.chart
    assert release.inputs["version"] == "0.19.2" == versions.KUEUE.version
    assert release.inputs["namespace"] == "kueue-system" and release.inputs["createNamespace"] is True
    assert release.inputs["name"] == "kueue"  # chart object names = Kueue's default webhook service name
    assert "repositoryOpts" not in release.inputs
    chart = yaml.safe_load(upstream("kueue", "Chart.yaml").read_text())
    assert chart["version"] == versions.KUEUE.version


def test_release_values_exist_in_the_chart_and_pin_the_release_image(plan: Plan) -> None:
    values = plan.one(RELEASE, "kueue-helm").inputs["values"]
    chart_values = yaml.safe_load(upstream("kueue", "values.yaml").read_text())
    unknown = _key_paths(values) - _key_paths(chart_values)
    assert not unknown, f"value keys not in the chart's values.yaml: {sorted(unknown)}"
    image = values["controllerManager"]["manager"]["image"]
    assert image == {
        "repository": "registry.k8s.io/kueue/kueue",
        "tag": "v0.19.2",
        "pullPolicy": "IfNotPresent",
    }
    staging = chart_values["controllerManager"]["manager"]["image"]
    assert image["repository"] != staging["repository"] and image["tag"] != staging["tag"]


def test_configuration_yaml_keeps_upstream_defaults_and_adds_gang_admission(plan: Plan) -> None:
    text = plan.one(RELEASE, "kueue-helm").inputs["values"]["managerConfig"]["controllerManagerConfigYaml"]
    conf = yaml.safe_load(text)
    default = yaml.safe_load(upstream("kueue", "config", "controller_manager_config.yaml").read_text())
    assert conf["apiVersion"] == default["apiVersion"] == "config.kueue.x-k8s.io/v1beta2"
    assert conf["kind"] == "Configuration"
    for key in ("health", "metrics", "webhook", "leaderElection", "controller", "clientConnection"):
        assert conf[key] == default[key], key
    wait = conf["waitForPodsReady"]
    # Pools scale from zero: 30m (Kueue's own default timeout); blockAdmission is Kueue's default, false.
    assert wait["timeout"] == "30m" and wait["blockAdmission"] is False
    assert wait["requeuingStrategy"]["timestamp"] == "Eviction"
    assert conf["integrations"] == {
        "frameworks": ["batch/job", "jobset.x-k8s.io/jobset", "kubeflow.org/pytorchjob"]
    }


def test_known_frameworks_are_the_charts_integrations() -> None:
    text = upstream("kueue", "values.yaml").read_text()
    block = text.split("frameworks:", 1)[1].split("externalFrameworks", 1)[0]
    names = re.findall(r'^\s*#?\s*- "([^"]+)"', block, flags=re.M)
    assert sorted(names) == sorted(KNOWN_FRAMEWORKS)


def test_every_custom_resource_depends_on_the_release(plan: Plan) -> None:
    release = plan.one(RELEASE, "kueue-helm")
    crs = plan.by_type(KUEUE_TYPE)
    assert {r.type.rsplit(":", 1)[1] for r in crs} == {
        "ResourceFlavor",
        "ClusterQueue",
        "LocalQueue",
        "WorkloadPriorityClass",
    }
    component = plan.one("gpu-platform:index:Kueue", "kueue")
    for r in crs:
        assert release.urn in r.depends_on, r.name
        assert r.parent == component.urn
    assert release.parent == component.urn


def test_cluster_queues_depend_on_their_flavors(plan: Plan) -> None:
    flavors = {r.inputs["metadata"]["name"]: r.urn for r in plan.by_type(KUEUE_TYPE + "ResourceFlavor")}
    for cq in plan.by_type(KUEUE_TYPE + "ClusterQueue"):
        used = {f["name"] for g in cq.inputs["spec"]["resourceGroups"] for f in g["flavors"]}
        assert used == {"h100", "l4"}  # own pool + the cohort peer's
        assert {flavors[f] for f in used} <= set(cq.depends_on)


# What the GPU Operator's pods request on one H100 node of an existing cluster whose driver the operator
# installs (the default assumed there): driver, toolkit, device plugin, GFD, DCGM exporter, MIG manager
# (an H100 is MIG-capable), validator, and the NFD worker of the operator's chart.
H100_OPERANDS_CPU_M = 200 + 50 + 50 + 50 + 100 + 50 + 10 + 5
H100_OPERANDS_MEMORY_MIB = 512 + 64 + 128 + 64 + 512 + 128 + 32 + 64


def test_quota_in_the_plan_is_declared_allocatable_less_the_operator_pods(plan: Plan) -> None:
    cq = plan.one(KUEUE_TYPE + "ClusterQueue", "kueue-cq-training").inputs["spec"]
    (group,) = cq["resourceGroups"]
    own = {r["name"]: r["nominalQuota"] for r in group["flavors"][0]["resources"]}
    assert group["flavors"][0]["name"] == "h100"
    # Existing cluster: the pool declares its nodes' allocatable (208 cores, 1872 GiB); 2 nodes.
    assert own == {
        "cpu": f"{2 * (208 * 1000 - H100_OPERANDS_CPU_M)}m",
        "memory": f"{2 * (1872 * 1024 - H100_OPERANDS_MEMORY_MIB)}Mi",
        "nvidia.com/gpu": 16,
    }
    assert cq["cohortName"] == "ml"


def test_local_queues_live_in_labelled_team_namespaces(plan: Plan) -> None:
    namespaces = {r.inputs["metadata"]["name"]: r for r in plan.by_type("kubernetes:core/v1:Namespace")}
    assert set(namespaces) == {"research", "prod"}
    queues = {r.inputs["metadata"]["name"]: r for r in plan.by_type(KUEUE_TYPE + "ClusterQueue")}
    for lq in plan.by_type(KUEUE_TYPE + "LocalQueue"):
        ns = lq.inputs["metadata"]["namespace"]
        cq = lq.inputs["spec"]["clusterQueue"]
        assert namespaces[ns].urn in lq.depends_on and queues[cq].urn in lq.depends_on
        selector = queues[cq].inputs["spec"]["namespaceSelector"]["matchLabels"]
        assert selector.items() <= namespaces[ns].inputs["metadata"]["labels"].items()
        assert lq.options["replaceOnChanges"] == ["spec.clusterQueue"] and lq.options["deleteBeforeReplace"]
    pairs = {
        (r.inputs["metadata"]["namespace"], r.inputs["metadata"]["name"], r.inputs["spec"]["clusterQueue"])
        for r in plan.by_type(KUEUE_TYPE + "LocalQueue")
    }
    assert pairs == {("research", "default", "training"), ("prod", "online", "inference")}


def test_priority_class_value_is_a_top_level_field(plan: Plan) -> None:
    pc = plan.one(KUEUE_TYPE + "WorkloadPriorityClass", "kueue-priority-training").inputs
    assert pc["value"] == 500 and "spec" not in pc
    assert pc["apiVersion"] == "kueue.x-k8s.io/v1beta2" and pc["kind"] == "WorkloadPriorityClass"


def test_outputs_name_the_queues() -> None:
    captured: dict[str, Any] = {}
    run(ARGS, captured)
    assert captured == {"queues": ["training", "inference"], "local": ["research/default", "prod/online"]}


def test_invalid_args_raise_before_anything_is_registered() -> None:
    bad: KueueArgs = {**ARGS, "cluster_queues": [{"name": "x", "pools": ["h200"]}], "teams": []}
    # h100 lacks gpus_per_node; the queue naming it reports nothing more about the broken pool.
    bad_pool: KueueArgs = {
        **ARGS,
        "pools": [{"name": "h100", "max_nodes": 2, "gpu": "h100-80gb"}, ARGS["pools"][1]],
    }
    monitor = start_mock_runtime("test", "test", {}, [])
    try:
        with pytest.raises(ArgumentsError) as err:
            run_under_mocks(lambda: Kueue("kueue", bad))
        assert err.value.problems == [
            ("cluster_queues[0].pools[0]", "'h200' is not a GPU pool; valid: h100, l4")
        ]
        with pytest.raises(ArgumentsError) as err:
            run_under_mocks(lambda: Kueue("kueue", bad_pool))
        assert [path for path, _ in err.value.problems] == ["pools[0].gpus_per_node"]
        assert monitor.registrations == []
    finally:
        close_mock_runtime()
    with pytest.raises(ArgumentsError) as err:
        plan_kueue({**ARGS, "cluster_queues": [{"name": "x", "queueing_strategy": "LIFO"}], "teams": []})  # type: ignore[typeddict-item]
    [(path, reason)] = err.value.problems
    assert path == "cluster_queues[0].queueing_strategy"
    assert "'LIFO'" in reason and "StrictFIFO" in reason


def test_typed_values_win_over_the_escape_hatch(plan: Plan) -> None:
    extra = {"controllerManager": {"replicas": 2, "manager": {"image": {"tag": "latest"}}}}
    planned = plan_kueue({**ARGS, "values": extra})
    for values in (planned.values, helm_values(planned.spec)):
        assert values["controllerManager"]["replicas"] == 2
        assert values["controllerManager"]["manager"]["image"]["tag"] == versions.KUEUE_IMAGE_TAG
    # Without the escape hatch the release carries exactly the typed values.
    assert plan.one(RELEASE, "kueue-helm").inputs["values"] == plan_kueue(ARGS).values


def _fixture_stack_config() -> dict[str, Any]:
    stack = yaml.safe_load(
        (REPO / "tests" / "fixtures" / "existing-minimal" / "Pulumi.test.yaml").read_text()
    )
    raw = {k.split(":", 1)[1]: v for k, v in stack["config"].items() if k.startswith("gpu-platform:")}
    raw["cluster"] = {"name": "onprem", "kubeconfig": {"secure": "v1:placeholder"}}
    return raw


def test_the_stack_config_and_the_component_args_give_the_same_plan() -> None:
    raw = _fixture_stack_config()
    raw["cluster"]["kubeconfig"] = "offline-placeholder"  # load_platform sees what the engine hands over
    kueue = {
        "waitForPodsReady": {"timeout": "20m", "requeuingStrategy": {"backoffLimitCount": -1}},
        "teams": [{"name": "ml", "clusterQueue": "gpu"}],
    }
    spec = load_platform({**raw, "kueue": kueue})
    assert spec.kueue is not None
    # The same settings given to the component (snake_case), over the same pools.
    args: KueueArgs = {
        "cloud": "existing",
        "pools": raw["gpuPools"],
        "gpu_operator": {"enabled": False},  # as the fixture's gpuOperator
        "wait_for_pods_ready": {"timeout": "20m", "requeuing_strategy": {"backoff_limit_count": -1}},
        "teams": [{"name": "ml", "cluster_queue": "gpu"}],
        # The stack derives the integrations from the controllers it installs (none here).
        "integrations": kueue_integrations([]),
        "gpu_health_checks": True,  # the stack's observability section is on, with its health checks
    }
    component = plan_kueue(args)
    assert component.spec == spec.kueue
    stack = kueue_plan(spec.pools, spec.kueue, versions.KUEUE.namespace)
    assert component.objects == stack.objects
    assert component.values == stack.values
    assert component.namespace == stack.namespace == versions.KUEUE.namespace

    plan = run_program(lambda: kueue_wiring.deploy(Deployment(spec, pulumi.ResourceOptions(), {})))
    cq = plan.one(KUEUE_TYPE + "ClusterQueue", "kueue-cq-gpu").inputs["spec"]
    # a100-80gb x 4 per node x 2 nodes, 64 vCPU and 512 GiB per node in the fixture, less the GPU health
    # checks' pod on each node (detector 20m/80Mi, remedy 10m/64Mi).
    quota = {r["name"]: r["nominalQuota"] for r in cq["resourceGroups"][0]["flavors"][0]["resources"]}
    assert quota == {
        "cpu": f"{2 * (64000 - 30)}m",
        "memory": f"{2 * (512 * 1024 - 144)}Mi",
        "nvidia.com/gpu": 8,
    }
    conf = yaml.safe_load(plan.one(RELEASE).inputs["values"]["managerConfig"]["controllerManagerConfigYaml"])
    assert conf["waitForPodsReady"]["timeout"] == "20m"
    # backoffLimitCount -1: requeue forever, which Kueue spells by leaving the field out.
    assert "backoffLimitCount" not in conf["waitForPodsReady"]["requeuingStrategy"]


def test_stack_program_installs_kueue_from_config(plan_stack: Any) -> None:
    # The repository's stack program (stacks/__main__.py) with the existing-minimal fixture's config.
    config = {f"gpu-platform:{k}": v for k, v in _fixture_stack_config().items()}
    config["gpu-platform:kueue"] = {"teams": [{"name": "ml", "clusterQueue": "gpu"}]}
    plan = plan_stack("test", REPO, config)
    release = plan.one(RELEASE, "kueue-helm")
    provider = plan.one("pulumi:providers:kubernetes")
    assert release.provider.startswith(provider.urn)
    (lq,) = plan.by_type(KUEUE_TYPE + "LocalQueue")
    assert lq.inputs["metadata"] == {"name": "default", "namespace": "ml"}
    assert lq.provider.startswith(provider.urn)
