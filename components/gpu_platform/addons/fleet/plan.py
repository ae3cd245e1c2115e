"""What a MultiKueue fleet creates, as plain objects: the manager's Kueue (queues whose quota is the sum of the
workers', each behind a MultiKueue AdmissionCheck), its ``MultiKueueConfig``s and ``MultiKueueCluster``s, and on
each worker its own Kueue (``kueue.plan`` over its pools, the same namespaces and LocalQueues).

Model (kubernetes-sigs/kueue v0.19.2 ``site/content/en/docs/concepts/multikueue.md``,
``site/content/en/docs/tasks/manage/setup_multikueue.md``, ``site/static/examples/multikueue/multikueue-setup.yaml``,
``apis/kueue/v1beta2/multikueue_types.go``):

- "the quota in the manager cluster should equal the total quota available in all worker clusters": each manager
  ClusterQueue's nominal quota, per flavor, is the sum of its workers' nominal quotas. The manager's flavors are
  empty (no node labels): it runs no job, and a cluster is never manager and worker at once.
- Workers mirror the job's namespace and LocalQueue; their ClusterQueues carry the quota of their own pools.
- One ``MultiKueueConfig`` and one AdmissionCheck (``kueue.x-k8s.io/multikueue``) per queue: its workers, most
  preferred first. One ``MultiKueueCluster`` per worker, its kubeconfig in the ``kubeconfig`` key of a Secret in
  Kueue's namespace.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import yaml

from gpu_platform.addons.fleet.checks import FleetQueue, FleetSpec, FleetWorker
from gpu_platform.addons.fleet.settings import Dispatcher
from gpu_platform.addons.kueue.checks import ClusterQueue, KueueSpec, QueueIndex
from gpu_platform.addons.kueue.plan import (
    API_VERSION,
    KueueObjects,
    KueuePlan,
    all_units,
    flavor_name,
    helm_values,
    kueue_plan,
    local_queues,
    nominal_shares,
    priority_classes,
    quantities,
    queue_policy,
    system_shares,
    team_namespaces,
)
from gpu_platform.addons.kueue.settings import SYSTEM_FLAVOR_NAME
from gpu_platform.plans.helm import deep_merge

MULTIKUEUE_CONTROLLER = "kueue.x-k8s.io/multikueue"
"""The AdmissionCheck controller of MultiKueue (``MultiKueueControllerName``, ``multikueue_types.go``)."""
KUBECONFIG_KEY = "kubeconfig"
"""The Secret key MultiKueue reads a worker's kubeconfig from (``MultiKueueConfigSecretKey``)."""
DISPATCHER_NAMES = {
    Dispatcher.ALL_AT_ONCE.value: "kueue.x-k8s.io/multikueue-dispatcher-all-at-once",
    Dispatcher.INCREMENTAL.value: "kueue.x-k8s.io/multikueue-dispatcher-incremental",
}
"""``multiKueue.dispatcherName`` (``apis/config/v1beta2/configuration_types.go``)."""


def admission_check_name(queue: str) -> str:
    return f"{queue}-multikueue"


def kubeconfig_secret_name(worker: str) -> str:
    return f"{worker}-multikueue-kubeconfig"


Limits = dict[str, list[int | None]]
"""Resource -> ``[nominal, borrowing limit, lending limit]`` in base units (``None``: no limit)."""


def worker_quotas(worker: FleetWorker) -> dict[str, dict[str, Limits]]:
    """Queue -> flavor -> the quotas its ClusterQueue gets on ``worker``, in base units: exactly what
    ``kueue.plan.cluster_queue`` writes there (the system flavor, its own pools, and with a cohort its peers' pools
    at nominal 0; a borrowing limit in percent of the flavor's capacity, a lending limit of its own share)."""
    spec, pools = worker.kueue, worker.pools
    index = QueueIndex(spec.cluster_queues, pools, spec.dra_compute_domains)
    used = {pool.name for q in spec.cluster_queues for pool in index.own(q)}
    units = all_units(pools, spec.capacity_basis, used)
    nominal = nominal_shares(spec.cluster_queues, index, units)
    system: list[dict[str, int] | None] = [*system_shares(spec)] or [None] * len(spec.cluster_queues)

    def limits(queue: ClusterQueue, capacity: Mapping[str, int], own: Mapping[str, int] | None) -> Limits:
        out: Limits = {}
        for resource in index.covered(queue):
            mine = own.get(resource, 0) if own is not None else 0
            borrow = lend = None
            if queue.cohort is not None and queue.borrowing_limit_percent is not None:
                borrow = capacity.get(resource, 0) * queue.borrowing_limit_percent // 100
            if queue.cohort is not None and queue.lending_limit_percent is not None and own is not None:
                lend = mine * queue.lending_limit_percent // 100
            out[resource] = [mine, borrow, lend]
        return out

    found: dict[str, dict[str, Limits]] = {}
    for q, share, own in zip(spec.cluster_queues, system, nominal, strict=True):
        flavors = {SYSTEM_FLAVOR_NAME: limits(q, share, share)} if share is not None else {}
        flavors.update({flavor_name(p): limits(q, units[p.name], own[p.name]) for p in index.own(q)})
        flavors.update({flavor_name(p): limits(q, units[p.name], None) for p in index.peers(q)})
        found[q.name] = flavors
    return found


def _summed(queue: FleetQueue, workers: Sequence[FleetWorker]) -> dict[str, Limits]:
    """Flavor -> resource -> the sums of the queue's quotas and limits on its workers (a limit no worker sets
    stays unset); system flavor first, then the queue's pools in its order, then its cohort peers' pools."""
    total: dict[str, Limits] = {}
    for worker in workers:
        if worker.name not in queue.workers:
            continue
        for flavor, resources in worker_quotas(worker).get(queue.name, {}).items():
            into = total.setdefault(flavor, {})
            for resource, values in resources.items():
                now = into.setdefault(resource, [0, None, None])
                now[0] = (now[0] or 0) + (values[0] or 0)
                for k in (1, 2):
                    if values[k] is not None:
                        now[k] = (now[k] or 0) + (values[k] or 0)
    order = [SYSTEM_FLAVOR_NAME, *queue.pools, *total]
    return {f: total[f] for f in dict.fromkeys(order) if f in total}


def _covered(flavors: Mapping[str, Mapping[str, Any]]) -> list[str]:
    """cpu and memory, then every other resource in the order the flavors name them (one resource group)."""
    others = [r for units in flavors.values() for r in units if r not in ("cpu", "memory")]
    return ["cpu", "memory", *dict.fromkeys(others)]


def _resource(name: str, values: Sequence[int | None]) -> dict[str, Any]:
    """One resource of a flavor as Kueue writes it: nominal quota, then the limits that are set."""
    entry: dict[str, Any] = {"name": name, "nominalQuota": quantities({name: values[0] or 0})[name]}
    for key, value in (("borrowingLimit", values[1]), ("lendingLimit", values[2])):
        if value is not None:
            entry[key] = quantities({name: value})[name]
    return entry


def manager_cluster_queue(queue: ClusterQueue, flavors: Mapping[str, Limits]) -> dict[str, Any]:
    """The manager's ClusterQueue: the fleet's total quota of the queue (and, in a cohort, the sums of its
    workers' borrowing and lending limits), admitted only through MultiKueue."""
    covered = _covered(flavors)
    groups = [
        {
            "coveredResources": covered,
            "flavors": [
                {"name": name, "resources": [_resource(r, limits.get(r, [0, None, None])) for r in covered]}
                for name, limits in flavors.items()
            ],
        }
    ]
    spec: dict[str, Any] = {
        **queue_policy(queue),
        "resourceGroups": groups,
        "admissionChecksStrategy": {"admissionChecks": [{"name": admission_check_name(queue.name)}]},
    }
    if queue.cohort is not None:
        spec["cohortName"] = queue.cohort
    return {"apiVersion": API_VERSION, "kind": "ClusterQueue", "metadata": {"name": queue.name}, "spec": spec}


def multikueue_objects(queue: FleetQueue) -> list[dict[str, Any]]:
    """The queue's AdmissionCheck and the MultiKueueConfig it names: its workers, in order."""
    name = admission_check_name(queue.name)
    return [
        {
            "apiVersion": API_VERSION,
            "kind": "AdmissionCheck",
            "metadata": {"name": name},
            "spec": {
                "controllerName": MULTIKUEUE_CONTROLLER,
                "parameters": {"apiGroup": "kueue.x-k8s.io", "kind": "MultiKueueConfig", "name": name},
            },
        },
        {
            "apiVersion": API_VERSION,
            "kind": "MultiKueueConfig",
            "metadata": {"name": name},
            "spec": {"clusters": list(queue.workers)},
        },
    ]


def multikueue_cluster(worker: str) -> dict[str, Any]:
    """The worker as the manager sees it: the Secret holding its kubeconfig, in Kueue's namespace."""
    return {
        "apiVersion": API_VERSION,
        "kind": "MultiKueueCluster",
        "metadata": {"name": worker},
        "spec": {
            "clusterSource": {
                "kubeConfig": {"locationType": "Secret", "location": kubeconfig_secret_name(worker)}
            }
        },
    }


def manager_values(spec: KueueSpec, dispatcher: str) -> dict[str, Any]:
    """The manager's chart values: Kueue's Configuration with the dispatcher (MultiKueue is on by default since
    Kueue 0.9, ``pkg/features/kube_features.go``)."""
    values = helm_values(spec)
    conf = yaml.safe_load(values["managerConfig"]["controllerManagerConfigYaml"])
    conf["multiKueue"] = {"dispatcherName": DISPATCHER_NAMES[dispatcher]}
    text = yaml.safe_dump(conf, sort_keys=False, default_flow_style=False)
    return deep_merge(values, {"managerConfig": {"controllerManagerConfigYaml": text}})


@dataclass(frozen=True)
class FleetPlan:
    """Everything ``GpuFleet`` creates."""

    spec: FleetSpec
    manager: KueuePlan
    """The manager's Kueue: its queues behind MultiKueue AdmissionChecks (in ``objects.admission_checks``)."""
    multikueue_configs: list[dict[str, Any]]
    multikueue_clusters: list[dict[str, Any]]
    workers: dict[str, KueuePlan]
    """Worker name -> its Kueue."""


def _manager_plan(spec: FleetSpec) -> tuple[KueuePlan, list[dict[str, Any]]]:
    kueue = spec.manager_kueue
    queues = {q.name: q for q in kueue.cluster_queues}
    summed = {q.name: _summed(q, spec.workers) for q in spec.queues}
    cluster_queues = [manager_cluster_queue(queues[q.name], summed[q.name]) for q in spec.queues]
    flavors = list(dict.fromkeys(f for q in spec.queues for f in summed[q.name]))
    mk = [o for q in spec.queues for o in multikueue_objects(q)]
    objects = KueueObjects(
        flavors=[
            {"apiVersion": API_VERSION, "kind": "ResourceFlavor", "metadata": {"name": f}, "spec": {}}
            for f in flavors
        ],
        cluster_queues=cluster_queues,
        namespaces=team_namespaces(kueue),
        local_queues=local_queues(kueue),
        priority_classes=priority_classes(kueue),
        admission_checks=[o for o in mk if o["kind"] == "AdmissionCheck"],
    )
    values = manager_values(kueue, spec.dispatcher)
    plan = KueuePlan(kueue, objects, values, spec.namespace)
    return plan, [o for o in mk if o["kind"] == "MultiKueueConfig"]


def fleet_plan(spec: FleetSpec) -> FleetPlan:
    """The fleet from its resolved spec (``checks.resolve_fleet_args``)."""
    manager, configs = _manager_plan(spec)
    workers = {w.name: kueue_plan(list(w.pools), w.kueue, w.namespace) for w in spec.workers}
    return FleetPlan(spec, manager, configs, [multikueue_cluster(w.name) for w in spec.workers], workers)
