"""GPU nodes against their pools: count, labels (the device-plugin config label among them), taints, and the
extended resources each node advertises for its pool's sharing."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from gpu_platform.policy_model.kube import parse_quantity
from gpu_platform.scheduling import DEVICE_PLUGIN_CONFIG_LABEL, POOL_LABEL
from gpu_platform.sharing import MEBIBYTE_RESOURCES
from gpu_platform.verify.expected import Expected, ExpectedPool
from gpu_platform.verify.finding import NODES, Finding, error, warning

OUTSIDE = "nodes outside the plan's pools"
"""The subject of GPU nodes that belong to no planned pool."""
GPU_RESOURCE_PREFIX = "nvidia.com/"


def name_of(obj: Mapping[str, Any]) -> str:
    return str((obj.get("metadata") or {}).get("name", ""))


def labels_of(obj: Mapping[str, Any]) -> Mapping[str, str]:
    return (obj.get("metadata") or {}).get("labels") or {}


def pool_nodes(pool: str, nodes: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """The nodes that carry the pool's label."""
    return [n for n in nodes if labels_of(n).get(POOL_LABEL) == pool]


def _taints(node: Mapping[str, Any]) -> list[str]:
    return [
        f"{t.get('key')}={t.get('value', '')}:{t.get('effect')}"
        for t in (node.get("spec") or {}).get("taints") or []
    ]


def _label_findings(pool: ExpectedPool, node: Mapping[str, Any]) -> Iterator[Finding]:
    labels, subject, obj = labels_of(node), f"pool {pool.name}", f"node {name_of(node)}"
    for key, value in pool.labels.items():
        if labels.get(key) != value:
            what = "device-plugin config label" if key == DEVICE_PLUGIN_CONFIG_LABEL else "label"
            found = f"{key}={labels[key]}" if key in labels else f"no {key} {what}"
            yield error(NODES, subject, obj, f"{what} {key}={value}", found)


def _taint_findings(pool: ExpectedPool, node: Mapping[str, Any]) -> Iterator[Finding]:
    taints = _taints(node)
    for taint in pool.taints:
        if taint not in taints:
            key = taint.split("=", 1)[0]
            same_key = [t for t in taints if t.split("=", 1)[0] == key]
            found = ", ".join(same_key) if same_key else f"no {key} taint"
            yield error(NODES, f"pool {pool.name}", f"node {name_of(node)}", f"taint {taint}", found)


def _allocatable_findings(pool: ExpectedPool, node: Mapping[str, Any]) -> Iterator[Finding]:
    allocatable = (node.get("status") or {}).get("allocatable") or {}
    for resource, units in pool.allocatable.items():
        raw = allocatable.get(resource)
        have = parse_quantity(raw) if raw is not None else None
        if resource in MEBIBYTE_RESOURCES:  # huge pages: at least what the pool's pods request
            ok, want = have is not None and have >= units * 2**20, f"allocatable {resource} >= {units}Mi"
        else:
            ok, want = have == units, f"allocatable {resource} = {units}"
        if not ok:
            found = f"{resource} = {raw}" if raw is not None else f"no {resource}"
            yield error(NODES, f"pool {pool.name}", f"node {name_of(node)}", want, found)


def pool_findings(pool: ExpectedPool, nodes: Sequence[Mapping[str, Any]]) -> Iterator[Finding]:
    """Every node of the pool against it; fewer nodes than the pool's minimum is an error too."""
    mine = pool_nodes(pool.name, nodes)
    if len(mine) < pool.min_nodes:
        want = f">= {pool.min_nodes} nodes with {POOL_LABEL}={pool.name}"
        yield error(NODES, f"pool {pool.name}", f"pool {pool.name}", want, f"{len(mine)} nodes")
    for node in mine:
        yield from _label_findings(pool, node)
        yield from _taint_findings(pool, node)
        yield from _allocatable_findings(pool, node)


def is_gpu_node(node: Mapping[str, Any]) -> bool:
    """A node that advertises NVIDIA resources or carries the GPU taint."""
    capacity = (node.get("status") or {}).get("capacity") or {}
    gpus = any(k.startswith(GPU_RESOURCE_PREFIX) and parse_quantity(v) for k, v in capacity.items())
    return gpus or any(t.startswith(f"{GPU_RESOURCE_PREFIX}gpu=") for t in _taints(node))


def stray_findings(expected: Expected, nodes: Sequence[Mapping[str, Any]]) -> Iterator[Finding]:
    """GPU nodes of no planned pool: made by hand, or a pool the plan no longer has."""
    pools = {p.name for p in expected.pools}
    for node in nodes:
        pool = labels_of(node).get(POOL_LABEL)
        if pool not in pools and is_gpu_node(node):
            found = f"{POOL_LABEL}={pool}" if pool else f"no {POOL_LABEL} label"
            yield warning(NODES, OUTSIDE, f"node {name_of(node)}", "a GPU node of a planned pool", found)


def node_findings(expected: Expected, nodes: Sequence[Mapping[str, Any]]) -> list[Finding]:
    out = [f for pool in expected.pools for f in pool_findings(pool, nodes)]
    return out + list(stray_findings(expected, nodes))
