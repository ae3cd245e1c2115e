"""``GpuPlatform``: the stack file as one component. Given a stack file's ``gpu-platform:`` keys as arguments,
it runs the same checks and creates the same resources, with the same inputs, each under the component."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
import yaml

from gpu_platform import ArgumentsError, GpuPlatform, GpuPlatformArgs
from gpu_platform.offline import Plan, run_plan, run_program
from gpu_platform.offline.runner import load_project, stack_config
from tests.conftest import REPO

TOKEN = "gpu-platform:index:GpuPlatform"

STACKS = [
    (REPO, "dev"),
    (REPO, "staging"),
    (REPO, "prod"),
    (REPO / "examples" / "existing-cluster", "example"),
    (REPO / "examples" / "openshift-olm", "example"),
    (REPO / "examples" / "yandex-gpu-node-groups", "example"),
]
"""Every stack file the repository plans with the stack program (``gpu_platform.stack.main``)."""


def stack_args(project_dir: Path, stack: str) -> tuple[dict[str, Any], dict[str, str], str]:
    """The stack file's ``gpu-platform:`` keys as component arguments, its other config, its project name."""
    project = load_project(project_dir)
    config, _ = stack_config(project, stack)
    args: dict[str, Any] = {}
    other: dict[str, str] = {}
    for key, text in config.items():
        ns, _, name = key.partition(":")
        if ns != "gpu-platform":
            other[key] = text
            continue
        try:
            value = json.loads(text)
        except ValueError:
            value = text
        args[name] = value if isinstance(value, (dict, list)) else text
    return args, other, project.name


def comparable(plan: Plan) -> list[tuple[str, str, str, str]]:
    """Every resource but the ``GpuPlatform`` itself as (type, name, inputs, provider), URNs with the
    component's type left out of their type chains: what differs between the two programs is only that."""

    def strip(text: str) -> str:
        return text.replace(f"{TOKEN}$", "")

    return sorted(
        (strip(r.type), r.name, strip(json.dumps(r.inputs, sort_keys=True)), strip(r.provider))
        for r in plan.resources
        if r.type != TOKEN
    )


@pytest.mark.parametrize(("project_dir", "stack"), STACKS, ids=[f"{p.name}-{s}" for p, s in STACKS])
def test_gpu_platform_creates_what_the_stack_file_creates(project_dir: Path, stack: str) -> None:
    args, other, project = stack_args(project_dir, stack)
    from_stack = run_plan(project_dir, stack)
    from_component = run_program(
        lambda: GpuPlatform("platform", args),  # type: ignore[arg-type]  # camelCase keys, as in the file
        config=other,
        project=project,
        stack=stack,
    )
    # What an example's program adds beside the stack's main() (OpenShift's GPU MachineSets) is not the platform.
    extra = "gpu-platform:index:OpenShiftGpuMachineSet"
    own = [r for r in from_stack.resources if r.type != extra and extra not in r.urn]
    assert comparable(from_component) == comparable(replace(from_stack, resources=own))
    # Every resource hangs under the component: none is left at the top of the stack.
    [platform] = from_component.by_type(TOKEN)
    roots = [r for r in from_component.resources if r.type not in (TOKEN, "pulumi:pulumi:Stack")]
    by_urn = {r.urn: r for r in from_component.resources}
    for r in roots:
        chain = r
        while chain.parent in by_urn and chain.parent != platform.urn:
            chain = by_urn[chain.parent]
        assert chain.parent == platform.urn, r.urn


DEV_PYTHON: GpuPlatformArgs = {
    "cloud": "gke",
    "cluster": {
        "name": "gpu-dev",
        "project": "gpu-platform-dev",
        "region": "us-central1",
        "kubernetes_version": "1.33",
        "system_pool": {"machine_type": "e2-standard-4", "min_nodes": 1, "max_nodes": 3},
    },
    "gpu_pools": [
        {
            "name": "l4-spot",
            "machine_type": "g2-standard-8",
            "max_nodes": 3,
            "spot": True,
            "zones": ["us-central1-a"],
            "sharing": {"mode": "time-slicing", "replicas": 4},
        }
    ],
    "kueue": {"cluster_queues": [{"name": "dev"}], "teams": [{"name": "ml-dev", "cluster_queue": "dev"}]},
}


def test_one_pool_description_feeds_node_pool_operator_and_kueue() -> None:
    """The time-sliced pool's nodes point at a device-plugin config the operator defines, with the replicas
    the pool asked for, and Kueue's quota counts the shared units."""
    plan = run_program(
        lambda: GpuPlatform("platform", DEV_PYTHON), config={"gcp:project": "gpu-platform-dev"}
    )
    node_pool = plan.one("gcp:container/nodePool:NodePool", "l4-spot-nodepool")
    labels = node_pool.inputs["nodeConfig"]["labels"]
    assert labels["nvidia.com/device-plugin.config"] == "l4-spot-time-slicing-4"
    configmap = plan.one("kubernetes:core/v1:ConfigMap", "gpu-operator-device-plugin-config")
    config = yaml.safe_load(configmap.inputs["data"]["l4-spot-time-slicing-4"])
    assert config["sharing"]["timeSlicing"]["resources"] == [{"name": "nvidia.com/gpu", "replicas": 4}]
    operator = plan.one("kubernetes:helm.sh/v3:Release", "gpu-operator-helm")
    assert operator.inputs["values"]["devicePlugin"]["config"]["name"] == configmap.inputs["metadata"]["name"]
    queue = plan.one("kubernetes:kueue.x-k8s.io/v1beta2:ClusterQueue", "kueue-cq-dev")
    [gpu_flavor] = [
        f for g in queue.inputs["spec"]["resourceGroups"] for f in g["flavors"] if f["name"] == "l4-spot"
    ]
    gpus = {r["name"]: r["nominalQuota"] for r in gpu_flavor["resources"]}["nvidia.com/gpu"]
    assert gpus == 3 * 1 * 4  # three nodes of one L4, each shared four ways


def test_python_problems_are_spelled_for_python_and_name_the_component() -> None:
    bad: dict[str, Any] = json.loads(json.dumps(DEV_PYTHON))
    bad["gpu_pools"][0]["max_nodez"] = 3
    bad["kueue"]["teams"][0]["cluster_queue"] = "nope"
    bad["gpu_operatr"] = {}
    with pytest.raises(ArgumentsError) as err:
        run_program(lambda: GpuPlatform("platform", bad))  # type: ignore[arg-type]
    text = str(err.value)
    head = "GpuPlatform 'platform': "
    assert f"{head}gpu_operatr: unknown key 'gpu_operatr'; did you mean 'gpu_operator'?" in text
    assert f"{head}gpu_pools[0].max_nodez: unknown key 'max_nodez'; did you mean 'max_nodes'?" in text
    assert f"{head}kueue.teams[0].cluster_queue:" in text
    assert "gpuPools" not in text and "gpu-platform:" not in text, text


def test_an_existing_clusters_kubeconfig_may_be_an_output_and_stays_secret() -> None:
    """``config.require_secret("kubeconfig")`` is an Output: it reaches the Kubernetes provider as a secret,
    while every other argument must be plain (it decides which resources exist)."""
    args, other, _ = stack_args(REPO / "examples" / "existing-cluster", "example")

    def program() -> None:
        import pulumi

        cluster = {**args["cluster"], "kubeconfig": pulumi.Output.secret("apiVersion: v1\nkind: Config\n")}
        GpuPlatform("platform", {**args, "cluster": cluster})  # type: ignore[typeddict-item]

    plan = run_program(program, config=other)
    provider = plan.one("pulumi:providers:kubernetes")
    assert provider.inputs["kubeconfig"] == "[secret]"
    [platform] = plan.by_type(TOKEN)
    assert provider.parent == platform.urn


def test_other_outputs_are_refused_with_the_reason() -> None:
    import pulumi

    def program() -> None:
        GpuPlatform("platform", {**DEV_PYTHON, "cuda_version": pulumi.Output.from_input("12.8")})  # type: ignore[typeddict-item]

    with pytest.raises(ArgumentsError) as err:
        run_program(program)
    assert str(err.value).startswith("GpuPlatform 'platform': cuda_version: "), str(err.value)
