"""The workload controllers and Volcano: pinned releases whose values exist upstream and render with the vendored
charts (helm-python-sdk), controllers on the system pool and never on GPU nodes, Volcano gang scheduling, what
outlives a component, and Trainer's runtimes created from the upstream manifests."""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Callable
from importlib import resources
from typing import Any

import pytest
import yaml

from gpu_platform import versions
from gpu_platform.addons.volcano.component import Volcano
from gpu_platform.addons.volcano.plan import SCHEDULER_CONFIG, helm_values, volcano_args_plan
from gpu_platform.addons.workloads.component import JobSet, KubeflowTrainer, KubeRay, LeaderWorkerSet
from gpu_platform.addons.workloads.plan import (
    OFF_GPU_NODES,
    ControllerPlan,
    controller_placement,
    controller_plan,
    kubeflow_trainer_plan,
    kuberay_plan,
    leader_worker_set_plan,
    trainer_runtime,
)
from gpu_platform.errors import ArgumentsError
from gpu_platform.offline import Plan
from gpu_platform.scheduling import POOL_LABEL
from tests.conftest import upstream
from tests.support.chart_values import missing_keys
from tests.support.crds import problems_of
from tests.support.helm import render_chart

RELEASE = "kubernetes:helm.sh/v3:Release"
NAMESPACE = "kubernetes:core/v1:Namespace"
CONTROLLERS = ("jobset", "leaderWorkerSet", "trainer", "kuberay")
CHART_DIRS = {
    "jobset": "jobset-0.12.0",
    "leaderWorkerSet": "lws-0.10.0",
    "trainer": "kubeflow-trainer-2.3.0",
    "kuberay": "kuberay-operator-1.7.0",
}
AKS_SYSTEM = {"kubernetes.azure.com/mode": "system"}
H100 = {
    "name": "h100",
    "gpu": "h100-80gb",
    "gpus_per_node": 8,
    "cpus_per_node": 208,
    "memory_gib_per_node": 1872,
    "max_nodes": 2,
}


@functools.cache
def _rendered(controller: str, gang_scheduler: str) -> tuple[ControllerPlan, list[dict[str, Any]]]:
    plan = controller_plan(controller, controller_placement("aks"), gang_scheduler=gang_scheduler)
    return plan, render_chart(CHART_DIRS[controller], plan.values, plan.release_name, plan.namespace)


def _pod_specs(objects: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {
        f"{o['kind']}/{o['metadata']['name']}": o["spec"]["template"]["spec"]
        for o in objects
        if o["kind"] in ("Deployment", "Job", "DaemonSet", "StatefulSet")
    }


# --- values and rendering -----------------------------------------------------------------------------


@pytest.mark.parametrize("controller", CONTROLLERS)
def test_every_value_the_library_sets_exists_in_the_chart(controller: str) -> None:
    for gang in ("kueue", "volcano"):
        plan = controller_plan(controller, controller_placement("gke"), gang_scheduler=gang)
        chart = yaml.safe_load(upstream("charts", CHART_DIRS[controller], "values.yaml").read_text())
        assert missing_keys(plan.values, chart) == [], (controller, gang)
    volcano = yaml.safe_load(upstream("charts", "volcano-1.15.1", "values.yaml").read_text())
    assert missing_keys(helm_values(controller_placement("eks")), volcano) == []


@pytest.mark.parametrize("controller", CONTROLLERS)
def test_each_release_renders_with_its_pinned_chart_on_the_system_pool(controller: str) -> None:
    plan, objects = _rendered(controller, "kueue")
    assert (
        plan.pin
        is {
            "jobset": versions.JOBSET,
            "leaderWorkerSet": versions.LEADER_WORKER_SET,
            "trainer": versions.KUBEFLOW_TRAINER,
            "kuberay": versions.KUBERAY_OPERATOR,
        }[controller]
    )
    assert CHART_DIRS[controller] == f"{plan.pin.chart.rsplit('/', 1)[-1]}-{plan.pin.version}"
    pods = _pod_specs(objects)
    assert pods, "the chart rendered no controller"
    for where, spec in pods.items():
        assert spec.get("nodeSelector") == AKS_SYSTEM, where
        assert spec.get("affinity") == OFF_GPU_NODES, where
        assert not any(t.get("key") in ("nvidia.com/gpu", None) for t in spec.get("tolerations") or []), where
        for container in spec["containers"]:
            image = container["image"]
            assert not image.endswith((":main", ":latest")) and ":" in image.rsplit("/", 1)[-1], image
    namespaced = [o for o in objects if o["metadata"].get("namespace")]
    assert {o["metadata"]["namespace"] for o in namespaced} == {plan.namespace}


def test_release_images_replace_the_charts_development_tags() -> None:
    images = {
        c: [
            c_["image"] for spec in _pod_specs(_rendered(c, "kueue")[1]).values() for c_ in spec["containers"]
        ]
        for c in CONTROLLERS
    }
    assert images["jobset"] == ["registry.k8s.io/jobset/jobset:v0.12.0"]
    assert images["leaderWorkerSet"] == ["registry.k8s.io/lws/lws:v0.10.0"]
    assert images["trainer"] == ["ghcr.io/kubeflow/trainer/trainer-controller-manager:v2.3.0"]
    assert images["kuberay"] == ["quay.io/kuberay/operator:v1.7.0"]
    # The charts as vendored really carry development images: without the pins they would run.
    jobset = yaml.safe_load(upstream("charts", "jobset-0.12.0", "values.yaml").read_text())
    lws = yaml.safe_load(upstream("charts", "lws-0.10.0", "values.yaml").read_text())
    assert jobset["image"]["tag"] == lws["image"]["manager"]["tag"] == "main"


def test_volcano_gang_scheduling_is_configured_in_each_controller() -> None:
    _, lws = _rendered("leaderWorkerSet", "volcano")
    [config] = [o for o in lws if o["kind"] == "ConfigMap" and "controller_manager_config.yaml" in o["data"]]
    assert yaml.safe_load(config["data"]["controller_manager_config.yaml"])["gangSchedulingManagement"] == {
        "schedulerProvider": "volcano"
    }
    _, kuberay = _rendered("kuberay", "volcano")
    [operator] = _pod_specs(kuberay).values()
    assert "--batch-scheduler=volcano" in operator["containers"][0]["args"]
    for runtime in ("torch", "deepspeed"):
        obj = trainer_runtime(runtime, "volcano")
        assert obj["spec"]["podGroupPolicy"] == {"volcano": {}}
        for rj in obj["spec"]["template"]["spec"]["replicatedJobs"]:
            assert rj["template"]["spec"]["template"]["spec"]["schedulerName"] == "volcano"
    # Under Kueue none of it: Kueue admits the whole workload itself.
    _, kuberay_kueue = _rendered("kuberay", "kueue")
    [plain] = _pod_specs(kuberay_kueue).values()
    assert not any(a.startswith("--batch-scheduler") for a in plain["containers"][0]["args"])
    assert "podGroupPolicy" not in trainer_runtime("torch")["spec"]


def test_trainer_renders_without_its_jobset_subchart_or_runtime_installer() -> None:
    plan, objects = _rendered("trainer", "kueue")
    assert plan.values["jobset"]["install"] is False
    kinds = {(o["kind"], o["metadata"]["name"]) for o in objects}
    # CRDs are chart templates (crds.enabled): part of the release.
    assert {k for k in kinds if k[0] == "CustomResourceDefinition"} == {
        ("CustomResourceDefinition", "trainjobs.trainer.kubeflow.org"),
        ("CustomResourceDefinition", "trainingruntimes.trainer.kubeflow.org"),
        ("CustomResourceDefinition", "clustertrainingruntimes.trainer.kubeflow.org"),
    }
    # No hook Job that needs egress to the Alpine mirrors, no JobSet controller of its own.
    assert not [k for k in kinds if k[0] == "Job" or "runtimes-installer" in k[1]]
    assert not [k for k in kinds if k[0] == "Deployment" and "jobset" in k[1]]


def test_trainer_runtimes_are_the_upstream_manifests() -> None:
    for runtime, pin in (
        ("torch", versions.TRAINER_TORCH_RUNTIME),
        ("deepspeed", versions.TRAINER_DEEPSPEED_RUNTIME),
    ):
        shipped = resources.files("gpu_platform").joinpath("data", pin.file).read_bytes()
        vendored = upstream("kubeflow-trainer", "base", "runtimes", pin.path.rsplit("/", 1)[-1]).read_bytes()
        assert shipped == vendored and hashlib.sha256(shipped).hexdigest() == pin.sha256
        upstream_obj = yaml.safe_load(vendored)
        for gang in ("kueue", "volcano"):
            ours = trainer_runtime(runtime, gang)
            assert problems_of(ours) == [], (runtime, gang)
            assert ours["metadata"]["name"] == upstream_obj["metadata"]["name"]
            assert ours["spec"]["mlPolicy"] == upstream_obj["spec"]["mlPolicy"]
    images = {
        c["image"]
        for rj in trainer_runtime("deepspeed")["spec"]["template"]["spec"]["replicatedJobs"]
        for c in rj["template"]["spec"]["template"]["spec"]["containers"]
    }
    assert images == {"ghcr.io/kubeflow/trainer/deepspeed-runtime:v2.3.0"}  # overlays/runtimes newTag
    [torch] = [
        c["image"]
        for rj in trainer_runtime("torch")["spec"]["template"]["spec"]["replicatedJobs"]
        for c in rj["template"]["spec"]["template"]["spec"]["containers"]
    ]
    assert torch == "pytorch/pytorch:2.13.0-cuda13.0-cudnn9-runtime"  # as upstream: needs a 580+ driver


def test_volcano_renders_with_the_capacity_plugin_on_the_system_pool() -> None:
    values = helm_values(controller_placement("aks"))
    objects = render_chart("volcano-1.15.1", values, "volcano", "volcano-system")
    [conf] = [
        o
        for o in objects
        if o["kind"] == "ConfigMap" and o["metadata"]["name"] == "volcano-scheduler-configmap"
    ]
    scheduler = yaml.safe_load(conf["data"]["volcano-scheduler.conf"])
    plugins = [p["name"] for tier in scheduler["tiers"] for p in tier["plugins"]]
    assert "capacity" in plugins and "proportion" not in plugins
    assert "reclaim" in scheduler["actions"]
    assert conf["data"]["volcano-scheduler.conf"].strip() == SCHEDULER_CONFIG.strip()
    for where, spec in _pod_specs(objects).items():
        assert spec.get("nodeSelector") == AKS_SYSTEM, where
        assert spec.get("affinity") == OFF_GPU_NODES, where
        for container in spec["containers"]:
            assert container["image"].endswith(":v1.15.1"), container["image"]
    crds = {o["metadata"]["name"] for o in objects if o["kind"] == "CustomResourceDefinition"}
    assert {
        "queues.scheduling.volcano.sh",
        "podgroups.scheduling.volcano.sh",
        "jobs.batch.volcano.sh",
    } <= crds


# --- components -------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("cls", "release", "namespace", "kept"),
    [
        (JobSet, "jobset", "jobset-system", False),
        (LeaderWorkerSet, "lws", "lws-system", False),
        (KubeflowTrainer, "kubeflow-trainer", "kubeflow-system", True),
        (KubeRay, "kuberay-operator", "kuberay-system", False),
    ],
)
def test_components_keep_their_namespace_and_pin_one_release(
    run_component: Callable[..., Plan], cls: Any, release: str, namespace: str, kept: bool
) -> None:
    plan = run_component(lambda: cls("c", {"node_selector": {"pool": "ops"}}))
    [rel] = plan.by_type(RELEASE)
    pin = rel.inputs
    assert (pin["name"], pin["namespace"]) == (release, namespace)
    assert (pin["chart"], pin["version"]) in {(c.chart, c.version) for c in versions.ALL_CHARTS}
    [ns] = plan.by_type(NAMESPACE)
    assert ns.inputs["metadata"]["name"] == namespace and ns.options["retainOnDelete"] is True
    assert ns.urn in rel.depends_on
    # CRDs as chart templates (Trainer): the release itself outlives the component.
    assert bool(rel.options.get("retainOnDelete")) is kept


def test_trainer_component_creates_its_runtimes_after_the_release(run_component: Callable[..., Plan]) -> None:
    plan = run_component(lambda: KubeflowTrainer("trainer", {"runtimes": ["torch"]}))
    rel = plan.one(RELEASE)
    [runtime] = plan.by_type("kubernetes:trainer.kubeflow.org/v1alpha1:ClusterTrainingRuntime")
    assert runtime.inputs["metadata"]["name"] == "torch-distributed"
    assert rel.urn in runtime.depends_on
    assert rel.inputs["values"]["runtimes"]["torchDistributed"] == {"enabled": False}


def test_volcano_component_queues_follow_the_release(run_component: Callable[..., Plan]) -> None:
    args = {"cloud": "existing", "pools": [H100], "teams": [{"name": "research"}]}
    plan = run_component(lambda: Volcano("volcano", args))  # type: ignore[arg-type]
    rel = plan.one(RELEASE)
    assert (rel.inputs["chart"], rel.inputs["version"]) == ("volcano", "1.15.1")
    assert rel.inputs["repositoryOpts"]["repo"] == versions.VOLCANO.repo
    assert rel.options["retainOnDelete"] is True
    [queue] = plan.by_type("kubernetes:scheduling.volcano.sh/v1beta1:Queue")
    assert rel.urn in queue.depends_on
    assert queue.inputs["spec"]["capability"]["nvidia.com/gpu"] == 16
    assert problems_of(queue.inputs) == []
    names = {ns.inputs["metadata"]["name"]: ns for ns in plan.by_type(NAMESPACE)}
    assert set(names) == {"volcano-system", "research"}
    assert all(ns.options["retainOnDelete"] for ns in names.values())


# --- argument checks --------------------------------------------------------------------------------------


def test_a_values_escape_hatch_cannot_put_a_controller_on_gpu_nodes() -> None:
    gpu = {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}
    with pytest.raises(ArgumentsError) as err:
        kuberay_plan({"values": {"tolerations": [{"key": "dedicated", "operator": "Exists"}, gpu]}})
    assert [e["property_path"] for e in err.value.errors or []] == ["values.tolerations[1]"]
    with pytest.raises(ArgumentsError) as err:
        volcano_args_plan(
            {
                "cloud": "existing",
                "pools": [H100],
                "values": {"custom": {"default_tolerations": [{"operator": "Exists"}]}},
            }
        )
    assert [e["property_path"] for e in err.value.errors or []] == ["values.custom.default_tolerations[0]"]
    # Everything else in values reaches the chart, under the library's settings.
    plan = leader_worker_set_plan(
        {"values": {"replicaCount": 2, "nodeSelector": {"x": "y"}}, "node_selector": {"pool": "ops"}}
    )
    assert plan.values["replicaCount"] == 2 and plan.values["nodeSelector"] == {"x": "y", "pool": "ops"}


def test_component_arguments_are_checked() -> None:
    with pytest.raises(ArgumentsError) as err:
        kubeflow_trainer_plan(
            {
                "runtimes": ["torch", "jax", "torch"],
                "gang_scheduler": "yunikorn",
                "node_selector": {"bad key!": "x"},
            }  # type: ignore[list-item, typeddict-item]
        )
    paths = sorted(e["property_path"] for e in err.value.errors or [])
    assert paths == ["gang_scheduler", "node_selector.bad key!", "runtimes[1]"]
    with pytest.raises(ArgumentsError) as err:
        volcano_args_plan(
            {
                "cloud": "existing",
                "pools": [H100],
                "teams": [{"name": "default"}, {"name": "a", "pools": ["h100", "l4"]}],
            }
        )
    found = {e["property_path"]: e["reason"] for e in err.value.errors or []}
    assert set(found) == {"teams[0].name", "teams[1].pools[0]", "teams[1].pools[1]"}
    assert "already the deserved share of team 'default'" in found["teams[1].pools[0]"]
    assert found["teams[1].pools[1]"].startswith("'l4' is not a GPU pool")


def test_pool_placement_is_what_the_pool_nodes_carry() -> None:
    from gpu_platform.addons.workloads.plan import pool_placements

    placement = pool_placements(
        "existing", [H100, {**H100, "name": "tainted", "taints": [{"key": "team", "value": "a"}]}]
    )
    assert placement["h100"] == {
        "nodeSelector": {POOL_LABEL: "h100", "gpu-platform.io/gpu": "h100-80gb"},
        "tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}],
    }
    assert placement["tainted"]["tolerations"][1] == {
        "key": "team",
        "operator": "Equal",
        "value": "a",
        "effect": "NoSchedule",
    }
    with pytest.raises(ArgumentsError):
        pool_placements("existing", [{**H100, "gpu": "h100-81gb"}])


def test_controllers_land_on_the_system_pool_of_the_librarys_clusters(
    run_component: Callable[..., Plan],
) -> None:
    """AKS labels System-mode nodes ``kubernetes.azure.com/mode=system``; GKE and EKS have no such label, and the
    library's clusters there have one untainted pool, the system pool, which is where the affinity leaves them."""
    from gpu_platform import AksCluster, EksCluster, GkeCluster
    from gpu_platform.cloud_facts import PROFILES

    aks = run_component(lambda: AksCluster("c", {}))
    [cluster] = aks.by_type("azure-native:containerservice:ManagedCluster")
    assert [p["mode"] for p in cluster.inputs["agentPoolProfiles"]] == ["System"]
    assert {c: dict(p.system_pool_labels) for c, p in PROFILES.items() if p.system_pool_labels} == {
        "aks": AKS_SYSTEM
    }
    gke = run_component(lambda: GkeCluster("c", {"location": "us-central1", "project": "p"}))
    [pool] = gke.by_type("gcp:container/nodePool:NodePool")
    assert not pool.inputs["nodeConfig"].get("taints") and POOL_LABEL not in pool.inputs["nodeConfig"].get(
        "labels", {}
    )
    eks = run_component(lambda: EksCluster("c", {}))
    [group] = eks.by_type("aws:eks/nodeGroup:NodeGroup")
    assert not group.inputs.get("taints") and POOL_LABEL not in group.inputs.get("labels", {})
    assert controller_placement("gke").node_selector == controller_placement("eks").node_selector == {}
    assert controller_placement("existing", {"role": "ops"}).node_selector == {"role": "ops"}
