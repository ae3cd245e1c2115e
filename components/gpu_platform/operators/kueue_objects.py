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

import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import yaml
from pydantic.alias_generators import to_camel

from gpu_platform.config.kueue import ClusterQueueConfig, KueueConfig
from gpu_platform.pools import GpuPool
from gpu_platform.scheduling import LABEL_PREFIX, pool_tolerations, selector_labels
from gpu_platform.sharing import advertised_resources

API_VERSION = "kueue.x-k8s.io/v1beta2"
CONFIG_API_VERSION = "config.kueue.x-k8s.io/v1beta2"
QUEUE_NAME_LABEL = "kueue.x-k8s.io/queue-name"
"""Jobs select a LocalQueue with this label."""
PRIORITY_CLASS_LABEL = "kueue.x-k8s.io/priority-class"
"""Jobs select a WorkloadPriorityClass with this label."""
CLUSTER_QUEUE_NAMESPACE_LABEL = f"{LABEL_PREFIX}/cluster-queue"
"""On team namespaces: a ClusterQueue's ``namespaceSelector`` admits namespaces labelled with its name."""
DEFAULT_CLUSTER_QUEUE = "gpu"
"""The queue created over every pool when ``cluster_queues`` is empty."""

# Limits of the Kueue API at v0.19.2: CRD schemas (maxProperties/maxItems) and the ClusterQueue webhook.
MAX_NODE_LABELS = 8
MAX_TOLERATIONS = 8
MAX_RESOURCE_GROUPS = 16
MAX_COVERED_RESOURCES = 64
MAX_FLAVORS_PER_GROUP = 64
MAX_FLAVOR_RESOURCES_PER_GROUP = 512
MAX_TOTAL_FLAVORS = 256

KNOWN_FRAMEWORKS: tuple[str, ...] = (
    "batch/job",
    "kubeflow.org/mpijob",
    "ray.io/rayjob",
    "ray.io/rayservice",
    "ray.io/raycluster",
    "jobset.x-k8s.io/jobset",
    "kubeflow.org/paddlejob",
    "kubeflow.org/pytorchjob",
    "kubeflow.org/tfjob",
    "kubeflow.org/xgboostjob",
    "kubeflow.org/jaxjob",
    "workload.codeflare.dev/appwrapper",
    "trainer.kubeflow.org/trainjob",
    "sparkoperator.k8s.io/sparkapplication",
    "pod",
    "deployment",
    "statefulset",
    "leaderworkerset.x-k8s.io/leaderworkerset",
)
"""Every ``integrations.frameworks`` name in the chart's values.yaml at 0.19.2 (enabled or commented out)."""
FRAMEWORK_DEPENDENCIES: dict[str, tuple[str, ...]] = {
    "deployment": ("pod",),
    "statefulset": ("pod",),
    "sparkoperator.k8s.io/sparkapplication": ("pod",),
}
"""Kueue refuses to start when an integration's ``DependencyList`` is not enabled too."""

_DNS_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$")
_DNS_SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")

Loc = list[str | int]
Problem = tuple[Loc, str]


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
    out.update({name: units * n for name, units in advertised_resources(pool).items()})
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


def effective_queues(cfg: KueueConfig) -> list[ClusterQueueConfig]:
    """The configured ClusterQueues, or the default ``gpu`` queue over every pool."""
    return list(cfg.cluster_queues) or [ClusterQueueConfig(name=DEFAULT_CLUSTER_QUEUE)]


def queue_pools(queue: ClusterQueueConfig, pools: Sequence[GpuPool]) -> list[GpuPool]:
    """Pools whose capacity the queue owns, in the queue's order (Kueue tries flavors in order)."""
    if not queue.pools:
        return list(pools)
    by_name = {p.name: p for p in pools}
    return [by_name[name] for name in queue.pools if name in by_name]


def _cohort_peers(
    queue: ClusterQueueConfig, queues: Sequence[ClusterQueueConfig], pools: Sequence[GpuPool]
) -> list[GpuPool]:
    """Pools owned by the other queues of ``queue``'s cohort: borrowable, never nominal here."""
    if queue.cohort is None:
        return []
    own = {p.name for p in queue_pools(queue, pools)}
    out: list[GpuPool] = []
    for other in queues:
        if other.name == queue.name or other.cohort != queue.cohort:
            continue
        out += [p for p in queue_pools(other, pools) if p.name not in own and p not in out]
    return out


def covered_resources(pools: Sequence[GpuPool]) -> list[str]:
    """``cpu``, ``memory``, then every GPU resource any of the pools advertises (sorted)."""
    gpu = sorted({name for p in pools for name in advertised_resources(p)})
    return ["cpu", "memory", *gpu]


def _flavor_quotas(
    pool: GpuPool, covered: Sequence[str], owned: bool, queue: ClusterQueueConfig
) -> dict[str, Any]:
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
    queue: ClusterQueueConfig, owned: Sequence[GpuPool], borrowable: Sequence[GpuPool] = ()
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


def cluster_queues(cfg: KueueConfig, pools: Sequence[GpuPool]) -> list[dict[str, Any]]:
    queues = effective_queues(cfg)
    return [cluster_queue(q, queue_pools(q, pools), _cohort_peers(q, queues, pools)) for q in queues]


def team_namespace_name(team: Any) -> str:
    return team.namespace or team.name


def team_namespaces(cfg: KueueConfig) -> list[dict[str, Any]]:
    """One Namespace per distinct team namespace, labelled for its ClusterQueue's namespaceSelector."""
    out: dict[str, dict[str, Any]] = {}
    for team in cfg.teams:
        ns = team_namespace_name(team)
        out.setdefault(
            ns,
            {
                "apiVersion": "v1",
                "kind": "Namespace",
                "metadata": {"name": ns, "labels": {CLUSTER_QUEUE_NAMESPACE_LABEL: team.cluster_queue}},
            },
        )
    return list(out.values())


def local_queues(cfg: KueueConfig) -> list[dict[str, Any]]:
    out: dict[tuple[str, str], dict[str, Any]] = {}
    for team in cfg.teams:
        ns = team_namespace_name(team)
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


def priority_classes(cfg: KueueConfig) -> list[dict[str, Any]]:
    """WorkloadPriorityClasses: ``value`` and ``description`` sit at the top level, not under ``spec``."""
    out = []
    for pc in cfg.priority_classes:
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


def manager_configuration(cfg: KueueConfig) -> dict[str, Any]:
    """The controller's Configuration: the chart's defaults, gang admission and the integrations.

    In config v1beta2 the presence of ``waitForPodsReady`` enables it (there is no ``enable`` field).
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
    w = cfg.wait_for_pods_ready
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
    conf["integrations"] = {"frameworks": list(cfg.integrations)}
    return conf


def manager_config_yaml(cfg: KueueConfig) -> str:
    """``managerConfig.controllerManagerConfigYaml``: the Configuration as the YAML string of the chart."""
    return yaml.safe_dump(manager_configuration(cfg), sort_keys=False, default_flow_style=False)


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


def build(pools: Sequence[GpuPool], cfg: KueueConfig) -> KueueObjects:
    """Every Kueue object for the pools and config (call ``problems`` first)."""
    return KueueObjects(
        flavors=[resource_flavor(p) for p in pools],
        cluster_queues=cluster_queues(cfg, pools),
        namespaces=team_namespaces(cfg),
        local_queues=local_queues(cfg),
        priority_classes=priority_classes(cfg),
    )


# ---------------------------------------------------------------------------------------------
# Checks (run before anything is registered)
# ---------------------------------------------------------------------------------------------


def queue_limit_problems(obj: dict[str, Any]) -> list[tuple[str, str]]:
    """Kueue's limits on one generated ClusterQueue, as ``(field, reason)`` (CRD schema + webhook)."""
    groups = obj["spec"]["resourceGroups"]
    out: list[tuple[str, str]] = []
    if len(groups) > MAX_RESOURCE_GROUPS:
        out.append(("resourceGroups", f"{len(groups)} resource groups; Kueue allows {MAX_RESOURCE_GROUPS}"))
    total_flavors = 0
    for g in groups:
        covered, flavors = g["coveredResources"], g["flavors"]
        total_flavors += len(flavors)
        if len(covered) > MAX_COVERED_RESOURCES:
            out.append(
                (
                    "resources",
                    f"{len(covered)} distinct resources ({', '.join(covered)}); Kueue allows "
                    f"{MAX_COVERED_RESOURCES} per resource group",
                )
            )
        if len(flavors) > MAX_FLAVORS_PER_GROUP:
            out.append(
                ("pools", f"{len(flavors)} pools; Kueue allows {MAX_FLAVORS_PER_GROUP} flavors per queue")
            )
        combos = sum(len(f["resources"]) for f in flavors)
        if combos > MAX_FLAVOR_RESOURCES_PER_GROUP:
            out.append(
                (
                    "pools",
                    f"{len(flavors)} pools x {len(covered)} resources = {combos} quotas; Kueue allows "
                    f"{MAX_FLAVOR_RESOURCES_PER_GROUP} per resource group: split the pools over queues",
                )
            )
    if total_flavors > MAX_TOTAL_FLAVORS:
        out.append(("pools", f"{total_flavors} flavors; Kueue allows {MAX_TOTAL_FLAVORS} per ClusterQueue"))
    return out


def problems(
    pools: Sequence[GpuPool],
    cfg: KueueConfig,
    key: Callable[[str], str] = lambda k: k,
    pools_loc: Loc | None = None,
    kueue_loc: Loc | None = None,
    basic: bool = True,
) -> list[Problem]:
    """Everything Kueue (or physics) would refuse, as ``(location, reason)``.

    ``key`` spells field names (identity for component args, ``to_camel`` for stack config);
    ``pools_loc``/``kueue_loc`` are where pools and Kueue settings live. ``basic=False`` skips the
    checks ``config.checks.check_kueue`` already makes.
    """
    pools_loc = pools_loc if pools_loc is not None else ["pools"]
    kueue_loc = kueue_loc if kueue_loc is not None else []
    out: list[Problem] = []
    names = [p.name for p in pools]

    def at(*parts: str | int) -> Loc:
        return [*kueue_loc, *(key(p) if isinstance(p, str) else p for p in parts)]

    for pool in pools:
        loc: Loc = [*pools_loc, pool.index]
        if len(selector_labels(pool)) > MAX_NODE_LABELS:
            out.append((loc, f"its flavor would carry more than {MAX_NODE_LABELS} node labels"))
        tolerations = pool_tolerations(pool)
        if len(tolerations) > MAX_TOLERATIONS:
            out.append(
                (
                    [*loc, key("taints")],
                    f"{len(tolerations)} tolerations (GPU taint, these taints, cloud taints); "
                    f"a Kueue ResourceFlavor takes at most {MAX_TOLERATIONS}",
                )
            )
        if basic and (pool.vcpus is None or pool.memory_gib is None):
            missing = "cpus_per_node" if pool.vcpus is None else "memory_gib_per_node"
            out.append(([*loc, key(missing)], "Kueue quotas need the node's cpu and memory"))

    queues = effective_queues(cfg)
    queue_names = [q.name for q in queues]
    owner: dict[str, int] = {}
    seen_queues: set[str] = set()
    for i, q in enumerate(cfg.cluster_queues):
        if q.name in seen_queues:
            out.append((at("cluster_queues", i, "name"), f"'{q.name}' is used by more than one ClusterQueue"))
        seen_queues.add(q.name)
        if basic:
            for j, name in enumerate(q.pools):
                if name not in names:
                    out.append(
                        (
                            at("cluster_queues", i, "pools", j),
                            f"'{name}' is not a GPU pool; valid: {', '.join(names)}",
                        )
                    )
            if q.cohort is None and q.borrowing_limit_percent is not None:
                out.append(
                    (at("cluster_queues", i, "borrowing_limit_percent"), "needs a cohort to borrow from")
                )
            if q.cohort is None and q.lending_limit_percent is not None:
                out.append((at("cluster_queues", i, "lending_limit_percent"), "needs a cohort to lend to"))
        if q.cohort is not None and not _DNS_SUBDOMAIN.match(q.cohort):
            out.append(
                (
                    at("cluster_queues", i, "cohort"),
                    f"'{q.cohort}' is not a valid cohort name (DNS subdomain)",
                )
            )
        for j, name in enumerate(q.pools):
            if name in q.pools[:j]:
                out.append((at("cluster_queues", i, "pools", j), f"'{name}' is listed twice"))
        for j, name in enumerate(q.pools or names):
            if name not in names:
                continue
            if name in owner and owner[name] != i:
                first = cfg.cluster_queues[owner[name]].name
                where = at("cluster_queues", i, "pools", j) if q.pools else at("cluster_queues", i, "pools")
                out.append(
                    (
                        where,
                        f"pool '{name}' is already the quota of ClusterQueue '{first}'; a pool's capacity "
                        "can be nominal quota of one queue only, or Kueue admits more than the nodes hold. "
                        "To share it, put both queues in one cohort: the other queue can then borrow it",
                    )
                )
            owner.setdefault(name, i)
        if q.preemption.reclaim_within_cohort == "Never" and q.preemption.borrow_within_cohort != "Never":
            out.append(
                (
                    at("cluster_queues", i, "preemption", "borrow_within_cohort"),
                    "must be 'Never' when reclaimWithinCohort is 'Never' (Kueue rejects the combination)",
                )
            )

    by_name = {q.name: q for q in queues}
    ns_queue: dict[str, tuple[int, str]] = {}
    for i, t in enumerate(cfg.teams):
        if basic and t.cluster_queue not in by_name:
            out.append(
                (
                    at("teams", i, "cluster_queue"),
                    f"'{t.cluster_queue}' is not a ClusterQueue; valid: {', '.join(sorted(queue_names))}",
                )
            )
        ns = team_namespace_name(t)
        if not _DNS_LABEL.match(ns):
            out.append((at("teams", i, "namespace"), f"'{ns}' is not a valid namespace name (DNS label)"))
        if ns in ns_queue and ns_queue[ns][1] != t.cluster_queue:
            j, other = ns_queue[ns]
            out.append(
                (
                    at("teams", i, "cluster_queue"),
                    f"namespace '{ns}' already belongs to ClusterQueue '{other}' (teams[{j}]); a namespace "
                    "is admitted by one ClusterQueue: give this team its own namespace",
                )
            )
        ns_queue.setdefault(ns, (i, t.cluster_queue))
        if not _DNS_SUBDOMAIN.match(t.queue_name) or len(t.queue_name) > 253:
            out.append((at("teams", i, "queue_name"), f"'{t.queue_name}' is not a valid LocalQueue name"))

    seen_pc: set[str] = set()
    for i, pc in enumerate(cfg.priority_classes):
        if not _DNS_SUBDOMAIN.match(pc.name) or len(pc.name) > 253:
            out.append(
                (at("priority_classes", i, "name"), f"'{pc.name}' is not a valid object name (DNS subdomain)")
            )
        if pc.name in seen_pc:
            out.append((at("priority_classes", i, "name"), f"'{pc.name}' is defined twice"))
        seen_pc.add(pc.name)
        if not -(2**31) <= pc.value < 2**31:
            out.append((at("priority_classes", i, "value"), "must fit in a 32-bit integer"))

    for i, fw in enumerate(cfg.integrations):
        if fw not in KNOWN_FRAMEWORKS:
            out.append(
                (
                    at("integrations", i),
                    f"'{fw}' is not a Kueue 0.19 integration; valid: {', '.join(KNOWN_FRAMEWORKS)}",
                )
            )
        for dep in FRAMEWORK_DEPENDENCIES.get(fw, ()):
            if dep not in cfg.integrations:
                out.append((at("integrations", i), f"'{fw}' needs the '{dep}' integration enabled too"))

    for i, obj in enumerate(cluster_queues(cfg, pools)):
        for fld, reason in queue_limit_problems(obj):
            out.append((at("cluster_queues", i, fld) if cfg.cluster_queues else at("cluster_queues"), reason))
    return out


def stack_config_problems(pools: Sequence[GpuPool], cfg: KueueConfig) -> list[Problem]:
    """The component's extra checks, spelled for the stack config (``kueue.clusterQueues[0]``)."""
    return problems(pools, cfg, key=to_camel, pools_loc=["gpuPools"], kueue_loc=["kueue"], basic=False)
