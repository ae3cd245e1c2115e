"""Volcano, the other gang scheduler: one pinned release and a ``Queue`` per team whose quota is pool capacity.

Model (NEW_COMPONENTS_NOTES.md section 5; volcano-sh/volcano@v1.15.1 docs/user-guide/how_to_use_capacity_plugin.md):

- A team's ``Queue`` (``scheduling.volcano.sh/v1beta1``): ``deserved`` is the capacity of the pools the team owns,
  ``capability`` (the hard limit) is that or, with ``borrowing``, the capacity of every Volcano pool. Capacity is
  ``addons.kueue.plan.pool_capacity`` (cpu, memory and ``sharing.advertised_resources`` x ``max_nodes``: MIG profiles and
  time-sliced replicas included), the same function that makes Kueue's nominal quotas.
- ``deserved`` is read by Volcano's ``capacity`` plugin, not by the default ``proportion`` plugin, so the scheduler
  configuration is the one the capacity user guide gives: ``capacity`` instead of ``proportion`` and the
  ``reclaim`` action, which takes borrowed GPUs back when their owner needs them.
- Volcano quotas count resource names, not pools: a job chooses its pool with the pool's node labels and
  tolerations (``placements``, the same as Kueue's flavors inject), exposed as a component output.
- Volcano's own pods run on the system pool and never on GPU nodes (``custom.default_ns``/``default_affinity``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from gpu_platform.addons.kueue.plan import all_units, quantities
from gpu_platform.addons.volcano.checks import VolcanoSpec, VolcanoTeam, resolve_volcano_args
from gpu_platform.addons.workloads.plan import Placement, pool_placement
from gpu_platform.addons.workloads.settings import VolcanoArgs
from gpu_platform.mirror import Mirror
from gpu_platform.plans.helm import deep_merge
from gpu_platform.pools import GpuPool
from gpu_platform.releases import VOLCANO
from gpu_platform.scheduling import LABEL_PREFIX

API_VERSION = "scheduling.volcano.sh/v1beta1"
HELM_RELEASE_NAME = VOLCANO.release_name
"""Fixed: the chart names its scheduler ConfigMap ``<release>-scheduler-configmap`` and its admission service
after the release; Volcano's docs use ``volcano``."""
SCHEDULER_NAME = "volcano"
"""Pods (and the controllers' PodGroups) name this scheduler."""
QUEUE_ANNOTATION = "scheduling.volcano.sh/queue-name"
"""Pods, LeaderWorkerSets and TrainJobs pick their queue with this annotation; a Volcano ``Job`` uses
``spec.queue``, a RayCluster the label ``volcano.sh/queue-name``."""
TEAM_LABEL = f"{LABEL_PREFIX}/volcano-queue"
"""On team namespaces and queues: the team's Volcano queue."""
SCHEDULER_CONFIG = """\
actions: "enqueue, allocate, backfill, reclaim"
tiers:
- plugins:
  - name: priority
  - name: gang
    enablePreemptable: false
  - name: conformance
- plugins:
  - name: drf
    enablePreemptable: false
  - name: predicates
  - name: capacity
  - name: nodeorder
  - name: binpack
"""
"""volcano-scheduler.conf with the ``capacity`` plugin (queues' ``deserved``) and ``reclaim``, as Volcano's capacity
plugin user guide gives it at v1.15.1; the chart's default uses ``proportion``, which ignores ``deserved``."""


# ---------------------------------------------------------------------------------------------
# Capacity
# ---------------------------------------------------------------------------------------------

_SUFFIX = {"m": Decimal("0.001"), "Ki": Decimal(1024), "Mi": Decimal(1024**2), "Gi": Decimal(1024**3)}


def _value(quantity: int | str) -> Decimal:
    if isinstance(quantity, int):
        return Decimal(quantity)
    for suffix in ("Ki", "Mi", "Gi", "m"):
        if quantity.endswith(suffix):
            return Decimal(quantity[: -len(suffix)]) * _SUFFIX[suffix]
    return Decimal(quantity)


def _quantity(resource: str, value: Decimal) -> int | str:
    if resource == "memory":
        mib = value / _SUFFIX["Mi"]
        return f"{int(mib) // 1024}Gi" if mib % 1024 == 0 else f"{int(mib)}Mi"
    if value == value.to_integral_value():
        return int(value)
    return f"{int(value * 1000)}m"


def pool_capacities(spec: VolcanoSpec) -> dict[str, dict[str, int | str]]:
    """Pool name -> ``addons.kueue.plan.pool_capacity`` of every Volcano pool, computed in one pass."""
    return {name: quantities(units) for name, units in all_units(spec.pools, spec.capacity_basis).items()}


def _total(capacities: Iterable[Mapping[str, int | str]]) -> dict[str, int | str]:
    total: dict[str, Decimal] = {}
    for cap in capacities:
        for name, quantity in cap.items():
            total[name] = total.get(name, Decimal(0)) + _value(quantity)
    return {name: _quantity(name, value) for name, value in total.items()}


def capacity(
    spec: VolcanoSpec,
    pools: Iterable[GpuPool],
    capacities: Mapping[str, Mapping[str, int | str]] | None = None,
) -> dict[str, int | str]:
    """What ``pools`` hold at ``max_nodes``: the sum of ``addons.kueue.plan.pool_capacity`` (cpu, memory, every GPU
    resource they advertise), as Kubernetes quantities in the same spelling (``capacities``:
    ``pool_capacities(spec)``, when the caller computed it once)."""
    caps = pool_capacities(spec) if capacities is None else capacities
    return _total(caps[pool.name] for pool in pools)


# ---------------------------------------------------------------------------------------------
# Objects and values
# ---------------------------------------------------------------------------------------------


def queue(
    spec: VolcanoSpec,
    team: VolcanoTeam,
    capacities: Mapping[str, Mapping[str, int | str]] | None = None,
    everything: Mapping[str, int | str] | None = None,
) -> dict[str, Any]:
    """The team's Queue: ``deserved`` = its pools, ``capability`` = what it may use (``capacities`` and
    ``everything``, every pool's capacity and their sum, when the caller computed them once)."""
    caps = pool_capacities(spec) if capacities is None else capacities
    # spec.team_pools and spec.capability_pools, by name, without a scan of every pool per team.
    deserved = _total(caps[n] for n in team.pools if n in caps)
    if team.borrowing:
        limit = dict(everything) if everything is not None else _total(caps.values())
    else:
        limit = dict(deserved)
    return {
        "apiVersion": API_VERSION,
        "kind": "Queue",
        "metadata": {"name": team.name, "labels": {TEAM_LABEL: team.name}},
        "spec": {"reclaimable": True, "deserved": deserved, "capability": limit},
    }


def _queues(spec: VolcanoSpec) -> tuple[dict[str, Any], ...]:
    """Every team's Queue, with each pool's capacity (and every pool's, for borrowing) computed once."""
    caps = pool_capacities(spec)
    everything = _total(caps.values())
    return tuple(queue(spec, t, caps, everything) for t in spec.teams)


def team_namespaces(spec: VolcanoSpec) -> list[dict[str, Any]]:
    return [
        {
            "apiVersion": "v1",
            "kind": "Namespace",
            "metadata": {"name": t.namespace, "labels": {TEAM_LABEL: t.name}},
        }
        for t in spec.teams
    ]


def helm_values(placement: Placement, extra: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """Chart values: Volcano's pods on the system pool, the capacity-plugin scheduler configuration, and
    ``IfNotPresent`` for the pinned ``v1.15.1`` images (the chart's default policy is ``Always``)."""
    custom: dict[str, Any] = {
        "default_affinity": dict(placement.affinity),
        "scheduler_config_override": SCHEDULER_CONFIG,
    }
    if placement.node_selector:
        custom["default_ns"] = dict(placement.node_selector)
    typed = {"basic": {"image_pull_policy": "IfNotPresent"}, "custom": custom}
    return deep_merge(dict(extra or {}), typed)


@dataclass(frozen=True)
class VolcanoPlan:
    """Everything the ``Volcano`` component creates."""

    spec: VolcanoSpec
    values: dict[str, Any]
    queues: tuple[dict[str, Any], ...]
    namespaces: tuple[dict[str, Any], ...]
    placements: dict[str, dict[str, Any]]
    """Pool -> ``{"nodeSelector", "tolerations"}`` a Volcano job's pod template needs to run there."""
    manage_namespaces: bool = True
    """Create the team namespaces (the stack layer creates every namespace itself, once)."""
    secret_values: bool = False
    """The user's values hold a secret: the values input is stored encrypted."""
    mirror: Mirror | None = None
    """Where the chart and its images come from instead of upstream."""

    @property
    def namespace(self) -> str:
        return VOLCANO.namespace


def volcano_plan(
    spec: VolcanoSpec,
    placement: Placement | None = None,
    manage_namespaces: bool = True,
    secret: bool = False,
    mirror: Mirror | None = None,
) -> VolcanoPlan:
    """The plan from a resolved spec (checks have run); ``placement`` defaults to the spec's node selector,
    ``mirror`` (the stack's) to the spec's."""
    if placement is None:
        placement = Placement(dict(spec.node_selector or {}))
    return VolcanoPlan(
        spec=spec,
        values=helm_values(placement, spec.values),
        queues=_queues(spec),
        namespaces=tuple(team_namespaces(spec)),
        placements={p.name: pool_placement(p) for p in spec.pools},
        manage_namespaces=manage_namespaces,
        secret_values=secret,
        mirror=mirror if mirror is not None else spec.mirror,
    )


def volcano_args_plan(args: VolcanoArgs) -> VolcanoPlan:
    """``Volcano``'s plan from its arguments: resolve then plan, as the component does."""
    return volcano_plan(resolve_volcano_args(args))


def queue_names(plan: VolcanoPlan) -> Sequence[str]:
    return [q["metadata"]["name"] for q in plan.queues]


def __getattr__(name: str) -> object:
    """Renamed plan functions resolve under their old names, with a warning (``gpu_platform._moved``)."""
    from gpu_platform._moved import moved_attribute

    return moved_attribute(__name__, name)
