"""``pulumi up`` of a cloud stack's Kubernetes half: ``stacks/dev`` (GKE, one spot L4 pool time-sliced 4 ways),
its cluster's outputs given, against a local control plane, through the Automation API: ``up``, a day-2 change
of the pool's time-slicing, then ``destroy``.

The cluster and the node pool are Google's (no cloud here), so the program is the stack's own with the cloud's
half replaced by what it returns: ``Infrastructure`` of the local kubeconfig, handed to
``stack.program.deploy_on_cluster``, which the full program runs after the cloud's half. So what is created
is what the GKE stack creates on its cluster, with the same names and URNs: the GPU Operator with GKE's driver
values, the COS driver installer DaemonSet in ``kube-system``, the quota GKE needs for ``system-node-critical``
pods outside it, the device plugin's time-slicing ConfigMap, Kueue with the pool's flavor and quota, JobSet and
KubeRay. KServe and observability are left out as in ``test_pulumi_up`` (their webhooks need servers this
cluster cannot run). The pool's nodes are kwok nodes with the labels and taints GKE gives them
(``nodeSetup``-equivalent, from the plan).

It runs where ``test_pulumi_up`` runs (``make test``, the binaries of ``make pulumi-tools`` built on a first run),
with its own control plane; the harness pieces (Kueue on loopback, the chart mirror, the watchdog) are that
module's.
"""

from __future__ import annotations

import functools
import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from gpu_platform.offline.diff import diff_dirs
from tests.control_plane import test_pulumi_up as up
from tests.support.chart_repo import serve
from tests.support.cluster_objects import PlannedCluster, gpu_nodes, kwok_node, render_plan
from tests.support.control_plane import control_plane_script, wait_until
from tests.support.kubernetes_half import KUBECONFIG_KEY, kubernetes_half

REPO = control_plane_script.REPO
STACK_FILE = REPO / "stacks" / "Pulumi.dev.yaml"
STACK = "dev-kubernetes-half"
PROJECT = "gpu-platform"
"""The project of ``stacks/`` (``Pulumi.yaml``): URNs as the real stack's."""
POOL = "l4-spot"


def stack_config(chart_mirror: str, replicas: int | None = None) -> dict[str, Any]:
    """``stacks/dev``'s config less KServe and observability, with the chart mirror (and the pool's
    time-slicing ``replicas`` when given)."""
    config: dict[str, Any] = yaml.safe_load(STACK_FILE.read_text())["config"]
    config.pop("gpu-platform:kserve")
    config["gpu-platform:observability"] = {"enabled": False}
    config["gpu-platform:mirror"] = {"charts": chart_mirror}
    if replicas is not None:
        pool = next(p for p in config["gpu-platform:gpuPools"] if p["name"] == POOL)
        pool["sharing"]["replicas"] = replicas
    return config


def planned(config: dict[str, Any], folder: Path) -> PlannedCluster:
    """``gpu-platform plan --render`` of the whole GKE stack (cluster and pools included) for ``config``."""
    project = folder / "project"
    project.mkdir(parents=True)
    (project / "Pulumi.yaml").write_text(f"name: {PROJECT}\nruntime: python\n")
    shutil.copy(REPO / "stacks" / "__main__.py", project / "__main__.py")
    (project / f"Pulumi.{STACK}.yaml").write_text(yaml.safe_dump({"config": config}, sort_keys=False))
    return render_plan(project, STACK, folder / "plan")


GKE_EFFECTS = {
    "NO_SCHEDULE": "NoSchedule",
    "PREFER_NO_SCHEDULE": "PreferNoSchedule",
    "NO_EXECUTE": "NoExecute",
}


def gke_nodes(plan: PlannedCluster) -> list[dict[str, Any]]:
    """The nodes GKE would make of the plan's node pools, at their maximum size, as kwok nodes: each pool's
    ``nodeConfig`` labels and taints plus the labels GKE adds itself (``cloud.google.com/gke-nodepool``,
    ``gke-accelerator``, ``gke-spot``); allocatable as ``gpu_nodes`` counts it from the plan's quotas."""
    resources = json.loads((plan.out / "plan.json").read_text())["resources"]
    node_pools = [r["inputs"] for r in resources if r["type"] == "gcp:container/nodePool:NodePool"]
    allocatable = {n["metadata"]["name"]: n["status"]["allocatable"] for n in gpu_nodes(plan)}
    system = {"cpu": "4", "memory": "16Gi", "pods": "110"}
    nodes = []
    for pool in node_pools:
        config = pool["nodeConfig"]
        labels = {**up.LINUX, **config.get("labels", {}), "cloud.google.com/gke-nodepool": pool["name"]}
        if config.get("spot"):
            labels["cloud.google.com/gke-spot"] = "true"
        for accelerator in config.get("guestAccelerators", []):
            labels["cloud.google.com/gke-accelerator"] = accelerator["type"]
        taints = [f"{t['key']}={t['value']}:{GKE_EFFECTS[t['effect']]}" for t in config.get("taints", [])]
        name = labels.get("gpu-platform.io/pool", labels.get("gpu-platform.io/pool-role", pool["name"]))
        for i in range(pool["autoscaling"]["totalMaxNodeCount"]):
            nodes.append(kwok_node(f"{name}-{i}", labels, taints, allocatable.get(f"{name}-{i}", system)))
    return nodes


def _cloud_half(urn: str) -> bool:
    """A resource of the cloud's half (the GKE cluster, its pools and their children), which this test gives."""
    return any(t in urn for t in ("gcp:", "GkeCluster", "GkeGpuNodePool"))


class Half(up.Deployment):
    """``test_pulumi_up``'s deployment (its watchdog and timings), with this stack's config file."""

    def write_config(self, config: dict[str, Any]) -> None:
        """``config`` into the stack file, keeping what the stack put there (its salt, the kubeconfig)."""
        path = self.project / f"Pulumi.{STACK}.yaml"
        current = (yaml.safe_load(path.read_text()) if path.exists() else None) or {}
        kept = current.get("config", {}).get(KUBECONFIG_KEY)
        merged = {**config, **({KUBECONFIG_KEY: kept} if kept is not None else {})}
        path.write_text(yaml.safe_dump({**current, "config": merged}, sort_keys=False))

    def up(self, step: str) -> Any:
        return self.run(step, lambda: self.stack.up(on_output=self.log.append))


@pytest.fixture(scope="module")
def half(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Half]:
    if reason := up._skip_reason():
        pytest.skip(reason)
    from pulumi import automation as auto

    root = tmp_path_factory.mktemp("pulumi-up-gke")
    log: list[str] = []
    with up.local_cluster(root) as cp, serve(root / "charts") as chart_mirror:
        config = stack_config(chart_mirror)
        plan = planned(config, root / "plan-1")
        cp.apply(gke_nodes(plan))
        project = root / "project"
        stack = up.local_stack(root, project, PROJECT, STACK, kubernetes_half)
        half = Half(cp, stack, project, plan, up.KueueHarness(cp, plan.releases["kueue"]), chart_mirror, log)
        half.write_config(config)
        stack.set_config(KUBECONFIG_KEY, auto.ConfigValue(cp.kubeconfig.read_text(), secret=True))
        with half.harness:
            yield half


def _get(cp: Any, api: str, kind: str, name: str, namespace: str | None = None) -> dict[str, Any] | None:
    meta = {"name": name, **({"namespace": namespace} if namespace else {})}
    return up._exists(cp, {"apiVersion": api, "kind": kind, "metadata": meta})


def _planned(plan: PlannedCluster, kind: str, name: str) -> dict[str, Any]:
    return next(m for m in plan.manifests if m["kind"] == kind and m["metadata"]["name"] == name)


def _device_plugin_config(cp: Any) -> dict[str, Any]:
    live = _get(cp, "v1", "ConfigMap", "gpu-platform-device-plugin-config", up.OPERATOR_NS)
    assert live is not None
    return {key: yaml.safe_load(text) for key, text in live["data"].items()}


def _planned_device_plugin_config(plan: PlannedCluster) -> dict[str, Any]:
    planned_map = _planned(plan, "ConfigMap", "gpu-platform-device-plugin-config")
    return {key: yaml.safe_load(text) for key, text in planned_map["data"].items()}


def test_up_creates_the_gke_stacks_kubernetes_half(half: Half) -> None:
    h = half
    from pulumi.automation.errors import CommandError

    try:
        result = h.up("up")
    except CommandError as e:
        # As in test_pulumi_up: Kueue's objects may reach its webhooks before the harness serves them; only
        # those fail, once.
        failed = [line for line in str(e).splitlines() if "was not successfully created" in line]
        assert failed, str(e)[-3000:]
        assert all("kb.io" in line and "kueue.x-k8s.io" in line for line in failed), failed
        assert h.harness.started.wait(180), h.harness.errors
        result = h.up("up again")
    assert not h.harness.errors, h.harness.errors
    assert result.summary.result == "succeeded", "\n".join(h.log[-60:])
    for namespace, release in (
        (up.OPERATOR_NS, "gpu-operator"),
        (up.KUEUE_NS, "kueue"),
        ("jobset-system", "jobset"),
        ("kuberay-system", "kuberay-operator"),
    ):
        assert up._helm_status(h.cp, namespace, release) == ["deployed"], release
    # GKE installs the driver: the COS installer DaemonSet in kube-system, rolled out on the pool's nodes.
    installer = _get(h.cp, "apps/v1", "DaemonSet", "gpu-platform-nvidia-driver-installer", "kube-system")
    assert installer is not None
    planned_installer = _planned(h.plan, "DaemonSet", "gpu-platform-nvidia-driver-installer")
    assert (
        installer["spec"]["template"]["spec"]["containers"][0]["image"]
        == (planned_installer["spec"]["template"]["spec"]["containers"][0]["image"])
    )
    pool_nodes = [n["metadata"]["name"] for n in gpu_nodes(h.plan)]
    wait_until(
        "the driver installer scheduled on every pool node",
        lambda: (
            (_get(h.cp, "apps/v1", "DaemonSet", "gpu-platform-nvidia-driver-installer", "kube-system") or {})
            .get("status", {})
            .get("desiredNumberScheduled")
            == len(pool_nodes)
        ),
        60,
        every=0.5,
    )
    # The quota GKE requires before it admits system-node-critical pods outside kube-system.
    assert _get(h.cp, "v1", "ResourceQuota", "gpu-operator-quota", up.OPERATOR_NS) is not None
    # The device plugin's time-slicing, and Kueue's quota counting the pool's nodes at 4 replicas each.
    assert _device_plugin_config(h.cp) == _planned_device_plugin_config(h.plan)
    live, planned_quotas = up._quotas(h.cp, h.plan)
    assert live == planned_quotas
    assert live[POOL]["nvidia.com/gpu"] == 4 * len(pool_nodes)
    wait_until("ClusterQueue dev active", functools.partial(up._active, h.cp, "dev"), 60, every=0.5)
    assert up._live(h.cp, "LocalQueue", "default", "ml-dev")
    outputs = h.stack.outputs()
    assert outputs["cloud"].value == "gke"
    assert outputs["gpuPools"].value == {pool.name: pool.gpu.key for pool in h.plan.pools}


def test_a_day_two_time_slicing_change_updates_config_and_quota_in_place(half: Half) -> None:
    h = half
    config = stack_config(h.chart_mirror, replicas=2)
    plan = planned(config, h.project.parent / "plan-2")
    h.write_config(config)
    result = h.up("day-2 up")
    assert result.summary.result == "succeeded", "\n".join(h.log[-60:])
    # What the up did is what `gpu-platform diff` of the two plans said of the Kubernetes half: the Kueue quota
    # and the operator's release updated in place, the device plugin's ConfigMap replaced (the Kubernetes
    # provider replaces a ConfigMap whose data changes), nothing deleted.
    predicted = [c for c in diff_dirs(h.plan.out, plan.out).changes if not _cloud_half(c.urn)]
    changes = result.summary.resource_changes or {}
    assert "delete" not in changes, changes
    assert changes.get("update", 0) == len([c for c in predicted if c.action == "changed"]), (
        changes,
        predicted,
    )
    assert changes.get("replace", 0) == len([c for c in predicted if c.action == "replaced"]), (
        changes,
        predicted,
    )
    assert [c.type for c in predicted if c.action == "replaced"] == ["kubernetes:core/v1:ConfigMap"]
    assert {c.type for c in predicted if c.action == "changed"} == {
        "kubernetes:helm.sh/v3:Release",
        "kubernetes:kueue.x-k8s.io/v1beta2:ClusterQueue",
    }
    assert _device_plugin_config(h.cp) == _planned_device_plugin_config(plan)
    assert [
        c["sharing"]["timeSlicing"]["resources"][0]["replicas"] for c in _device_plugin_config(h.cp).values()
    ] == [2]
    live, planned_quotas = up._quotas(h.cp, plan)
    assert live == planned_quotas
    assert live[POOL]["nvidia.com/gpu"] == 2 * len(gpu_nodes(plan))
    assert up._helm_status(h.cp, up.KUEUE_NS, "kueue") == ["deployed"]


def test_destroy_removes_the_half_and_keeps_what_the_library_retains(half: Half) -> None:
    h = half
    result = h.run("destroy", lambda: h.stack.destroy(on_output=h.log.append))
    assert result.summary.result == "succeeded", "\n".join(h.log[-60:])
    assert up._live(h.cp, "ClusterQueue", "dev") is None
    assert up._live(h.cp, "ResourceFlavor", POOL) is None
    assert _get(h.cp, "apps/v1", "DaemonSet", "gpu-platform-nvidia-driver-installer", "kube-system") is None
    assert up._helm_status(h.cp, up.OPERATOR_NS, "gpu-operator") == []
    for ns in (up.KUEUE_NS, up.OPERATOR_NS, "ml-dev"):
        assert up._live(h.cp, "Namespace", ns), ns
    assert up._live(h.cp, "CustomResourceDefinition", "clusterqueues.kueue.x-k8s.io")
    print("timings:", json.dumps({k: round(v) for k, v in h.timings.items()}))
