"""Kueue objects derived from the GPU pools: flavors, cluster queues, team queues, priorities, Configuration.

Pure functions that return Kubernetes objects as plain dicts (``kueue.x-k8s.io/v1beta2`` and the
``config.kueue.x-k8s.io/v1beta2`` Configuration), so quotas and limits are testable without Pulumi.

Model (GPU_PLATFORM_FACTS.md section 6):

- One ``ResourceFlavor`` per pool: ``nodeLabels`` select the pool's nodes, ``tolerations`` are the
  pool's taints (GPU taint, user taints, the AKS spot taint). Kueue injects both into admitted pods.
- Quota = physical capacity: per pool, ``advertised_resources(pool) x max_nodes`` plus the node's
  cpu and memory x ``max_nodes``. A pool is the nominal quota of exactly one ClusterQueue, so the
  sum of nominal quotas never exceeds what the nodes hold.
- One resource group per ClusterQueue covering ``cpu``, ``memory`` and every GPU resource of its
  pools; each flavor lists all covered resources, ``0`` for what its nodes do not advertise. Kueue
  allows a resource in only one group, and cpu/memory belong to the same nodes as the GPUs: splitting
  them into separate groups would let Kueue take cpu from one pool and GPUs from another and inject
  two contradicting ``nodeSelector``s.
- Queues in a cohort also list the flavors their cohort peers own, with ``nominalQuota: 0``: Kueue
  borrows per flavor, so this is what lets a team borrow an idle pool of another team.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import yaml

from gpu_platform import versions
from gpu_platform.args.kueue import DEFAULT_CLUSTER_QUEUE, KueueArgs
from gpu_platform.args.validate import check_arguments
from gpu_platform.errors import Problems
from gpu_platform.plans.dra import kueue_device_class_mappings
from gpu_platform.plans.helm import deep_merge
from gpu_platform.pools import GpuPool
from gpu_platform.resolve.cloud_pools import resolve_cluster_pools
from gpu_platform.resolve.kueue import (
    ClusterQueue,
    KueueSpec,
    cohort_peers,
    covered_resources,
    queue_pools,
    resolve_kueue,
)
from gpu_platform.resolve.pools import check_cuda_default
from gpu_platform.scheduling import LABEL_PREFIX, pool_tolerations, selector_labels
from gpu_platform.sharing import node_resources

API_VERSION = "kueue.x-k8s.io/v1beta2"
CONFIG_API_VERSION = "config.kueue.x-k8s.io/v1beta2"
QUEUE_NAME_LABEL = "kueue.x-k8s.io/queue-name"
"""Jobs select a LocalQueue with this label."""
PRIORITY_CLASS_LABEL = "kueue.x-k8s.io/priority-class"
"""Jobs select a WorkloadPriorityClass with this label."""
CLUSTER_QUEUE_NAMESPACE_LABEL = f"{LABEL_PREFIX}/cluster-queue"
"""On team namespaces: a ClusterQueue's ``namespaceSelector`` admits namespaces labelled with its name."""
HELM_RELEASE_NAME = "kueue"
"""Fixed Helm release name: the chart's object names (``kueue-webhook-service``, ``kueue-controller-manager``)
then match the defaults Kueue's internal certificate management expects."""
DEFAULT_CLUSTER_QUEUE_NAME = DEFAULT_CLUSTER_QUEUE


# ---------------------------------------------------------------------------------------------
# Capacity and quantities
# ---------------------------------------------------------------------------------------------


def flavor_name(pool: GpuPool) -> str:
    """The ResourceFlavor of a pool carries the pool's name (what ``kubectl get workloads`` shows)."""
    return pool.name


def _units(pool: GpuPool) -> dict[str, int]:
    """Physical capacity of the whole pool in base units: cpu in millicores, memory in MiB."""
    n = pool.max_nodes
    out = {"cpu": (pool.vcpus or 0) * 1000 * n, "memory": (pool.memory_gib or 0) * 1024 * n}
    out.update({name: units * n for name, units in node_resources(pool).items()})
    return out


def _quantity(resource: str, units: int) -> int | str:
    if resource == "cpu":
        return units // 1000 if units % 1000 == 0 else f"{units}m"
    if resource == "memory":
        return f"{units // 1024}Gi" if units % 1024 == 0 else f"{units}Mi"
    return units


def pool_capacity(pool: GpuPool) -> dict[str, int | str]:
    """What the pool holds at ``max_nodes``, as Kubernetes quantities.

    2 nodes of 8 x H100 with ``all-1g.10gb`` (mixed) -> ``{"cpu": ..., "memory": "...Gi",
    "nvidia.com/mig-1g.10gb": 112}``.
    """
    return {name: _quantity(name, units) for name, units in _units(pool).items()}


def _percent(resource: str, units: int, percent: int) -> int | str:
    return _quantity(resource, units * percent // 100)


# ---------------------------------------------------------------------------------------------
# Objects
# ---------------------------------------------------------------------------------------------


def resource_flavor(pool: GpuPool) -> dict[str, Any]:
    """The pool as a ResourceFlavor: admitted pods get its node labels and tolerations."""
    return {
        "apiVersion": API_VERSION,
        "kind": "ResourceFlavor",
        "metadata": {"name": flavor_name(pool)},
        "spec": {"nodeLabels": selector_labels(pool), "tolerations": pool_tolerations(pool)},
    }


def _flavor_quotas(pool: GpuPool, covered: Sequence[str], owned: bool, queue: ClusterQueue) -> dict[str, Any]:
    units = _units(pool)
    resources = []
    for name in covered:
        capacity = units.get(name, 0)
        nominal = capacity if owned else 0
        entry: dict[str, Any] = {"name": name, "nominalQuota": _quantity(name, nominal)}
        if queue.cohort is not None and queue.borrowing_limit_percent is not None:
            # Percent of the pool's capacity: on a peer's flavor (nominal 0) that is what may be borrowed.
            entry["borrowingLimit"] = _percent(name, capacity, queue.borrowing_limit_percent)
        if queue.cohort is not None and queue.lending_limit_percent is not None and owned:
            entry["lendingLimit"] = _percent(name, nominal, queue.lending_limit_percent)
        resources.append(entry)
    return {"name": flavor_name(pool), "resources": resources}


def cluster_queue(
    queue: ClusterQueue, owned: Sequence[GpuPool], borrowable: Sequence[GpuPool] = ()
) -> dict[str, Any]:
    """A ClusterQueue whose nominal quota is the physical capacity of ``owned`` pools."""
    covered = covered_resources([*owned, *borrowable])
    flavors = [_flavor_quotas(p, covered, True, queue) for p in owned]
    flavors += [_flavor_quotas(p, covered, False, queue) for p in borrowable]
    p = queue.preemption
    spec: dict[str, Any] = {
        "namespaceSelector": {"matchLabels": {CLUSTER_QUEUE_NAMESPACE_LABEL: queue.name}},
        "queueingStrategy": queue.queueing_strategy,
        "preemption": {
            "withinClusterQueue": p.within_cluster_queue,
            "reclaimWithinCohort": p.reclaim_within_cohort,
            "borrowWithinCohort": {"policy": p.borrow_within_cohort},
        },
        "resourceGroups": [{"coveredResources": covered, "flavors": flavors}] if flavors else [],
    }
    if queue.cohort is not None:
        spec["cohortName"] = queue.cohort
    return {"apiVersion": API_VERSION, "kind": "ClusterQueue", "metadata": {"name": queue.name}, "spec": spec}


def cluster_queues(spec: KueueSpec, pools: Sequence[GpuPool]) -> list[dict[str, Any]]:
    queues = spec.cluster_queues
    return [cluster_queue(q, queue_pools(q, pools), cohort_peers(q, queues, pools)) for q in queues]


def team_namespaces(spec: KueueSpec) -> list[dict[str, Any]]:
    """One Namespace per distinct team namespace, labelled for its ClusterQueue's namespaceSelector."""
    out: dict[str, dict[str, Any]] = {}
    for team in spec.teams:
        ns = team.namespace
        out.setdefault(
            ns,
            {
                "apiVersion": "v1",
                "kind": "Namespace",
                "metadata": {"name": ns, "labels": {CLUSTER_QUEUE_NAMESPACE_LABEL: team.cluster_queue}},
            },
        )
    return list(out.values())


def local_queues(spec: KueueSpec) -> list[dict[str, Any]]:
    out: dict[tuple[str, str], dict[str, Any]] = {}
    for team in spec.teams:
        ns = team.namespace
        out.setdefault(
            (ns, team.queue_name),
            {
                "apiVersion": API_VERSION,
                "kind": "LocalQueue",
                "metadata": {"name": team.queue_name, "namespace": ns},
                "spec": {"clusterQueue": team.cluster_queue},
            },
        )
    return list(out.values())


def priority_classes(spec: KueueSpec) -> list[dict[str, Any]]:
    """WorkloadPriorityClasses: ``value`` and ``description`` sit at the top level, not under ``spec``."""
    out = []
    for pc in spec.priority_classes:
        obj: dict[str, Any] = {
            "apiVersion": API_VERSION,
            "kind": "WorkloadPriorityClass",
            "metadata": {"name": pc.name},
            "value": pc.value,
        }
        if pc.description:
            obj["description"] = pc.description
        out.append(obj)
    return out


def manager_configuration(
    spec: KueueSpec, device_class_mappings: Sequence[Mapping[str, Any]] = ()
) -> dict[str, Any]:
    """The controller's Configuration: the chart's defaults, gang admission and the integrations.

    In config v1beta2 the presence of ``waitForPodsReady`` enables it (there is no ``enable`` field).
    ``device_class_mappings`` (DRA pools, issue 16) charge their ResourceClaimTemplates to the pools' quotas.
    """
    conf: dict[str, Any] = {
        "apiVersion": CONFIG_API_VERSION,
        "kind": "Configuration",
        "health": {"healthProbeBindAddress": ":8081"},
        "metrics": {"bindAddress": ":8443"},
        "webhook": {"port": 9443},
        "leaderElection": {"leaderElect": True, "resourceName": "c1f6bfd2.kueue.x-k8s.io"},
        "controller": {
            "groupKindConcurrency": {
                "Job.batch": 5,
                "Pod": 5,
                "Workload.kueue.x-k8s.io": 10,
                "LocalQueue.kueue.x-k8s.io": 5,
                "Cohort.kueue.x-k8s.io": 1,
                "ClusterQueue.kueue.x-k8s.io": 5,
                "ResourceFlavor.kueue.x-k8s.io": 1,
            }
        },
        "clientConnection": {"qps": 300, "burst": 500},
    }
    w = spec.wait_for_pods_ready
    if w.enabled:
        r = w.requeuing_strategy
        strategy: dict[str, Any] = {"timestamp": r.timestamp}
        if r.backoff_limit_count is not None:
            strategy["backoffLimitCount"] = r.backoff_limit_count
        strategy.update(backoffBaseSeconds=r.backoff_base_seconds, backoffMaxSeconds=r.backoff_max_seconds)
        conf["waitForPodsReady"] = {
            "timeout": w.timeout,
            "blockAdmission": w.block_admission,
            "requeuingStrategy": strategy,
        }
    conf["integrations"] = {"frameworks": list(spec.integrations)}
    if device_class_mappings:  # DRA (issue 16)
        conf["resources"] = {"deviceClassMappings": [dict(m) for m in device_class_mappings]}
    return conf


def manager_config_yaml(spec: KueueSpec, device_class_mappings: Sequence[Mapping[str, Any]] = ()) -> str:
    """``managerConfig.controllerManagerConfigYaml``: the Configuration as the YAML string of the chart."""
    conf = manager_configuration(spec, device_class_mappings)
    return yaml.safe_dump(conf, sort_keys=False, default_flow_style=False)


@dataclass
class KueueObjects:
    flavors: list[dict[str, Any]] = field(default_factory=list)
    cluster_queues: list[dict[str, Any]] = field(default_factory=list)
    namespaces: list[dict[str, Any]] = field(default_factory=list)
    local_queues: list[dict[str, Any]] = field(default_factory=list)
    priority_classes: list[dict[str, Any]] = field(default_factory=list)

    def custom_resources(self) -> Iterator[dict[str, Any]]:
        yield from self.flavors
        yield from self.cluster_queues
        yield from self.local_queues
        yield from self.priority_classes


def build(pools: Sequence[GpuPool], spec: KueueSpec) -> KueueObjects:
    """Every Kueue object for the pools and settings."""
    return KueueObjects(
        flavors=[resource_flavor(p) for p in pools],
        cluster_queues=cluster_queues(spec, pools),
        namespaces=team_namespaces(spec),
        local_queues=local_queues(spec),
        priority_classes=priority_classes(spec),
    )


def helm_values(spec: KueueSpec, device_class_mappings: Sequence[Mapping[str, Any]] = ()) -> dict[str, Any]:
    """Chart values: the pinned release image and the controller Configuration (typed values win)."""
    typed = {
        "controllerManager": {
            "manager": {
                "image": {
                    "repository": versions.KUEUE_IMAGE_REPOSITORY,
                    "tag": versions.KUEUE_IMAGE_TAG,
                    "pullPolicy": "IfNotPresent",
                }
            }
        },
        "managerConfig": {"controllerManagerConfigYaml": manager_config_yaml(spec, device_class_mappings)},
    }
    return deep_merge(dict(spec.values), typed)


@dataclass(frozen=True)
class KueuePlan:
    """Everything the ``Kueue`` component creates."""

    spec: KueueSpec
    objects: KueueObjects
    values: dict[str, Any]
    namespace: str
    manage_namespaces: bool = True
    """Create the team namespaces (the stack layer creates every namespace itself, once)."""
    secret_values: bool = False
    """The user's chart values hold a secret: the whole values input is stored encrypted."""

    def retained_namespaces(self) -> set[str]:
        """Team namespaces kept when their team or Kueue is removed (unless every team in it opts out)."""
        return {t.namespace for t in self.spec.teams if t.retain_namespace}


def kueue_plan(
    pools: Sequence[GpuPool],
    spec: KueueSpec,
    namespace: str,
    manage_namespaces: bool = True,
    secret: bool = False,
) -> KueuePlan:
    """The plan from resolved pools and settings (the stack layer's path; checks have run)."""
    mappings = kueue_device_class_mappings(pools)  # DRA pools (issue 16)
    return KueuePlan(
        spec, build(pools, spec), helm_values(spec, mappings), namespace, manage_namespaces, secret
    )


def plan_kueue(args: KueueArgs) -> KueuePlan:
    """``Kueue``'s arguments checked and resolved like the stack file's ``kueue``; ``ArgumentsError`` lists
    every problem with its argument path."""
    p = Problems()
    checked = check_arguments(KueueArgs, args, p)
    if checked is None:
        p.raise_for_arguments()
    assert checked is not None
    check_cuda_default(checked.get("cuda_version"), p.at("cuda_version"))
    at = lambda i: p.at("pools", i)  # noqa: E731
    resolved = resolve_cluster_pools(checked["cloud"], checked["pools"], checked.get("cuda_version"), at)
    spec = resolve_kueue(checked["cloud"], checked, resolved, at, p)
    p.raise_for_arguments()
    assert spec is not None
    return kueue_plan(resolved.pools, spec, checked.get("namespace", versions.KUEUE.namespace))
