"""GPU health to remediation: node-problem-detector rendered at its pin with the GPU Xid monitor and the tainting
remedy, the remedy's script run against a fake kubectl, the GPU-unhealthy taint as one fact (tolerated by the
GPU-node agents, never by workloads or Kueue flavors), and every repository stack planning it."""

from __future__ import annotations

import contextlib
import functools
import json
import os
import re
import stat
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from gpu_platform import releases, versions
from gpu_platform.addons.gpu_operator.checks import resolve_gpu_operator
from gpu_platform.addons.gpu_operator.plan import gpu_operator_plan
from gpu_platform.addons.kueue.plan import kueue_plan
from gpu_platform.addons.observability import gpu_health as health
from gpu_platform.addons.observability.checks import ObservabilitySpec
from gpu_platform.addons.observability.component import GpuObservability
from gpu_platform.addons.observability.plan import observability_plan
from gpu_platform.addons.observability.rules import CRITICAL_XIDS
from gpu_platform.args.common import Cloud
from gpu_platform.errors import ConfigError
from gpu_platform.offline import Plan
from gpu_platform.policy_model.kube import tolerates
from gpu_platform.pools import GPU_TAINT, GPU_UNHEALTHY_TAINT, STARTUP_TAINT, Taint
from gpu_platform.scheduling import GPU_LABEL, pool_tolerations
from gpu_platform.stack import load_platform
from tests.conftest import UPSTREAM, planned_stack, stack_raw_config, upstream
from tests.support.chart_values import missing_upstream
from tests.support.helm import render_chart

RELEASE = "kubernetes:helm.sh/v3:Release"
CHART = UPSTREAM / "charts" / "node-problem-detector-2.4.1"
FAILED = Taint(GPU_UNHEALTHY_TAINT.key, "Xid79", GPU_UNHEALTHY_TAINT.effect)
"""The taint as the remedy writes it (the value is the condition's reason)."""


def _eks_pools() -> Any:
    spec = load_platform(stack_raw_config("prod"))
    assert spec.cloud == "eks" and spec.pools
    return spec.pools


@functools.cache
def rendered() -> tuple[dict[str, Any], ...]:
    plan = health.gpu_health_plan("kube-system", _eks_pools())
    return tuple(render_chart(CHART, plan.values, "node-problem-detector", "kube-system"))


def one(kind: str) -> dict[str, Any]:
    (obj,) = [o for o in rendered() if o["kind"] == kind]
    return obj


# --- pins and registry ---------------------------------------------------------------------------------


def test_the_chart_and_image_are_pinned_and_registered() -> None:
    chart = yaml.safe_load(upstream("charts", "node-problem-detector-2.4.1", "Chart.yaml").read_text())
    assert chart["version"] == versions.NODE_PROBLEM_DETECTOR.version
    assert chart["appVersion"] == versions.NODE_PROBLEM_DETECTOR_IMAGE_TAG  # the chart's own image
    assert versions.NODE_PROBLEM_DETECTOR in versions.ALL_CHARTS
    assert releases.NODE_PROBLEM_DETECTOR.pin is versions.NODE_PROBLEM_DETECTOR
    assert releases.NODE_PROBLEM_DETECTOR.namespace == "kube-system"
    assert not releases.NODE_PROBLEM_DETECTOR.release_holds_crds  # the chart renders no CRDs


def test_values_exist_in_the_chart() -> None:
    chart = yaml.safe_load(upstream("charts", "node-problem-detector-2.4.1", "values.yaml").read_text())
    values = health.gpu_health_plan("kube-system").values
    # Maps the chart leaves empty ({}) take any key: the monitor files, affinity, resources.
    top = ("affinity", "resources")
    trimmed = {k: v for k, v in values.items() if k not in top}
    trimmed["settings"] = {k: v for k, v in values["settings"].items() if k != "custom_monitor_definitions"}
    assert missing_upstream(trimmed, chart) == []
    assert chart["settings"]["custom_monitor_definitions"] == {}
    assert all(chart[k] == {} for k in top)
    assert missing_upstream({"settings": {"log_monitor": []}}, chart)  # the check can fail


# --- rendered at the pin -------------------------------------------------------------------------------


def test_the_daemonset_runs_on_gpu_nodes_only_and_tolerates_their_taints() -> None:
    spec = one("DaemonSet")["spec"]["template"]["spec"]
    terms = spec["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"][
        "nodeSelectorTerms"
    ]
    assert terms == [{"matchExpressions": [{"key": GPU_LABEL, "operator": "Exists"}]}]
    tolerations = spec["tolerations"]
    for taint in (GPU_TAINT, FAILED):
        assert any(tolerates(t, taint) for t in tolerations), taint
    # Every taint of every prod pool (the users' too), as the GPU Operator's operands tolerate them.
    for pool in _eks_pools():
        for tol in pool_tolerations(pool):
            assert tol in tolerations
    assert not any(
        tolerates(t, Taint("node-role.kubernetes.io/control-plane", "", "NoSchedule")) for t in tolerations
    )
    assert spec["priorityClassName"] == "system-node-critical"


def test_the_detector_runs_the_gpu_xid_monitor_at_the_pinned_image() -> None:
    ds = one("DaemonSet")["spec"]["template"]["spec"]
    detector, remedy = ds["containers"]
    assert detector["image"] == (
        f"{versions.NODE_PROBLEM_DETECTOR_IMAGE_REPOSITORY}:{versions.NODE_PROBLEM_DETECTOR_IMAGE_TAG}"
    )
    command = detector["command"][-1]
    monitors = re.search(r"--config\.system-log-monitor=(\S+)", command)
    assert monitors is not None
    assert f"/custom-config/{health.MONITOR_FILE}" in monitors.group(1).split(",")
    assert detector["securityContext"] == {"privileged": True}  # /dev/kmsg is the host's
    cm = one("ConfigMap")
    monitor = json.loads(cm["data"][health.MONITOR_FILE])
    assert monitor["plugin"] == "kmsg" and monitor["logPath"] == "/dev/kmsg"
    assert monitor["conditions"] == [
        {
            "type": health.CONDITION,
            "reason": health.HEALTHY_REASON,
            "message": monitor["conditions"][0]["message"],
        }
    ]
    permanent = {r["reason"] for r in monitor["rules"] if r["type"] == "permanent"}
    assert permanent == {f"Xid{x}" for x in CRITICAL_XIDS}
    assert all(r["condition"] == health.CONDITION for r in monitor["rules"] if r["type"] == "permanent")
    # The remedy's script sits in the same ConfigMap, which the chart mounts at /custom-config.
    assert cm["data"][health.REMEDY_SCRIPT_KEY] == health.REMEDY_SCRIPT
    assert remedy["name"] == health.REMEDY_CONTAINER and remedy["image"] == versions.KUBECTL_IMAGE
    env = {e["name"]: e.get("value") for e in remedy["env"]}
    assert (env["TAINT_KEY"], env["TAINT_EFFECT"]) == (GPU_UNHEALTHY_TAINT.key, "NoSchedule")
    assert env["CONDITION"] == health.CONDITION
    assert {"name": "custom-config", "mountPath": "/custom-config", "readOnly": True} in remedy[
        "volumeMounts"
    ]
    assert {"name": "remedy-tmp", "emptyDir": {}} in ds["volumes"]


def test_the_monitor_follows_the_format_of_the_detectors_own_kernel_monitor() -> None:
    theirs = json.loads(upstream("node-problem-detector", "kernel-monitor.json").read_text())
    ours = health.xid_monitor()
    assert set(ours) <= set(theirs)
    assert {k: ours[k] for k in ("plugin", "logPath")} == {k: theirs[k] for k in ("plugin", "logPath")}
    their_rule_keys = {k for r in theirs["rules"] for k in r}
    assert all(set(r) <= their_rule_keys for r in ours["rules"])
    assert {r["type"] for r in theirs["rules"]} == {"temporary", "permanent"}


def test_the_service_account_may_patch_its_node() -> None:
    role = one("ClusterRole")
    rules = role["rules"]
    assert {"apiGroups": [""], "resources": ["nodes"], "verbs": ["patch"]} in rules
    assert any(r["resources"] == ["nodes"] and "get" in r["verbs"] for r in rules)
    binding = one("ClusterRoleBinding")
    sa = one("ServiceAccount")
    assert binding["subjects"][0]["name"] == sa["metadata"]["name"]
    assert one("DaemonSet")["spec"]["template"]["spec"]["serviceAccountName"] == sa["metadata"]["name"]


# --- the Xid patterns, matched the way the detector matches them --------------------------------------------


def _matches(rule: dict[str, str], line: str) -> bool:
    """node-problem-detector anchors a rule at the end of the log (``log_buffer.go``: ``expr + \\z``)."""
    return re.search(rule["pattern"] + r"\Z", line) is not None


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        ("NVRM: Xid (PCI:0000:3b:00): 79, pid=1234, name=python, GPU has fallen off the bus.", "Xid79"),
        (
            "NVRM: Xid (PCI:0000:00:1e.0): 48, pid='<unknown>', name=<unknown>, An uncorrectable double bit error",
            "Xid48",
        ),
        (
            "NVRM: Xid (PCI:0000:c1:00): 94, pid=9, name=train, Contained: SM (0x1). RST: No, D-RST: No",
            "Xid94",
        ),
        ("NVRM: Xid (PCI:0000:c1:00): 13, pid=9, name=train, Graphics SM Warp Exception", None),
        ("NVRM: Xid (PCI:0000:c1:00): 790, pid=9, name=x, not a real Xid", None),
    ],
)
def test_a_kernel_xid_line_sets_the_condition_only_for_critical_xids(line: str, reason: str | None) -> None:
    rules = health.xid_rules()
    permanent = [r["reason"] for r in rules if r["type"] == "permanent" and _matches(r, line)]
    assert permanent == ([reason] if reason else [])
    (event,) = [r for r in rules if r["type"] == "temporary"]
    assert _matches(event, line)  # every Xid is an Event on the node
    assert not _matches(event, "NVRM: loading NVIDIA UNIX x86_64 Kernel Module  570.86.15")


# --- the remedy, run --------------------------------------------------------------------------------------


FAKE_KUBECTL = r"""#!/bin/bash
# A kubectl that serves one Node from $NODE_FILE and records every taint call.
if [ "$1" = get ]; then cat "$NODE_FILE"; exit 0; fi
if [ "$1" = taint ]; then echo "$*" >>"$CALLS"; exit 0; fi
exit 1
"""


def _run_remedy(tmp_path: Path, node: dict[str, Any]) -> list[str]:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    kubectl = bin_dir / "kubectl"
    kubectl.write_text(FAKE_KUBECTL)
    kubectl.chmod(kubectl.stat().st_mode | stat.S_IEXEC)
    (tmp_path / "node.json").write_text(json.dumps(node))
    calls = tmp_path / "calls"
    env = {e["name"]: e["value"] for e in health.remedy_container()["env"] if "value" in e}
    env.update(
        PATH=f"{bin_dir}:{os.environ['PATH']}",
        NODE_NAME="gpu-node-1",
        NODE_FILE=str(tmp_path / "node.json"),
        CALLS=str(calls),
        POLL_SECONDS="0.2",
    )
    with contextlib.suppress(subprocess.TimeoutExpired):  # the loop never ends by itself
        subprocess.run(["bash", "-c", health.REMEDY_SCRIPT], env=env, timeout=1.5, capture_output=True)
    return calls.read_text().splitlines() if calls.exists() else []


def _node(status: str, taints: list[dict[str, str]] | None = None) -> dict[str, Any]:
    condition = {
        "type": health.CONDITION,
        "status": status,
        "reason": "Xid79" if status == "True" else "NoCriticalXid",
    }
    return {
        "metadata": {"name": "gpu-node-1"},
        "spec": {"taints": taints or [{"key": GPU_TAINT.key, "value": "present", "effect": "NoSchedule"}]},
        "status": {"conditions": [{"type": "Ready", "status": "True", "reason": "KubeletReady"}, condition]},
    }


def test_the_remedy_taints_a_node_whose_gpu_failed(tmp_path: Path) -> None:
    calls = _run_remedy(tmp_path, _node("True"))
    assert calls and set(calls) == {
        f"taint node gpu-node-1 {GPU_UNHEALTHY_TAINT.key}=Xid79:NoSchedule --overwrite"
    }


def test_the_remedy_leaves_a_healthy_node_alone(tmp_path: Path) -> None:
    assert _run_remedy(tmp_path, _node("False")) == []


def test_the_remedy_leaves_a_node_it_already_tainted(tmp_path: Path) -> None:
    tainted = _node("True", [{"key": GPU_UNHEALTHY_TAINT.key, "value": "Xid48", "effect": "NoSchedule"}])
    assert _run_remedy(tmp_path, tainted) == []


# --- one taint, known across the library -------------------------------------------------------------------


def test_the_taint_is_a_cluster_autoscaler_status_taint() -> None:
    faq = upstream("cluster-autoscaler", "docs", "FAQ.md").read_text()
    prefix = "status-taint.cluster-autoscaler.kubernetes.io/"
    assert f"all taints with the prefix `{prefix}`" in faq
    assert GPU_UNHEALTHY_TAINT.key.startswith(prefix) and GPU_UNHEALTHY_TAINT.effect == "NoSchedule"
    assert GPU_UNHEALTHY_TAINT.key != STARTUP_TAINT.key


def test_gpu_operator_operands_tolerate_it_and_kueue_flavors_do_not() -> None:
    target = resolve_gpu_operator(
        {"cloud": "eks", "pools": [{"name": "h100", "machine_type": "p5.48xlarge", "max_nodes": 2}]}
    )
    values = gpu_operator_plan(target).values
    assert any(tolerates(t, FAILED) for t in values["daemonsets"]["tolerations"])
    assert any(tolerates(t, GPU_TAINT) for t in values["daemonsets"]["tolerations"])
    spec = load_platform(stack_raw_config("prod"))
    assert spec.kueue is not None
    plan = kueue_plan(spec.queue_pools, spec.kueue, releases.KUEUE.namespace, manage_namespaces=False)
    flavors = plan.objects.flavors
    assert flavors
    for flavor in flavors:
        tolerations = flavor["spec"].get("tolerations", [])
        assert not any(tolerates(t, FAILED) for t in tolerations), flavor["metadata"]["name"]
    gpu_flavors = [f for f in flavors if f["spec"].get("tolerations")]
    assert gpu_flavors and all(
        any(tolerates(t, GPU_TAINT) for t in f["spec"]["tolerations"]) for f in gpu_flavors
    )


# --- the component and the stacks ---------------------------------------------------------------------------


def test_component_installs_the_health_checks_unless_switched_off(run_component: Callable[..., Plan]) -> None:
    plan = run_component(lambda: GpuObservability("obs", {"cloud": Cloud.AKS}))
    release = plan.one(RELEASE, "obs-health")
    assert (release.inputs["chart"], release.inputs["version"]) == ("node-problem-detector", "2.4.1")
    assert release.inputs["namespace"] == "kube-system"
    assert release.inputs["repositoryOpts"]["repo"] == versions.NODE_PROBLEM_DETECTOR.repo
    tolerations = release.inputs["values"]["tolerations"]
    assert all(any(tolerates(t, taint) for t in tolerations) for taint in (GPU_TAINT, STARTUP_TAINT, FAILED))
    off = run_component(lambda: GpuObservability("obs", {"cloud": Cloud.AKS, "health_checks": False}))
    assert [r.name for r in off.by_type(RELEASE)] == ["obs-crds", "obs-stack"]


@pytest.mark.parametrize("stack", ["dev", "staging", "prod"])
def test_every_repository_stack_plans_its_health_checks(stack: str) -> None:
    plan = planned_stack(stack)
    release = plan.one(RELEASE, "observability-health")
    values = release.inputs["values"]
    assert values["extraContainers"][0]["name"] == health.REMEDY_CONTAINER
    assert any(tolerates(t, FAILED) for t in values["tolerations"])
    # The stack's own pools' taints: the same list the GPU Operator's operands get.
    operator = plan.one(RELEASE, "gpu-operator-helm").inputs["values"]["daemonsets"]["tolerations"]
    assert all(t in values["tolerations"] for t in operator)


def test_health_checks_can_be_switched_off_and_are_off_by_default_on_openshift() -> None:
    raw = stack_raw_config("prod")
    off = load_platform({**raw, "observability": {"healthChecks": False}})
    assert off.observability is not None and off.observability.health_checks is False
    assert observability_plan(off.observability).health is None
    assert ObservabilitySpec("eks").health_checks is True
    from gpu_platform.addons.observability.checks import observability_spec

    assert observability_spec("openshift", {}).health_checks is False
    assert observability_spec("openshift", {"health_checks": True}).health_checks is True


def test_a_health_checks_value_that_is_not_a_boolean_is_refused() -> None:
    with pytest.raises(ConfigError) as err:
        load_platform({**stack_raw_config("prod"), "observability": {"healthChecks": "sometimes"}})
    assert "gpu-platform:observability.healthChecks" in str(err.value)


def test_kueue_quotas_leave_room_for_the_health_checks_pod() -> None:
    """What the detector and the remedy request comes off every GPU node before Kueue multiplies by nodes."""
    from gpu_platform.addons.kueue.plan import node_units
    from gpu_platform.plans.node_daemonsets import GPU_HEALTH_DETECTOR_REQUESTS, GPU_HEALTH_REMEDY_REQUESTS

    raw = stack_raw_config("prod")
    on = load_platform(raw)
    off = load_platform({**raw, "observability": {"healthChecks": False}})
    assert on.kueue is not None and off.kueue is not None
    assert on.kueue.capacity_basis.gpu_health_checks and not off.kueue.capacity_basis.gpu_health_checks
    pod = GPU_HEALTH_DETECTOR_REQUESTS + GPU_HEALTH_REMEDY_REQUESTS
    for pool in on.pools:
        cpu_on, mem_on = node_units(pool, on.kueue.capacity_basis, on.pools)
        cpu_off, mem_off = node_units(pool, off.kueue.capacity_basis, off.pools)
        assert (cpu_off - cpu_on, mem_off - mem_on) == (pod.cpu_millicores, pod.memory_mib), pool.name
    values = health.gpu_health_plan("kube-system").values
    assert values["resources"]["requests"] == GPU_HEALTH_DETECTOR_REQUESTS.quantities()
    assert values["extraContainers"][0]["resources"]["requests"] == GPU_HEALTH_REMEDY_REQUESTS.quantities()
