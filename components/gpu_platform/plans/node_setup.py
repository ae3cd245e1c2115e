"""What to put on the nodes of a pool the library does not create (``cloud: existing``, OpenShift, Yandex):
every label and taint a created pool's nodes carry (``scheduling.pool_labels`` and ``pool_taints``, the
functions the node pools use), and the ``kubectl`` commands that put them there.

The labels are what the rest of the plan relies on: the pool and GPU labels select the nodes (Kueue flavors,
KServe predictors), ``nvidia.com/device-plugin.config`` picks the pool's time-slicing or MPS config in the
GPU Operator's ConfigMap, ``nvidia.com/mig.config`` the MIG manager's layout; the ``nvidia.com/gpu`` taint
keeps ordinary pods off the GPUs.
"""

from __future__ import annotations

import shlex
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from gpu_platform.driver import DriverPlan
from gpu_platform.pools import GpuPool
from gpu_platform.scheduling import pool_labels, pool_taints


@dataclass(frozen=True)
class NodeSetup:
    """The labels and taints one pool's nodes need, and the commands that set them."""

    pool: str
    labels: dict[str, str]
    taints: list[str]
    """``key=value:Effect``, as ``kubectl taint`` takes them."""

    @property
    def placeholder(self) -> str:
        """Where the commands name the nodes: replaced by the pool's node names (several at once are fine)."""
        return f"<{self.pool}-node>"

    def commands(self) -> list[str]:
        """``kubectl label`` and ``kubectl taint``, with ``--overwrite`` so running them again after a change
        (a new sharing config, say) updates the nodes."""
        labels = " ".join(shlex.quote(f"{k}={v}") for k, v in self.labels.items())
        taints = " ".join(shlex.quote(t) for t in self.taints)
        return [
            f"kubectl label nodes {self.placeholder} {labels} --overwrite",
            f"kubectl taint nodes {self.placeholder} {taints} --overwrite",
        ]

    def output(self) -> dict[str, Any]:
        """The stack output's entry for the pool (``nodeSetup.<pool>``)."""
        return {"labels": dict(self.labels), "taints": list(self.taints), "commands": self.commands()}


def node_setup(pool: GpuPool, driver: DriverPlan) -> NodeSetup:
    """The pool's labels and taints exactly as a node pool the library created would carry them."""
    taints = [f"{t.key}={t.value}:{t.effect}" for t in pool_taints(pool)]
    return NodeSetup(pool.name, pool_labels(pool, driver), taints)


def node_setup_output(pools: Sequence[GpuPool], driver: DriverPlan) -> dict[str, dict[str, Any]]:
    """``nodeSetup``: pool name -> its labels, taints and commands, in pool order."""
    return {pool.name: node_setup(pool, driver).output() for pool in pools}
