"""The ``workloads`` and ``volcano`` stack sections: one pinned release per controller, Kueue's integrations equal
to what is installed (read back from the planned Kueue Configuration), refusals naming the key, and Volcano queues
whose capacity is the pools' advertised capacity."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest
import yaml

from gpu_platform import versions
from gpu_platform.addons.volcano.plan import SCHEDULER_CONFIG
from gpu_platform.addons.workloads.plan import OFF_GPU_NODES
from gpu_platform.offline import Plan
from gpu_platform.scheduling import pool_tolerations, selector_labels
from gpu_platform.sharing import advertised_resources
from gpu_platform.stack import load_platform
from tests.conftest import REPO, stack_raw_config
from tests.support.crds import problems_of
from tests.support.refusals import config_problems

RELEASE = "kubernetes:helm.sh/v3:Release"
QUEUE = "kubernetes:scheduling.volcano.sh/v1beta1:Queue"

BASE: dict[str, Any] = {
    "cloud": "gke",
    "cluster": {"name": "wl", "project": "example", "region": "us-central1"},
    "gpuPools": [
        {"name": "h100", "machineType": "a3-highgpu-8g", "maxNodes": 2, "zones": ["us-central1-a"]},
        {
            "name": "h100-mig",
            "machineType": "a3-highgpu-8g",
            "minNodes": 1,  # GKE's autoscaler cannot see operator MIG slices on an empty pool
            "maxNodes": 1,
            "zones": ["us-central1-a"],
            "sharing": {"mode": "mig", "mig": {"layout": "all-1g.10gb", "strategy": "mixed"}},
        },
        {
            "name": "l4",
            "machineType": "g2-standard-8",
            "maxNodes": 4,
            "zones": ["us-central1-a"],
            "sharing": {"mode": "time-slicing", "replicas": 4},
        },
    ],
}
ALL_CONTROLLERS = {
    "jobset": {"enabled": True},
    "leaderWorkerSet": {"enabled": True},
    "trainer": {"enabled": True},
    "kuberay": {"enabled": True, "values": {"replicas": 2}},
}


def config(**sections: Any) -> dict[str, Any]:
    return {**copy.deepcopy(BASE), **sections}


def _plan(plan_stack: Callable[..., Plan], raw: dict[str, Any]) -> Plan:
    return plan_stack("test", REPO, {f"gpu-platform:{k}": v for k, v in raw.items()})


def _frameworks(plan: Plan) -> list[str]:
    conf = plan.one(RELEASE, "kueue-helm").inputs["values"]["managerConfig"]["controllerManagerConfigYaml"]
    return yaml.safe_load(conf)["integrations"]["frameworks"]


# --- one release per controller, and Kueue's integrations follow -------------------------------------------


def test_every_controller_is_one_pinned_release_and_kueue_integrates_exactly_those(
    plan_stack: Callable[..., Plan],
) -> None:
    plan = _plan(plan_stack, config(workloads=ALL_CONTROLLERS))
    releases = {r.inputs["name"]: r.inputs for r in plan.by_type(RELEASE)}
    expected = {
        "jobset": versions.JOBSET,
        "lws": versions.LEADER_WORKER_SET,
        "kubeflow-trainer": versions.KUBEFLOW_TRAINER,
        "kuberay-operator": versions.KUBERAY_OPERATOR,
    }
    for name, pin in expected.items():
        assert (releases[name]["chart"], releases[name]["version"], releases[name]["namespace"]) == (
            pin.chart,
            pin.version,
            pin.namespace,
        )
    # Only the platform's own releases besides these: nothing installs a controller twice.
    # The observability section is on by default: its three releases come along.
    assert set(releases) == {
        *expected,
        "gpu-operator",
        "kueue",
        "prometheus-operator-crds",
        "kube-prometheus-stack",
        "node-problem-detector",
    }
    assert releases["kuberay-operator"]["values"]["replicas"] == 2  # the values escape hatch
    assert releases["kubeflow-trainer"]["values"]["jobset"]["install"] is False
    # GKE: no system-pool label to pin; the affinity keeps the controller off every GPU pool.
    assert releases["jobset"]["values"]["controller"]["nodeSelector"] == {}
    assert releases["jobset"]["values"]["controller"]["affinity"] == OFF_GPU_NODES
    assert _frameworks(plan) == [
        "batch/job",
        "pod",
        "deployment",
        "jobset.x-k8s.io/jobset",
        "leaderworkerset.x-k8s.io/leaderworkerset",
        "trainer.kubeflow.org/trainjob",
        "ray.io/rayjob",
        "ray.io/raycluster",
        "ray.io/rayservice",
    ]
    # Trainer waits for JobSet (depends_on a component = on its children).
    trainer = plan.one("gpu-platform:index:KubeflowTrainer")
    assert plan.one(RELEASE, "jobset-helm").urn in trainer.depends_on
    runtimes = plan.by_type("kubernetes:trainer.kubeflow.org/v1alpha1:ClusterTrainingRuntime")
    assert sorted(r.inputs["metadata"]["name"] for r in runtimes) == [
        "deepspeed-distributed",
        "torch-distributed",
    ]
    # Kueue after every controller it integrates: their CRDs exist when it starts, so no integration waits out
    # Kueue's backoff (up to 2 minutes, its TrainJob webhook refusing every TrainJob meanwhile).
    kueue = plan.one("gpu-platform:index:Kueue")
    for release in ("jobset-helm", "lws-helm", "kubeflow-trainer-helm", "kuberay-helm"):
        assert plan.one(RELEASE, release).urn in kueue.depends_on, release


def test_without_controllers_kueue_integrates_only_the_plain_kinds(plan_stack: Callable[..., Plan]) -> None:
    plan = _plan(plan_stack, config())
    assert _frameworks(plan) == ["batch/job", "pod", "deployment"]
    assert not [r for r in plan.by_type(RELEASE) if r.inputs["name"] in ("jobset", "kuberay-operator")]


def test_controllers_installed_elsewhere_are_integrated_not_installed() -> None:
    spec = load_platform(
        config(workloads={"jobset": {"enabled": True}, "installedElsewhere": ["kuberay", "trainingOperator"]})
    )
    assert spec.kueue is not None
    assert spec.kueue.integrations == (
        "batch/job",
        "pod",
        "deployment",
        "jobset.x-k8s.io/jobset",
        "ray.io/rayjob",
        "ray.io/raycluster",
        "ray.io/rayservice",
        "kubeflow.org/pytorchjob",
        "kubeflow.org/tfjob",
        "kubeflow.org/paddlejob",
        "kubeflow.org/xgboostjob",
        "kubeflow.org/jaxjob",
    )
    assert spec.workloads.installed == ("jobset",)


def test_an_integration_without_its_controller_is_refused_naming_the_key() -> None:
    raw = config(
        workloads={"jobset": {"enabled": True}},
        kueue={
            "integrations": ["batch/job", "pod", "deployment", "ray.io/raycluster", "jobset.x-k8s.io/jobset"]
        },
    )
    found = config_problems(raw)
    assert list(found) == ["gpu-platform:kueue.integrations[3]"]
    assert "needs KubeRay" in found["gpu-platform:kueue.integrations[3]"]
    assert "workloads.kuberay.enabled" in found["gpu-platform:kueue.integrations[3]"]
    # Declared as installed elsewhere, the same list is accepted as given.
    raw["workloads"]["installedElsewhere"] = ["kuberay"]
    assert load_platform(raw).kueue.integrations[3] == "ray.io/raycluster"  # type: ignore[union-attr]


def test_workloads_section_mistakes_name_their_keys() -> None:
    found = config_problems(
        config(
            workloads={
                "trainer": {"enabled": True, "runtimes": ["torch", "torch"]},
                "kuberay": {
                    "enabled": True,
                    "values": {"tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists"}]},
                },
                "installedElsewhere": ["kuberay", "mpiOperator", "mpiOperator"],
                "nodeSelector": {"pool": "not a value!"},
            }
        )
    )
    assert set(found) == {
        "gpu-platform:workloads.trainer.enabled",
        "gpu-platform:workloads.trainer.runtimes[1]",
        "gpu-platform:workloads.kuberay.values.tolerations[0]",
        "gpu-platform:workloads.installedElsewhere[0]",
        "gpu-platform:workloads.installedElsewhere[2]",
        "gpu-platform:workloads.nodeSelector.pool",
    }
    assert "JobSet" in found["gpu-platform:workloads.trainer.enabled"]


# --- Volcano ----------------------------------------------------------------------------------------------


VOLCANO_STACK = {
    "kueue": {
        "clusterQueues": [{"name": "serving", "pools": ["l4"]}],
        "teams": [{"name": "web", "clusterQueue": "serving"}],
    },
    "workloads": ALL_CONTROLLERS,
    "volcano": {
        "enabled": True,
        "teams": [
            {"name": "research", "pools": ["h100"]},
            {"name": "inference", "namespace": "infer", "pools": ["h100-mig"], "borrowing": False},
        ],
    },
}


def test_volcano_queues_hold_the_pools_advertised_capacity(plan_stack: Callable[..., Plan]) -> None:
    raw = config(**copy.deepcopy(VOLCANO_STACK))
    spec = load_platform(raw)
    plan = _plan(plan_stack, raw)
    queues = {q.inputs["metadata"]["name"]: q.inputs["spec"] for q in plan.by_type(QUEUE)}
    pools = {p.name: p for p in spec.pools}

    def advertised(*names: str) -> dict[str, int]:
        out: dict[str, int] = {}
        for n in names:
            for resource, units in advertised_resources(pools[n]).items():
                out[resource] = out.get(resource, 0) + units * pools[n].max_nodes
        return out

    gpu = lambda q: {k: v for k, v in q.items() if k.startswith("nvidia.com/")}  # noqa: E731
    # research owns h100 and may borrow the other Volcano pool (h100-mig): 2 x 8 GPUs, 1 x 8 x 7 MIG slices.
    assert gpu(queues["research"]["deserved"]) == advertised("h100") == {"nvidia.com/gpu": 16}
    assert gpu(queues["research"]["capability"]) == advertised("h100", "h100-mig")
    assert (
        gpu(queues["inference"]["capability"])
        == gpu(queues["inference"]["deserved"])
        == advertised("h100-mig")
    )
    assert advertised("h100-mig") == {"nvidia.com/mig-1g.10gb": 56}
    # cpu as Kueue counts it: the node's allocatable less the GPU Operator's pods, below the raw vCPUs.
    from gpu_platform.addons.kueue.plan import node_units

    assert spec.volcano is not None
    per_node, _ = node_units(pools["h100"], spec.volcano.capacity_basis, spec.volcano.pools)
    assert queues["research"]["deserved"]["cpu"] == f"{2 * per_node}m"
    assert 2 * per_node < pools["h100"].vcpus * 2 * 1000  # type: ignore[operator]
    for q in plan.by_type(QUEUE):
        assert problems_of(q.inputs) == []
    # The L4 pool is Kueue's: no Volcano queue counts it.
    assert all("nvidia.com/gpu.shared" not in q["capability"] for q in queues.values())
    # Volcano release: pinned, capacity plugin; the controllers gang-schedule through it and wait for it.
    volcano = plan.one(RELEASE, "volcano-helm")
    assert (volcano.inputs["chart"], volcano.inputs["version"]) == ("volcano", "1.15.1")
    assert volcano.inputs["values"]["custom"]["scheduler_config_override"] == SCHEDULER_CONFIG
    for token in ("KubeRay", "LeaderWorkerSet", "KubeflowTrainer"):
        assert volcano.urn in plan.one(f"gpu-platform:index:{token}").depends_on, token
    assert volcano.urn not in plan.one("gpu-platform:index:JobSet").depends_on
    assert plan.one(RELEASE, "kuberay-helm").inputs["values"]["batchScheduler"] == {"name": "volcano"}
    assert plan.one(RELEASE, "lws-helm").inputs["values"]["gangSchedulingManagement"] == {
        "schedulerProvider": "volcano"
    }
    # Kueue keeps the plain kinds and JobSet only: Volcano manages Ray, LWS and TrainJobs, cluster-wide.
    assert _frameworks(plan) == ["batch/job", "pod", "deployment", "jobset.x-k8s.io/jobset"]


def test_volcano_and_kueue_never_share_a_namespace_or_a_pool() -> None:
    raw = config(
        kueue={
            "clusterQueues": [{"name": "serving", "pools": ["l4"]}],
            "teams": [{"name": "web", "clusterQueue": "serving"}],
        },
        volcano={
            "enabled": True,
            "teams": [{"name": "research", "namespace": "web", "pools": ["h100", "l4"]}],
        },
    )
    found = config_problems(raw)
    assert set(found) == {"gpu-platform:volcano.teams[0].namespace", "gpu-platform:volcano.teams[0].pools[1]"}
    assert "kueue.teams[0]" in found["gpu-platform:volcano.teams[0].namespace"]
    assert "ClusterQueue 'serving'" in found["gpu-platform:volcano.teams[0].pools[1]"]
    # Kueue's default queue takes every pool: nothing left for Volcano, and the message says what to do.
    found = config_problems(config(volcano={"enabled": True, "teams": [{"name": "research"}]}))
    assert list(found) == ["gpu-platform:volcano.teams[0].pools"]
    assert "kueue.clusterQueues" in found["gpu-platform:volcano.teams[0].pools"]


def test_an_integration_volcano_gang_schedules_is_refused_for_kueue() -> None:
    raw = config(**copy.deepcopy(VOLCANO_STACK))
    raw["kueue"]["integrations"] = ["batch/job", "pod", "deployment", "ray.io/rayjob"]
    found = config_problems(raw)
    assert list(found) == ["gpu-platform:kueue.integrations[3]"]
    assert "Volcano" in found["gpu-platform:kueue.integrations[3]"]


def test_volcano_only_stack_exposes_the_pool_placements(plan_stack: Callable[..., Plan]) -> None:
    raw = config(kueue={"enabled": False}, volcano={"enabled": True, "teams": [{"name": "research"}]})
    spec = load_platform(raw)
    assert spec.volcano is not None and [p.name for p in spec.volcano.pools] == ["h100", "h100-mig", "l4"]
    plan = _plan(plan_stack, raw)
    assert not [r for r in plan.by_type(RELEASE) if r.inputs["name"] == "kueue"]
    [queue] = plan.by_type(QUEUE)
    # nvidia.com/gpu of the H100 pool (2 x 8) plus the time-sliced L4 pool's replicas, as its device plugin
    # advertises them (4 nodes x 1 GPU x 4 replicas); the MIG pool's slices by profile.
    assert advertised_resources(next(p for p in spec.pools if p.name == "l4")) == {"nvidia.com/gpu": 4}
    assert queue.inputs["spec"]["capability"]["nvidia.com/gpu"] == 16 + 16
    assert queue.inputs["spec"]["capability"]["nvidia.com/mig-1g.10gb"] == 56
    assert queue.inputs["spec"]["deserved"] == queue.inputs["spec"]["capability"]
    placements = {
        p.name: {"nodeSelector": selector_labels(p), "tolerations": pool_tolerations(p)} for p in spec.pools
    }
    volcano_placements = _volcano_placements(spec)
    assert volcano_placements == placements


def _volcano_placements(spec: Any) -> dict[str, Any]:
    from gpu_platform.addons.volcano.plan import volcano_plan
    from gpu_platform.addons.workloads.plan import controller_placement

    return volcano_plan(spec.volcano, controller_placement(spec.cloud)).placements


# --- the repository's stacks ------------------------------------------------------------------------------


@pytest.mark.parametrize("stack", ["dev", "staging", "prod"])
def test_repository_stacks_install_what_their_queues_integrate(stack: str) -> None:
    spec = load_platform(stack_raw_config(stack))
    assert spec.kueue is not None and spec.workloads.installed
    from gpu_platform.addons.workloads.checks import CONTROLLER_FRAMEWORKS

    integrated = set(spec.kueue.integrations)
    for controller, frameworks in CONTROLLER_FRAMEWORKS.items():
        assert (controller in spec.workloads.available()) == bool(integrated & set(frameworks)), controller


def test_the_configuration_in_docs_workloads_is_valid() -> None:
    import re
    import textwrap

    text = (REPO / "docs" / "workloads.md").read_text()
    [block] = [b for b in re.findall(r"```yaml\n(.*?)```", text, re.S) if "gpu-platform:workloads" in b]
    doc = yaml.safe_load(textwrap.dedent(block))
    spec = load_platform(config(**{k.split(":", 1)[1]: v for k, v in doc.items()}))
    assert spec.workloads.installed == ("jobset", "leaderWorkerSet", "trainer", "kuberay")
    assert spec.volcano is not None and [t.name for t in spec.volcano.teams] == ["research"]
    # Volcano gang-schedules LWS, Trainer and KubeRay: Kueue keeps the plain kinds, JobSet and the MPI Operator.
    assert spec.kueue is not None and spec.kueue.integrations == (
        "batch/job",
        "pod",
        "deployment",
        "jobset.x-k8s.io/jobset",
        "kubeflow.org/mpijob",
    )


def test_every_workload_release_of_a_stack_renders_with_its_vendored_chart(
    plan_stack: Callable[..., Plan],
) -> None:
    """The stack's own release inputs (chart, version, values, name, namespace) through Helm's engine
    (helm-python-sdk) with the vendored charts; CRD documents are skipped here (tests/addons/workloads/test_component.py checks
    them), which keeps this fast."""
    from gpu_platform.offline.render import _objects, chart_dir
    from tests.support.helm import CHARTS, render_texts

    plan = _plan(plan_stack, config(**copy.deepcopy(VOLCANO_STACK)))
    names = {"jobset", "lws", "kubeflow-trainer", "kuberay-operator", "volcano"}
    rendered: dict[str, list[dict[str, Any]]] = {}
    for release in plan.by_type(RELEASE):
        inputs = release.inputs
        if inputs["name"] not in names:
            continue
        texts = render_texts(chart_dir(CHARTS, inputs), inputs["values"], inputs["name"], inputs["namespace"])
        light = {path: text for path, text in texts.items() if "kind: CustomResourceDefinition" not in text}
        rendered[inputs["name"]] = _objects(light)
    assert set(rendered) == names
    [lws_config] = [
        o
        for o in rendered["lws"]
        if o["kind"] == "ConfigMap" and o["metadata"]["name"] == "lws-manager-config"
    ]
    config_yaml = yaml.safe_load(lws_config["data"]["controller_manager_config.yaml"])
    assert config_yaml["gangSchedulingManagement"] == {"schedulerProvider": "volcano"}
    [scheduler] = [o for o in rendered["volcano"] if o["metadata"]["name"] == "volcano-scheduler-configmap"]
    assert scheduler["data"]["volcano-scheduler.conf"].strip() == SCHEDULER_CONFIG.strip()
    [operator] = [o for o in rendered["kuberay-operator"] if o["kind"] == "Deployment"]
    assert "--batch-scheduler=volcano" in operator["spec"]["template"]["spec"]["containers"][0]["args"]
    for release, objects in rendered.items():
        deployments = [o for o in objects if o["kind"] == "Deployment"]
        assert deployments, release
        for d in deployments:
            pod = d["spec"]["template"]["spec"]
            assert pod["affinity"] == OFF_GPU_NODES, d["metadata"]["name"]
            assert "tolerations" not in pod, d["metadata"]["name"]


def test_switching_the_workload_layer_off_keeps_crds_namespaces_and_data() -> None:
    """Day 2 (docs/day2.md): prod without Trainer and JobSet; the diff deletes no namespace and no release that
    holds CRDs (Trainer's is retained), exactly as ``gpu-platform diff`` judges it."""
    from tests.offline.test_day2 import _diff, _gone, assert_safe

    def edit(cfg: dict[str, Any]) -> None:
        cfg["gpu-platform:workloads"] = {}

    d = _diff("prod", edit)
    assert_safe(d)
    removed = {c.name: c for c in d.changes if c.type == RELEASE and c.action == "removed"}
    assert set(removed) == {"jobset-helm", "kubeflow-trainer-helm"}
    assert removed["kubeflow-trainer-helm"].retained and not _gone(removed["kubeflow-trainer-helm"])
    assert not [c for c in d.changes if c.type == "kubernetes:core/v1:Namespace" and _gone(c)]
