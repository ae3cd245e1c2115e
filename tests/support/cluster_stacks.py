"""Every stack (``stacks/Pulumi.<env>.yaml``) and every example that targets Kubernetes as a cluster for the local
control plane: the plan rendered (``gpu-platform plan --render``), the GPU pools the program resolved, and kwok
nodes for each pool at its maximum size with what its cloud gives such a node: the pool's labels and taints
(``scheduling.pool_labels``/``pool_taints`` plus the taints the cloud adds itself, or the ``nodeSetup`` output
where the nodes are made elsewhere), the network-topology labels a topology-aware pool's machines carry, and the
allocatable of the cloud's published kubelet reservation (``catalog.allocatable.node_allocatable``).

Plans are rendered in subprocesses, two at a time, before the first is needed (``Renders``); the pools come
from the same run (``resolve.pools.resolve_pool`` recorded), pickled next to the plan.
"""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples"
NOT_KUBERNETES = {
    "docker-host-l4": "a GPU Docker host (a VM), no Kubernetes cluster",
    "typescript-gke-gpu-pools": "a Node.js program: the offline plan runs Python programs only",
    "yaml-gpu-pools": "a Pulumi YAML program: the offline plan runs Python programs only",
    "multikueue-fleet": "several clusters (a MultiKueue manager and its workers), not one control plane",
}
"""Examples left out, and why."""


@dataclass(frozen=True)
class Target:
    """One stack of one project: ``id`` is ``stacks/<env>`` or ``<example>/<stack>``."""

    project: Path
    stack: str
    id: str

    @property
    def cloud(self) -> str | None:
        """The stack file's ``gpu-platform:cloud`` (None where the program does not read one); the stack file is
        in the project's ``stackConfigDir`` where ``Pulumi.yaml`` names one (the library's own stacks)."""
        project = yaml.safe_load((self.project / "Pulumi.yaml").read_text())
        folder = self.project / project.get("stackConfigDir", ".")
        config = yaml.safe_load((folder / f"Pulumi.{self.stack}.yaml").read_text())["config"]
        return config.get("gpu-platform:cloud")


DEFAULT_TARGETS = ("stacks/dev", "existing-cluster/example", "topology-aware-training/example")
"""What ``make test`` runs (``$GPU_PLATFORM_CP_TARGETS`` unset or empty), a few minutes on two cores: the dev stack
(GKE pools, sharing, a JobSet gang, KServe), the existing-cluster example and a topology-aware pool (EKS)."""


def targets() -> list[Target]:
    """The targets ``$GPU_PLATFORM_CP_TARGETS`` (comma-separated) names: unset or empty, ``DEFAULT_TARGETS``;
    ``all``, the library's stacks then every example's stack files (less ``NOT_KUBERNETES``);
    else the listed ids (``stacks/<env>`` or ``<example>/<stack>``), in that same order."""
    wanted = {t for t in os.environ.get("GPU_PLATFORM_CP_TARGETS", "").split(",") if t} or set(
        DEFAULT_TARGETS
    )
    every = _all_targets()
    if "all" in wanted:
        return every
    unknown = wanted - {t.id for t in every}
    if unknown:
        raise ValueError(
            f"GPU_PLATFORM_CP_TARGETS: no such target {sorted(unknown)}; ids: {[t.id for t in every]}"
        )
    return [t for t in every if t.id in wanted]


def _all_targets() -> list[Target]:
    out = [
        Target(REPO, p.name.split(".")[1], f"stacks/{p.name.split('.')[1]}")
        for p in _stack_files(REPO / "stacks")
    ]
    for example in sorted(EXAMPLES.iterdir()):
        if example.name in NOT_KUBERNETES or not (example / "Pulumi.yaml").exists():
            continue
        for path in _stack_files(example):
            stack = path.name.split(".")[1]
            out.append(Target(example, stack, f"{example.name}/{stack}"))
    return out


def _stack_files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.glob("Pulumi.*.yaml") if p.name.count(".") == 2)


@dataclass(frozen=True)
class Rendered:
    target: Target
    out: Path
    manifests: list[dict[str, Any]]
    releases: dict[str, list[dict[str, Any]]]
    pools: list[Any]
    """The ``GpuPool``s the program resolved, by name (the last resolution of a name wins)."""
    node_setup: dict[str, Any]

    def of_kind(self, kind: str) -> list[dict[str, Any]]:
        return [m for m in self.manifests if m["kind"] == kind]


def _load(paths: Any) -> list[dict[str, Any]]:
    return [doc for p in paths for doc in yaml.safe_load_all(p.read_text()) if doc]


def read_rendered(target: Target, out: Path) -> Rendered:
    rendered = sorted((out / "rendered").iterdir()) if (out / "rendered").is_dir() else []
    releases = {d.name: _load(sorted(d.glob("*.yaml"))) for d in rendered}
    recorded = pickle.loads((out / "pools.pickle").read_bytes())
    return Rendered(
        target,
        out,
        _load(sorted((out / "manifests").glob("*.yaml"))),
        releases,
        recorded["pools"],
        recorded["node_setup"],
    )


def render(target: Target, out: Path, charts: Path, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    """``python -m tests.support.cluster_stacks PROJECT STACK OUT CHARTS`` (``main`` below)."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO / "components"), str(REPO)])}
    args = [str(target.project), target.stack, str(out), str(charts)]
    cmd = [sys.executable, "-m", "tests.support.cluster_stacks", *args]
    return subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout, cwd=REPO)


class Renders:
    """Every target rendered in the background, ``workers`` at a time, in the order given, with the vendored
    charts as their releases publish them (``helm.published_charts``: Envoy Gateway's generated values)."""

    def __init__(self, targets: list[Target], root: Path, workers: int = 2) -> None:
        from tests.support.helm import published_charts

        self._pool = ThreadPoolExecutor(max_workers=workers)
        self._futures: dict[str, Future[subprocess.CompletedProcess[str]]] = {}
        self._root = root
        charts = published_charts()
        for target in targets:
            self._futures[target.id] = self._pool.submit(render, target, self.out(target), charts)

    def out(self, target: Target) -> Path:
        return self._root / target.id.replace("/", "--")

    def get(self, target: Target) -> Rendered:
        done = self._futures[target.id].result(timeout=600)
        assert done.returncode == 0, (
            f"plan of {target.id} failed:\n{done.stdout[-3000:]}{done.stderr[-3000:]}"
        )
        return read_rendered(target, self.out(target))

    def close(self) -> None:
        for future in self._futures.values():
            future.cancel()
        self._pool.shutdown(wait=True, cancel_futures=True)


@contextmanager
def recording() -> Iterator[tuple[dict[str, Any], list[Any]]]:
    """Every pool ``resolve_pool`` returns while inside (by name) and every offline ``Plan`` made."""
    import gpu_platform.offline.runner as runner
    import gpu_platform.resolve.pools as resolving

    pools: dict[str, Any] = {}
    plans: list[Any] = []
    resolve, plan = resolving.resolve_pool, runner.Plan

    def record_pool(*args: Any, **kwargs: Any) -> Any:
        pool = resolve(*args, **kwargs)
        if pool is not None:
            pools[pool.name] = pool
        return pool

    def record_plan(*args: Any, **kwargs: Any) -> Any:
        plans.append(plan(*args, **kwargs))
        return plans[-1]

    resolving.resolve_pool = record_pool
    runner.Plan = record_plan  # type: ignore[assignment,misc]
    try:
        yield pools, plans
    finally:
        resolving.resolve_pool = resolve
        runner.Plan = plan  # type: ignore[misc]


def main(argv: list[str]) -> int:
    """Render ``PROJECT``'s ``STACK`` into ``OUT`` with the charts in ``CHARTS``; pickle the pools it resolved and
    its ``nodeSetup`` output."""
    project, stack, out, charts = argv
    from gpu_platform import cli

    with recording() as (pools, plans):
        args = ["plan", "--project", project, "--stack", stack, "--out", out]
        code = cli.main([*args, "--render", "--charts", charts])
    if code:
        return int(code)
    node_setup = plans[-1].outputs.get("nodeSetup", {}) if plans else {}
    recorded = {"pools": list(pools.values()), "node_setup": node_setup}
    (Path(out) / "pools.pickle").write_bytes(pickle.dumps(recorded))
    return 0


# --- nodes -------------------------------------------------------------------------------------------------------

KWOK_ANNOTATION = {"kwok.x-k8s.io/node": "fake"}
BLOCKS = 2
"""Topology-aware pools' nodes are spread over this many blocks (the broadest topology level)."""


def pool_node_labels(pool: Any, node_setup: dict[str, Any]) -> dict[str, str]:
    """The pool's labels (``nodeSetup`` where the nodes are made elsewhere, else ``pool_labels``)."""
    from gpu_platform.scheduling import pool_labels

    if pool.name in node_setup:
        return dict(node_setup[pool.name]["labels"])
    return pool_labels(pool)


def pool_node_taints(pool: Any, node_setup: dict[str, Any]) -> list[dict[str, str]]:
    """The library's taints and the ones the cloud adds to such a node by itself (AKS spot)."""
    from gpu_platform.scheduling import cloud_added_taints, pool_taints

    if pool.name in node_setup:
        taints = []
        for text in node_setup[pool.name]["taints"]:
            key_value, effect = text.rsplit(":", 1)
            key, _, value = key_value.partition("=")
            taints.append({"key": key, "value": value, "effect": effect})
        return taints
    return [
        {"key": t.key, "value": t.value, "effect": t.effect}
        for t in [*pool_taints(pool), *cloud_added_taints(pool)]
    ]


def pool_allocatable(pool: Any) -> dict[str, str]:
    """One node's allocatable: CPU, memory and pods from the cloud's kubelet reservation for the machine, every
    extended resource ``sharing.node_resources`` says it advertises; on isolated (HAMi) pools also the card
    memory and compute HAMi's scheduler extender accounts for (``nvidia.com/gpumem``, ``nvidia.com/gpucores``):
    the extender does not run here, so the default scheduler checks them as node resources instead."""
    from gpu_platform.catalog.allocatable import node_allocatable
    from gpu_platform.cloud_facts import profile_of
    from gpu_platform.sharing import (
        GPU_CORES_RESOURCE,
        GPU_MEMORY_RESOURCE,
        card_memory_mib,
        node_resources,
        resource_quantity,
    )

    out = {k: str(resource_quantity(k, v)) for k, v in node_resources(pool).items()}
    if pool.sharing.mode == "isolated":
        out[GPU_MEMORY_RESOURCE] = str(card_memory_mib(pool) * pool.gpus_per_node)
        out[GPU_CORES_RESOURCE] = str(100 * pool.gpus_per_node)
    cpu, memory, pods = 32000, 256 * 1024, 110
    if pool.vcpus and pool.memory_gib:
        profile = profile_of(pool.cloud)
        try:
            max_pods = profile.default_max_pods(pool.machine.name if pool.machine else "", pool.vcpus)
            a = node_allocatable(profile, pool.vcpus, pool.memory_gib, max_pods)
            cpu, memory, pods = a.cpu_millicores, a.memory_mib, max_pods
        except (
            ValueError
        ):  # no published kubelet reservation (existing, OpenShift, Yandex): the whole machine
            cpu, memory = pool.vcpus * 1000, int(pool.memory_gib * 1024)
    return {"cpu": f"{cpu}m", "memory": f"{memory}Mi", "pods": str(pods), **out}


def topology_labels(pool: Any, index: int) -> dict[str, str]:
    """The network-topology labels the cloud puts on node ``index`` of a topology-aware pool: the nodes split
    over ``BLOCKS`` blocks (the broadest level), each narrower level nested in its parent; the hostname level
    is the node's own label; the node pool level (GKE A4X) is the pool's name."""
    if pool.topology is None:
        return {}
    per_block = max(1, -(-pool.max_nodes // BLOCKS))
    block = f"b{index // per_block}"
    labels: dict[str, str] = {}
    for depth, key in enumerate(pool.topology.levels[:-1]):
        if key == "cloud.google.com/gke-nodepool":
            labels[key] = pool.name
        elif key.endswith("-host"):
            labels[key] = f"h{index}"
        else:
            labels[key] = block if depth == 0 else f"{block}-{depth}"
    return labels


def kwok_nodes(rendered: Rendered) -> list[dict[str, Any]]:
    """Every pool's nodes at its maximum size."""
    nodes = []
    for pool in rendered.pools:
        labels = pool_node_labels(pool, rendered.node_setup)
        taints = pool_node_taints(pool, rendered.node_setup)
        allocatable = pool_allocatable(pool)
        for i in range(pool.max_nodes):
            name = f"{pool.name}-{i}"
            nodes.append(
                {
                    "apiVersion": "v1",
                    "kind": "Node",
                    "metadata": {
                        "name": name,
                        "annotations": dict(KWOK_ANNOTATION),
                        "labels": {
                            **labels,
                            **topology_labels(pool, i),
                            "kubernetes.io/hostname": name,
                            "type": "kwok",
                        },
                    },
                    "spec": {"taints": taints},
                    "status": {"allocatable": allocatable, "capacity": allocatable},
                }
            )
    return nodes


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
