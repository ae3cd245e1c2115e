"""A stack's plan as the objects a cluster would receive, and kwok nodes for its GPU pools.

``gpu-platform plan --render`` writes the plan's own manifests (``manifests/``) and every Helm release rendered
with its vendored chart (``rendered/<release>/``); ``plan_objects`` orders them as an install would (namespaces
and CRDs first). ``gpu_nodes`` makes each pool's nodes at its maximum size with the labels and taints of the
stack's ``nodeSetup`` output and the allocatable the plan's Kueue quotas count per node.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import Any

import yaml

from gpu_platform.offline import run_plan
from gpu_platform.offline.output import HELM_RELEASE
from gpu_platform.offline.recorder import SECRET_PLACEHOLDER
from gpu_platform.resolve.cluster_pools import resolve_pools
from gpu_platform.sharing import node_resources
from tests.support.helm import published_charts

REPO = Path(__file__).resolve().parents[2]
KWOK_ANNOTATION = {"kwok.x-k8s.io/node": "fake"}
"""kwok manages the nodes carrying it (``--manage-nodes-with-annotation-selector``, kwok's default)."""


@dataclass(frozen=True)
class PlannedCluster:
    out: Path
    manifests: list[dict[str, Any]]
    """The plan's own objects (``manifests/``)."""
    releases: dict[str, list[dict[str, Any]]]
    """Release name -> its rendered chart's objects."""
    node_setup: dict[str, Any]
    pools: list[Any]


def render_plan(project: Path, stack: str, out: Path) -> PlannedCluster:
    """``gpu-platform plan --render`` of ``project``'s ``stack`` into ``out``, read back."""
    env = {**os.environ, "PYTHONPATH": str(REPO / "components")}
    cmd = [sys.executable, "-m", "gpu_platform.cli", "plan", "--project", str(project), "--stack", stack]
    cmd += ["--out", str(out), "--render", "--charts", str(published_charts())]
    done = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    rendered = sorted((out / "rendered").iterdir()) if (out / "rendered").is_dir() else []
    releases = {d.name: _load(sorted(d.glob("*.yaml"))) for d in rendered}
    stack_file = yaml.safe_load((project / f"Pulumi.{stack}.yaml").read_text())["config"]
    cloud = stack_file.get("gpu-platform:cloud")  # a stack of the library's own program; examples vary
    pools = resolve_pools(cloud, stack_file.get("gpu-platform:gpuPools", [])) if cloud else []
    node_setup = run_plan(project, stack).outputs.get("nodeSetup", {})
    return PlannedCluster(out, _load(sorted((out / "manifests").glob("*.yaml"))), releases, node_setup, pools)


def _load(paths: Iterable[Path]) -> list[dict[str, Any]]:
    return [doc for p in paths for doc in yaml.safe_load_all(p.read_text()) if doc]


def install_events(obj: dict[str, Any]) -> bool:
    """Not a Helm hook, or a hook Helm runs on install (``pre-install``/``post-install``): what an install
    leaves in the cluster. Test and delete hooks are not."""
    hook = ((obj.get("metadata") or {}).get("annotations") or {}).get("helm.sh/hook")
    return hook is None or "install" in hook


def _rank(obj: dict[str, Any]) -> int:
    order = ("Namespace", "CustomResourceDefinition", "ServiceAccount", "ClusterRole", "Role")
    return order.index(obj["kind"]) if obj["kind"] in order else len(order)


def install_order(objects: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    return sorted(objects, key=_rank)


def _quantity(text: str) -> Decimal:
    units = {"m": Decimal("0.001"), "Ki": Decimal(1024), "Mi": Decimal(1024**2), "Gi": Decimal(1024**3)}
    for suffix, factor in units.items():
        if text.endswith(suffix):
            return Decimal(text[: -len(suffix)]) * factor
    return Decimal(text)


def flavor_quotas(manifests: list[dict[str, Any]]) -> dict[str, dict[str, Decimal]]:
    """Flavor -> resource -> nominal quota, over the plan's ClusterQueues."""
    out: dict[str, dict[str, Decimal]] = {}
    for cq in (m for m in manifests if m["kind"] == "ClusterQueue"):
        for group in cq["spec"]["resourceGroups"]:
            for flavor in group["flavors"]:
                for r in flavor["resources"]:
                    out.setdefault(flavor["name"], {})[r["name"]] = _quantity(str(r["nominalQuota"]))
    return out


def gpu_nodes(cluster: PlannedCluster) -> list[dict[str, Any]]:
    """Every GPU pool's nodes at its maximum size: the labels and taints the pool's nodes carry (``nodeSetup``
    where they are made elsewhere, else the library's and the cloud's own: ``cluster_stacks``), allocatable GPUs
    from ``sharing.node_resources`` and CPU/memory as the plan's quotas count one node."""
    from tests.support.cluster_stacks import pool_node_labels, pool_node_taints

    quotas = flavor_quotas(cluster.manifests)
    nodes = []
    for pool in cluster.pools:
        labels = pool_node_labels(pool, cluster.node_setup)
        taints = [
            f"{t['key']}={t['value']}:{t['effect']}" for t in pool_node_taints(pool, cluster.node_setup)
        ]
        per_node = {k: v / pool.max_nodes for k, v in quotas.get(pool.name, {}).items()}
        allocatable = {
            "cpu": f"{int(per_node.get('cpu', Decimal(pool.vcpus or 8)) * 1000)}m",
            "memory": f"{int(per_node.get('memory', Decimal(pool.memory_gib or 32) * 1024**3) / 1024**2)}Mi",
            "pods": "110",
            **{k: str(v) for k, v in node_resources(pool).items()},
        }
        for i in range(pool.max_nodes):
            nodes.append(kwok_node(f"{pool.name}-{i}", labels, taints, allocatable))
    return nodes


def kwok_node(
    name: str, labels: dict[str, str], taints: list[str], allocatable: dict[str, str]
) -> dict[str, Any]:
    """A node object only kwok backs: ``taints`` as ``kubectl taint`` writes them (``key=value:Effect``)."""
    parsed = []
    for taint in taints:
        key_value, effect = taint.rsplit(":", 1)
        key, _, value = key_value.partition("=")
        parsed.append({"key": key, "value": value, "effect": effect})
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {
            "name": name,
            "annotations": dict(KWOK_ANNOTATION),
            "labels": {**labels, "kubernetes.io/hostname": name, "type": "kwok"},
        },
        "spec": {"taints": parsed},
        "status": {"allocatable": allocatable, "capacity": allocatable},
    }


OUT_OF_BAND = ("MutatingWebhookConfiguration", "ValidatingWebhookConfiguration", "APIService")
"""Other charts' webhooks and aggregated APIs: their servers (KServe's, the Prometheus operator's) do not run
on the local control plane, so they are validated with a dry run rather than left to block later requests."""
KUEUE_HARNESS = ("CustomResourceDefinition", "Secret")
"""Kueue's objects ``start_kueue`` put in place pointed at loopback (its CRDs' conversion webhook, its webhook
certificate Secret): the chart's own versions are validated with a dry run, not stored over them."""


def helm_created_namespaces(out: Path) -> list[dict[str, Any]]:
    """The namespaces Helm creates for the plan's releases with ``createNamespace`` (``plan.json`` in ``out``):
    their charts' objects need them, and the plan has no Namespace resource for them."""
    plan = json.loads((out / "plan.json").read_text())
    names = sorted(
        {
            str(r["inputs"]["namespace"])
            for r in plan["resources"]
            if r["type"] == HELM_RELEASE
            and r["inputs"].get("createNamespace")
            and r["inputs"].get("namespace")
        }
    )
    return [{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}} for name in names]


def split_objects(plan: PlannedCluster) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(stored, dry-run): every chart object an install leaves, the namespaces Helm creates for them, and the
    plan's own manifests."""
    stored: list[dict[str, Any]] = [
        ns
        for ns in helm_created_namespaces(plan.out)
        if ns["metadata"]["name"] not in _namespaces(plan.manifests)
    ]
    dry: list[dict[str, Any]] = []
    for release, objects in plan.releases.items():
        for obj in filter(install_events, objects):
            skip = obj["kind"] in OUT_OF_BAND or (release == "kueue" and obj["kind"] in KUEUE_HARNESS)
            (dry if skip else stored).append(obj)
    return install_order(stored + [with_secret_values(m) for m in plan.manifests]), dry


def apply_plan(cp: Any, plan: PlannedCluster, manager: str = "gpu-platform-tests") -> list[Any]:
    """Every object of ``plan`` applied to the control plane ``cp`` (server-side apply as field manager
    ``manager``; the dry-run ones validated only); what the API server refused. Objects refused because a CRD
    was not established yet are applied once more, as a rerun of ``kubectl apply`` would."""
    stored, dry = split_objects(plan)
    refused = cp.try_apply(stored, manager=manager)
    if refused:
        cp.wait_established([o for o in stored if o["kind"] == "CustomResourceDefinition"])
        again = {(r.kind, r.name) for r in refused}
        refused = cp.try_apply((o for o in stored if (o["kind"], _object_name(o)) in again), manager=manager)
    # Dry runs as the harness's manager: Kueue's CRDs are stored under it (start_kueue), so the chart's own
    # conversion settings replace the loopback ones in the dry run instead of merging with them.
    return [*refused, *cp.try_apply(dry, dry_run=True)]


def with_secret_values(obj: dict[str, Any]) -> dict[str, Any]:
    """``obj`` with a stand-in where the offline plan wrote a secret whole (``SECRET_PLACEHOLDER`` in place of a
    Secret's ``data`` or ``stringData`` map: the value is unknown offline, its shape is not)."""
    if obj.get("kind") != "Secret":
        return obj
    out = dict(obj)
    for key in ("data", "stringData"):
        if out.get(key) == SECRET_PLACEHOLDER:
            out[key] = {"offline-plan": "c2VjcmV0" if key == "data" else "secret"}
    return out


def _namespaces(objects: Iterable[dict[str, Any]]) -> set[str]:
    return {o["metadata"]["name"] for o in objects if o["kind"] == "Namespace"}


def _object_name(obj: dict[str, Any]) -> str:
    meta = obj.get("metadata", {})
    return f"{meta['namespace']}/{meta['name']}" if meta.get("namespace") else str(meta.get("name"))
