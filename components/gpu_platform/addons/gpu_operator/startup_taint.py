"""The startup-taint remover: takes ``pools.STARTUP_TAINT`` off a node once its GPU resources are advertised.

Pools whose nodes advertise their GPU resources only after the operator configured them (MIG ``mixed``
profiles, renamed shared replicas: ``scheduling.late_resources``) register their nodes with the startup
taint. The Cluster Autoscaler treats such a node as not ready but as capacity on its way (cluster-autoscaler
FAQ "Startup taints", vendored in tests/upstream/cluster-autoscaler), so a pending MIG pod does not make it
add a second node while the first is still being partitioned.

Nothing upstream removes a startup taint when a device plugin starts: the device plugin has no such
option (NVIDIA/k8s-device-plugin#1746), and the GPU Operator's own example (NVIDIA/gpu-operator#2573) uses the
Node Readiness Controller, which only manages ``readiness.k8s.io/`` taints and needs a node condition from
Node Problem Detector; neither knows when MIG profiles appear. So the library runs this small DaemonSet on
those pools' nodes: it waits until the node's allocatable lists every resource its pool waits for, removes
the taint once, and then sleeps. It never adds the taint back (a node keeps its resources until it goes).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from gpu_platform.plans.node_daemonsets import STARTUP_TAINT_REMOVER_REQUESTS
from gpu_platform.plans.node_scripts import node_script_container
from gpu_platform.pools import STARTUP_TAINT, GpuPool
from gpu_platform.scheduling import POOL_LABEL, late_resources, startup_taints

NAME = "gpu-platform-startup-taint-remover"
"""Name of the ServiceAccount, ClusterRole, ClusterRoleBinding, ConfigMap and DaemonSet."""
RESOURCES_KEY = "resources.json"
SCRIPT_KEY = "remove-startup-taint.sh"
CONFIG_DIR = "/config"
POLL_SECONDS = 10
"""How often a waiting node is read: the autoscaler's own loop runs every 10 seconds."""

SCRIPT = r"""#!/bin/bash
# Remove the startup taint from this node once it advertises every resource its pool waits for.
set -u
want="${WANT_FILE:-/config/resources.json}"
while true; do
  if node=$(kubectl get node "$NODE_NAME" -o json); then
    if ! jq -e --arg key "$TAINT_KEY" 'any(.spec.taints[]?; .key == $key)' <<<"$node" >/dev/null; then
      echo "$NODE_NAME has no $TAINT_KEY taint: nothing to do"
      exec sleep infinity
    fi
    if jq -e --slurpfile want "$want" --arg pool_label "$POOL_LABEL" '
        . as $node
        | ($want[0][$node.metadata.labels[$pool_label] // ""] // []) as $names
        | ($names | length) > 0
          and all($names[]; (($node.status.allocatable[.] // "0") | tonumber) > 0)' <<<"$node" >/dev/null; then
      kubectl taint node "$NODE_NAME" "$TAINT_KEY:$TAINT_EFFECT-" && echo "removed $TAINT_KEY from $NODE_NAME"
    fi
  fi
  sleep "$POLL_SECONDS"
done
"""


@dataclass(frozen=True)
class StartupTaintRemoverPlan:
    """The remover for the pools that carry the startup taint (none: nothing is created)."""

    pools: tuple[GpuPool, ...]
    namespace: str

    @property
    def waits_for(self) -> dict[str, list[str]]:
        """Pool name -> the resources its nodes must advertise before the taint goes."""
        return {p.name: sorted(late_resources(p)) for p in self.pools}


def startup_taint_remover_plan(pools: Sequence[GpuPool], namespace: str) -> StartupTaintRemoverPlan:
    return StartupTaintRemoverPlan(tuple(p for p in pools if startup_taints(p)), namespace)


def _meta(plan: StartupTaintRemoverPlan, namespaced: bool = True) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": NAME, "labels": {"app.kubernetes.io/name": NAME}}
    if namespaced:
        meta["namespace"] = plan.namespace
    return meta


def _container() -> dict[str, Any]:
    """The remover's container: kubectl and the script, its environment, and a locked-down security context."""
    env = {
        "TAINT_KEY": STARTUP_TAINT.key,
        "TAINT_EFFECT": STARTUP_TAINT.effect,
        "POOL_LABEL": POOL_LABEL,
        "POLL_SECONDS": str(POLL_SECONDS),
        "WANT_FILE": f"{CONFIG_DIR}/{RESOURCES_KEY}",
    }
    return node_script_container(
        "remover",
        f"{CONFIG_DIR}/{SCRIPT_KEY}",
        env,
        STARTUP_TAINT_REMOVER_REQUESTS,
        ("config", CONFIG_DIR),
        "tmp",
    )


def _pool_affinity(plan: StartupTaintRemoverPlan) -> dict[str, Any]:
    """Node affinity that keeps the DaemonSet on the nodes of the pools carrying the startup taint."""
    return {
        "nodeAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": {
                "nodeSelectorTerms": [
                    {
                        "matchExpressions": [
                            {"key": POOL_LABEL, "operator": "In", "values": [p.name for p in plan.pools]}
                        ]
                    }
                ]
            }
        }
    }


def _daemonset(plan: StartupTaintRemoverPlan) -> dict[str, Any]:
    """The DaemonSet running the remover on every node of those pools, tolerating every taint."""
    labels = {"app.kubernetes.io/name": NAME}
    return {
        "apiVersion": "apps/v1",
        "kind": "DaemonSet",
        "metadata": _meta(plan),
        "spec": {
            "selector": {"matchLabels": labels},
            "template": {
                "metadata": {"labels": labels},
                "spec": {
                    "serviceAccountName": NAME,
                    "priorityClassName": "system-node-critical",
                    "affinity": _pool_affinity(plan),
                    # Runs before anything else may: the GPU taint, users' taints and the startup taint itself.
                    "tolerations": [{"operator": "Exists"}],
                    "containers": [_container()],
                    "volumes": [
                        {"name": "config", "configMap": {"name": NAME}},
                        {"name": "tmp", "emptyDir": {}},
                    ],
                },
            },
        },
    }


def _rbac_objects(plan: StartupTaintRemoverPlan) -> list[dict[str, Any]]:
    """ServiceAccount, ClusterRole and binding that let the remover get and patch Nodes."""
    return [
        {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": _meta(plan)},
        {
            "apiVersion": "rbac.authorization.k8s.io/v1",
            "kind": "ClusterRole",
            "metadata": _meta(plan, namespaced=False),
            "rules": [{"apiGroups": [""], "resources": ["nodes"], "verbs": ["get", "patch"]}],
        },
        {
            "apiVersion": "rbac.authorization.k8s.io/v1",
            "kind": "ClusterRoleBinding",
            "metadata": _meta(plan, namespaced=False),
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": NAME},
            "subjects": [{"kind": "ServiceAccount", "name": NAME, "namespace": plan.namespace}],
        },
    ]


def remover_objects(plan: StartupTaintRemoverPlan) -> list[dict[str, Any]]:
    """ServiceAccount, ClusterRole (get and patch Nodes: ``kubectl taint`` reads, then patches), binding,
    ConfigMap (script and resource table) and DaemonSet, as Kubernetes objects."""
    if not plan.pools:
        return []
    return [
        *_rbac_objects(plan),
        {
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": _meta(plan),
            "data": {SCRIPT_KEY: SCRIPT, RESOURCES_KEY: json.dumps(plan.waits_for, sort_keys=True)},
        },
        _daemonset(plan),
    ]
