"""GPU health checks: node-problem-detector reads each GPU node's kernel log for Xids, and a failing node is tainted.

Detection is node-problem-detector's own kernel monitor (``kmsg`` plugin, the format of its
``config/kernel-monitor.json``): one permanent condition, ``GpuXidCritical``, set ``True`` with the Xid as its
reason (``Xid79``) when the NVIDIA driver logs one of ``gpu_rules.CRITICAL_XIDS``, and an Event for every other
Xid. A permanent condition is what node-problem-detector reports for a problem that makes the node unusable for
pods (its README); it has no way to act on one.

Remediation is a second container in the same pod (so it runs exactly where the detector runs): a shell loop
around kubectl that reads its own Node and, when ``GpuXidCritical`` is ``True``, sets ``GPU_UNHEALTHY_TAINT``
with the condition's reason as the value. The taint, not a cordon: the library owns its key, so the GPU
Operator's operands and these agents tolerate it and keep running to report, reset and validate, while the
Cluster Autoscaler reads it as a status taint. It never removes the taint: a condition that turns ``False``
after the detector restarts says nothing about the GPU, so the taint goes with the node (cloud repair
re-creates it) or by hand once the GPU was reset (docs/observability.md).

Why not NVIDIA's NVSentinel, which does all of this and more: its chart could not be vendored at a release
tag here (no snapshot of the repository), and it runs its own datastore (MongoDB) that the platform does not
otherwise need; every chart the library installs renders offline at its pin.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from gpu_platform import versions
from gpu_platform.addons.observability.rules import CRITICAL_XIDS
from gpu_platform.plans.node_daemonsets import GPU_HEALTH_DETECTOR_REQUESTS, GPU_HEALTH_REMEDY_REQUESTS
from gpu_platform.plans.node_scripts import node_script_container
from gpu_platform.pools import GPU_TAINT, GPU_UNHEALTHY_TAINT, STARTUP_TAINT, GpuPool
from gpu_platform.scheduling import GPU_LABEL, node_agent_tolerations, toleration

CONDITION = "GpuXidCritical"
"""The node condition the detector sets ``True`` on a critical Xid (reason ``Xid<n>``)."""
HEALTHY_REASON = "NoCriticalXid"
MONITOR_FILE = "gpu-xid-monitor.json"
"""The detector's monitor definition, in the chart's ``/custom-config`` ConfigMap."""
SOURCE = "gpu-xid-monitor"
REMEDY_CONTAINER = "gpu-unhealthy-taint"
POLL_SECONDS = 15
"""How often the remedy reads its Node: the detector reports a new condition at once, and a node's scheduling
decisions are made every few seconds, so a quarter of a minute bounds how long new work can still land."""

XID_LINE = r"NVRM: Xid \(PCI:[0-9a-fA-F:.]+\): "
"""How the NVIDIA kernel driver logs an Xid: ``NVRM: Xid (PCI:0000:3b:00): 79, pid=..., GPU has fallen off the
bus.`` (NVIDIA's Xid errors documentation); the number follows the PCI address."""

REMEDY_SCRIPT = r"""#!/bin/bash
# Taint this node once node-problem-detector reports a critical GPU Xid on it; never untaint.
set -u
while true; do
  if node=$(kubectl get node "$NODE_NAME" -o json); then
    reason=$(jq -r --arg type "$CONDITION" \
      'first(.status.conditions[]? | select(.type == $type and .status == "True") | .reason) // empty' <<<"$node")
    if [ -n "$reason" ] && ! jq -e --arg key "$TAINT_KEY" 'any(.spec.taints[]?; .key == $key)' <<<"$node" >/dev/null; then
      kubectl taint node "$NODE_NAME" "$TAINT_KEY=$reason:$TAINT_EFFECT" --overwrite \
        && echo "tainted $NODE_NAME $TAINT_KEY=$reason:$TAINT_EFFECT ($CONDITION)"
    fi
  fi
  sleep "$POLL_SECONDS"
done
"""
REMEDY_SCRIPT_KEY = "taint-unhealthy-gpu-node.sh"


@dataclass(frozen=True)
class GpuHealthPlan:
    """node-problem-detector's release on the GPU nodes, with the GPU Xid monitor and the tainting remedy."""

    namespace: str
    tolerations: tuple[dict[str, str], ...]
    """Every taint of every GPU pool, the startup and GPU-unhealthy taints included."""

    @property
    def values(self) -> dict[str, Any]:
        return health_values(self)


def xid_rules() -> list[dict[str, str]]:
    """A permanent rule per critical Xid (reason ``Xid<n>``), then a temporary one (an Event) for any Xid."""
    rules = [
        {
            "type": "permanent",
            "condition": CONDITION,
            "reason": f"Xid{xid}",
            "pattern": f"{XID_LINE}{xid},.*",
        }
        for xid in CRITICAL_XIDS
    ]
    rules.append({"type": "temporary", "reason": "GpuXid", "pattern": f"{XID_LINE}\\d+,.*"})
    return rules


def xid_monitor() -> dict[str, Any]:
    """The detector's monitor definition: the format of node-problem-detector's own kernel monitor."""
    return {
        "plugin": "kmsg",
        "logPath": "/dev/kmsg",
        "lookback": "5m",
        "bufferSize": 10,
        "source": SOURCE,
        "metricsReporting": True,
        "conditions": [
            {
                "type": CONDITION,
                "reason": HEALTHY_REASON,
                "message": "no Xid that needs the GPU reset or the node drained since the detector started",
            }
        ],
        "rules": xid_rules(),
    }


def default_tolerations() -> tuple[dict[str, str], ...]:
    """Without pools (a caller of ``GpuObservability`` alone): the library's own GPU-node taints."""
    return tuple(toleration(t, exists=True) for t in (GPU_TAINT, STARTUP_TAINT, GPU_UNHEALTHY_TAINT))


def pool_tolerations(pools: Sequence[GpuPool]) -> tuple[dict[str, str], ...]:
    """Each GPU-node agent toleration of every pool, once, in first-seen order."""
    out: dict[tuple[tuple[str, str], ...], dict[str, str]] = {}
    for pool in pools:
        for tol in node_agent_tolerations(pool):
            out.setdefault(tuple(sorted(tol.items())), tol)
    return tuple(out.values())


def gpu_health_plan(namespace: str, pools: Sequence[GpuPool] = ()) -> GpuHealthPlan:
    return GpuHealthPlan(namespace, pool_tolerations(pools) if pools else default_tolerations())


def gpu_node_affinity() -> dict[str, Any]:
    """Every node of a GPU pool the library knows carries ``gpu-platform.io/gpu`` (``scheduling``)."""
    term = {"matchExpressions": [{"key": GPU_LABEL, "operator": "Exists"}]}
    return {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [term]}}}


def remedy_container() -> dict[str, Any]:
    """kubectl, jq and the script (the Kubernetes project's kubectl image carries all three)."""
    env = {
        "CONDITION": CONDITION,
        "TAINT_KEY": GPU_UNHEALTHY_TAINT.key,
        "TAINT_EFFECT": GPU_UNHEALTHY_TAINT.effect,
        "POLL_SECONDS": str(POLL_SECONDS),
    }
    return node_script_container(
        REMEDY_CONTAINER,
        f"/custom-config/{REMEDY_SCRIPT_KEY}",
        env,
        GPU_HEALTH_REMEDY_REQUESTS,
        ("custom-config", "/custom-config"),
        "remedy-tmp",
    )


def health_values(plan: GpuHealthPlan) -> dict[str, Any]:
    """node-problem-detector chart values (deliveryhero ``stable/node-problem-detector`` 2.4.1 keys)."""
    return {
        "image": {
            "repository": versions.NODE_PROBLEM_DETECTOR_IMAGE_REPOSITORY,
            "tag": versions.NODE_PROBLEM_DETECTOR_IMAGE_TAG,
        },
        "settings": {
            "custom_monitor_definitions": {
                MONITOR_FILE: json.dumps(xid_monitor(), indent=2),
                REMEDY_SCRIPT_KEY: REMEDY_SCRIPT,
            },
            # The image's own kernel monitor too: deadlocks and read-only filesystems also end a GPU job.
            "log_monitors": [
                "/config/kernel-monitor.json",
                "/config/readonly-monitor.json",
                f"/custom-config/{MONITOR_FILE}",
            ],
        },
        "resources": {
            "requests": GPU_HEALTH_DETECTOR_REQUESTS.quantities(),
            "limits": {"memory": f"{2 * GPU_HEALTH_DETECTOR_REQUESTS.memory_mib}Mi"},
        },
        "rbac": {
            # ``kubectl taint`` reads the Node, then patches it; the chart grants get and nodes/status only.
            "clusterRole": {"extraRules": [{"apiGroups": [""], "resources": ["nodes"], "verbs": ["patch"]}]}
        },
        "affinity": gpu_node_affinity(),
        "tolerations": list(plan.tolerations),
        "extraContainers": [remedy_container()],
        "extraVolumes": [{"name": "remedy-tmp", "emptyDir": {}}],
    }
