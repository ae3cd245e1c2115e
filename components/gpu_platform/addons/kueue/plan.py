"""Kueue objects derived from the GPU pools: flavors, cluster queues, team queues, priorities, Configuration.

Pure functions that return Kubernetes objects as plain dicts (``kueue.x-k8s.io/v1beta2`` and the
``config.kueue.x-k8s.io/v1beta2`` Configuration), so quotas and limits are testable without Pulumi.

Model (kubernetes-sigs/kueue v0.19.2 ``site/content/en/docs/concepts/resource_flavor.md``,
``cluster_queue.md``):

- One ``ResourceFlavor`` per pool: ``nodeLabels`` select the pool's nodes, ``tolerations`` are the
  pool's taints (GPU taint, user taints, the AKS spot taint). Kueue injects both into admitted pods.
- Quota = what pods can be scheduled on: per pool, ``node_resources(pool) x max_nodes`` plus each
  node's *allocatable* cpu and memory (``catalog.allocatable``: the cloud's published reservation and
  eviction threshold, and the VM memory overhead) less the requests of the library's DaemonSets on that
  node (``plans.node_daemonsets``: the GPU Operator's operands), x ``max_nodes``. On existing clusters
  the pools declare their allocatable. A pool is the nominal quota of the ClusterQueues that list it: of
  one, or split between several (``pool_share_percent``, else evenly), so the nominal quotas of a flavor
  add up to exactly what the nodes hold (Kueue's own two-teams example, both ClusterQueues of a cohort
  listing one flavor with their share: ``site/content/en/docs/concepts/cluster_queue.md``, v0.19.2).
- A system flavor (``SYSTEM_FLAVOR_NAME``) for the untainted CPU nodes comes *first* in every
  ClusterQueue with 0 of every GPU resource: CPU-only jobs fit it and land on CPU nodes; GPU jobs do
  not fit it and move on to the GPU flavors. Its cpu/memory (the system pool's allocatable x
  ``max_nodes``, or ``kueue.systemFlavor.cpus``/``memoryGib``) is split evenly over the ClusterQueues,
  the remainder going to the first ones, so the nominal quotas sum to exactly that capacity; queues of a
  cohort borrow each other's unused share (Kueue borrows per flavor within a cohort). Operators running
  on the system pool (Kueue, KServe, cert-manager, the GPU Operator's controller) are Deployments that
  are not taken off; when the system flavor is full Kueue tries the next flavor, a GPU pool.
- A ClusterQueue whose GPU flavors are all topology-aware lists the system pool as a topology-aware twin
  (``SYSTEM_TOPOLOGY_FLAVOR_NAME``, a one-level ``kubernetes.io/hostname`` Topology) instead: Kueue treats a
  queue with only topology-aware flavors as TAS-only and gives every pod set topology-aware scheduling, but
  in a queue with one flavor that is not, a topology-aware flavor refuses every pod set without a topology
  request ("supports only TopologyAwareScheduling"), so GPU jobs that do not ask for a topology would never
  be admitted (kubernetes-sigs/kueue v0.19.2 ``pkg/scheduler/flavorassigner/tas_flavorassigner.go``,
  ``isTASImplied``, ``checkPodSetAndFlavorMatchForTAS``).
- One resource group per ClusterQueue covering ``cpu``, ``memory`` and every GPU resource of its
  pools; each flavor lists all covered resources, ``0`` for what its nodes do not advertise. Kueue
  allows a resource in only one group, and cpu/memory belong to the same nodes as the GPUs: splitting
  them into separate groups would let Kueue take cpu from one pool and GPUs from another and inject
  two contradicting ``nodeSelector``s.
- Queues in a cohort also list the flavors their cohort peers own, with ``nominalQuota: 0``: Kueue
  borrows per flavor, so this is what lets a team borrow an idle pool of another team. A queue with
  ``pools: []`` has only those: it borrows and owns nothing.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import yaml

from gpu_platform import versions
from gpu_platform.addons.dra.plan import kueue_device_class_mappings
from gpu_platform.addons.kueue.checks import (
    CapacityBasis,
    ClusterQueue,
    KueueSpec,
    QueueIndex,
    SystemFlavor,
    node_allocatable_units,
)
from gpu_platform.addons.kueue.settings import (
    DEFAULT_CLUSTER_QUEUE,
    SYSTEM_FLAVOR_NAME,
    SYSTEM_TOPOLOGY_FLAVOR_NAME,
)
from gpu_platform.catalog.allocatable import MIB_PER_GIB
from gpu_platform.catalog.topology import HOST_TOPOLOGY, NetworkTopology
from gpu_platform.cloud_facts import profile_of
from gpu_platform.mirror import Mirror
from gpu_platform.plans.helm import deep_merge
from gpu_platform.plans.node_daemonsets import (
    OperandLayout,
    cpu_node_requests,
    gpu_node_requests,
    operand_layout,
)
from gpu_platform.pools import GpuPool
from gpu_platform.releases import KUEUE
from gpu_platform.scheduling import LABEL_PREFIX, pool_tolerations, selector_labels
from gpu_platform.sharing import (
    COMPUTE_DOMAIN_CHANNEL_RESOURCE,
    fraction_quota,
    fraction_transformations,
    node_resources,
    resource_quantity,
)

API_VERSION = "kueue.x-k8s.io/v1beta2"
CONFIG_API_VERSION = "config.kueue.x-k8s.io/v1beta2"
QUEUE_NAME_LABEL = "kueue.x-k8s.io/queue-name"
"""Jobs select a LocalQueue with this label."""
PRIORITY_CLASS_LABEL = "kueue.x-k8s.io/priority-class"
"""Jobs select a WorkloadPriorityClass with this label."""
CLUSTER_QUEUE_NAMESPACE_LABEL = f"{LABEL_PREFIX}/cluster-queue"
"""On team namespaces: a ClusterQueue's ``namespaceSelector`` admits namespaces labelled with its name."""
HELM_RELEASE_NAME = KUEUE.release_name
"""Fixed Helm release name: the chart's object names (``kueue-webhook-service``, ``kueue-controller-manager``)
then match the defaults Kueue's internal certificate management expects."""
DEFAULT_CLUSTER_QUEUE_NAME = DEFAULT_CLUSTER_QUEUE
MANAGED_NAMESPACES = {"matchExpressions": [{"key": CLUSTER_QUEUE_NAMESPACE_LABEL, "operator": "Exists"}]}
"""``managedJobsNamespaceSelector``: the team namespaces, the only ones a ClusterQueue admits from. Kueue's
default is every namespace but kube-system and its own, and the chart gives the pod, Deployment and StatefulSet
webhooks that selector with ``failurePolicy: Fail`` once those integrations are on (KServe's predictors): the GPU
Operator's, cert-manager's or KServe's own Deployments and pods are then refused whenever Kueue's controller is
not serving, as in the seconds after its chart installs the webhooks, and through any Kueue outage. Pods,
Deployments and StatefulSets outside the selector are never managed by Kueue, queue label or not
(kubernetes-sigs/kueue v0.19.2 ``apis/config/v1beta2/configuration_types.go``, ``ManagedJobsNamespaceSelector``;
``charts/kueue/templates/webhook/manifests.yaml``); other job kinds are unaffected."""
PROVISIONING_CONTROLLER = "kueue.x-k8s.io/provisioning-request"
"""Kueue's built-in admission check controller that creates ProvisioningRequests (GA since Kueue 0.14)."""


# ---------------------------------------------------------------------------------------------
# Capacity and quantities
# ---------------------------------------------------------------------------------------------


def flavor_name(pool: GpuPool) -> str:
    """The ResourceFlavor of a pool carries the pool's name (what ``kubectl get workloads`` shows)."""
    return pool.name


def node_units(
    pool: GpuPool, basis: CapacityBasis, pools: Sequence[GpuPool], layout: OperandLayout | None = None
) -> tuple[int, int]:
    """``(millicores, MiB)`` one node of ``pool`` offers Kueue's workloads: its allocatable (the cloud's
    published reservation, or what an existing cluster's pool declares) less the library's DaemonSets
    (``layout``: where the operator's operands run over ``pools``, when the caller computed it once)."""
    if (
        profile_of(basis.cloud).publishes_allocatable
        and pool.machine is not None
        and pool.vcpus
        and pool.memory_gib
    ):
        cpu, memory = node_allocatable_units(
            basis.cloud, pool.machine.name, pool.vcpus, pool.memory_gib, basis.vm_memory_overhead_percent
        )
    else:
        cpu, memory = (pool.vcpus or 0) * 1000, (pool.memory_gib or 0) * MIB_PER_GIB
    taken = gpu_node_requests(
        pool, pools, basis.gpu_operator, basis.dra_compute_domains, layout, basis.gpu_health_checks
    )
    return max(cpu - taken.cpu_millicores, 0), max(memory - taken.memory_mib, 0)


def quota_nodes(pool: GpuPool) -> int:
    """Nodes Kueue counts for a pool: ``max_nodes``, or what its only source, a reservation, holds (a
    specific reservation has no on-demand fallback, so nodes beyond it never come). A chain counts
    ``max_nodes`` once, whichever source GKE, Karpenter or NAP fills it from."""
    source = pool.primary
    if not pool.chain and source.reserved and source.affinity == "specific" and source.nodes is not None:
        return min(source.nodes, pool.max_nodes)
    return pool.max_nodes


def _units(
    pool: GpuPool, basis: CapacityBasis, pools: Sequence[GpuPool], layout: OperandLayout | None = None
) -> dict[str, int]:
    """What the whole pool offers at ``quota_nodes`` in base units: cpu in millicores, memory in MiB."""
    n = quota_nodes(pool)
    cpu, memory = node_units(pool, basis, pools, layout)
    out = {"cpu": cpu * n, "memory": memory * n}
    out.update({name: units * n for name, units in node_resources(pool).items()})
    out.update({name: units * n for name, units in fraction_quota(pool).items()})  # isolated: MiB, percent
    if basis.dra_compute_domains and pool.dra:
        out[COMPUTE_DOMAIN_CHANNEL_RESOURCE] = pool.gpus_per_node * n
    return out


def _quantity(resource: str, units: int) -> int | str:
    if resource == "cpu":
        return units // 1000 if units % 1000 == 0 else f"{units}m"
    if resource == "memory":
        return f"{units // 1024}Gi" if units % 1024 == 0 else f"{units}Mi"
    return resource_quantity(resource, units)


def all_units(
    pools: Sequence[GpuPool], basis: CapacityBasis, only: Collection[str] | None = None
) -> dict[str, dict[str, int]]:
    """Pool name -> what it offers at ``max_nodes`` in base units, for every pool (or those named ``only``)
    in one pass over ``pools``."""
    layout = operand_layout(pools, basis.gpu_operator.driver) if basis.gpu_operator is not None else None
    return {p.name: _units(p, basis, pools, layout) for p in pools if only is None or p.name in only}


def quantities(units: Mapping[str, int]) -> dict[str, int | str]:
    """Base units (millicores, MiB, counts) as Kubernetes quantities."""
    return {name: _quantity(name, value) for name, value in units.items()}


def pool_capacity(pool: GpuPool, basis: CapacityBasis, pools: Sequence[GpuPool]) -> dict[str, int | str]:
    """What the pool offers Kueue at ``max_nodes``, as Kubernetes quantities (``pools``: all GPU pools;
    for many pools, ``all_units`` once then ``quantities``).

    2 nodes of 8 x H100 with ``all-1g.10gb`` (mixed) -> ``{"cpu": "...m", "memory": "...Mi",
    "nvidia.com/mig-1g.10gb": 112}``.
    """
    return quantities(_units(pool, basis, pools))


def system_units(spec: KueueSpec) -> dict[str, int] | None:
    """The system flavor's total cpu (millicores) and memory (MiB), for all ClusterQueues together."""
    flavor = spec.system_flavor
    if flavor is None:
        return None
    cpu, memory = flavor.cpu_millicores, flavor.memory_mib
    if cpu is None or memory is None:
        assert flavor.shape is not None and flavor.machine_type is not None
        node_cpu, node_memory = node_allocatable_units(
            spec.cloud,
            flavor.machine_type,
            flavor.shape.vcpus,
            flavor.shape.memory_gib,
            spec.vm_memory_overhead_percent,
        )
        taken = cpu_node_requests(spec.gpu_operator)
        n = flavor.max_nodes
        cpu = cpu if cpu is not None else max(node_cpu - taken.cpu_millicores, 0) * n
        memory = memory if memory is not None else max(node_memory - taken.memory_mib, 0) * n
    return {"cpu": cpu, "memory": memory}


def split_evenly(total: int, parts: int) -> list[int]:
    """``total`` in ``parts`` whole shares that sum to it exactly; the first ones get the remainder."""
    base, extra = divmod(total, parts)
    return [base + (1 if i < extra else 0) for i in range(parts)]


def split_weighted(total: int, weights: Sequence[int]) -> list[int]:
    """``total`` in whole shares proportional to ``weights`` that sum to it exactly; the first ones get what
    does not divide (``split_evenly`` for equal weights)."""
    whole = sum(weights)
    parts = [total * w // whole for w in weights]
    for i in range(total - sum(parts)):  # fewer than len(weights): each share lost less than one unit
        parts[i] += 1
    return parts


def nominal_shares(
    queues: Sequence[ClusterQueue], index: QueueIndex, units: Mapping[str, Mapping[str, int]]
) -> list[dict[str, dict[str, int]]]:
    """Each queue's nominal units of each pool it owns, in queue order: a pool listed by several queues is
    split by their ``pool_share_percent`` (evenly when none is given), so the shares of a pool add up to all
    of it (the checks have run: every queue listing a pool gives a share, or none does)."""
    owners: dict[str, list[int]] = {}
    for i, queue in enumerate(queues):
        for pool in index.own(queue):
            owners.setdefault(pool.name, []).append(i)
    out: list[dict[str, dict[str, int]]] = [{} for _ in queues]
    for name, listed in owners.items():
        given = [queues[i].share_of(name) for i in listed]
        weights = [g for g in given if g is not None] if None not in given else [1] * len(listed)
        split = {resource: split_weighted(total, weights) for resource, total in units[name].items()}
        for k, i in enumerate(listed):
            out[i][name] = {resource: parts[k] for resource, parts in split.items()}
    return out


def system_shares(spec: KueueSpec) -> list[dict[str, int]]:
    """Each ClusterQueue's nominal share of the system flavor, in queue order (empty: no system flavor)."""
    total = system_units(spec)
    if total is None:
        return []
    n = len(spec.cluster_queues)
    split = {name: split_evenly(units, n) for name, units in total.items()}
    return [{name: shares[i] for name, shares in split.items()} for i in range(n)]


def _percent(resource: str, units: int, percent: int) -> int | str:
    return _quantity(resource, units * percent // 100)


# ---------------------------------------------------------------------------------------------
# Objects
# ---------------------------------------------------------------------------------------------


def system_resource_flavor(flavor: SystemFlavor, topology_aware: bool = False) -> dict[str, Any]:
    """The CPU nodes as a ResourceFlavor: node labels only; no tolerations, the nodes are untainted.
    ``topology_aware``: the twin that TAS-only ClusterQueues list, placing pods by hostname."""
    spec: dict[str, Any] = {"nodeLabels": dict(flavor.node_labels)}
    if topology_aware:
        spec["topologyName"] = HOST_TOPOLOGY.name
    name = SYSTEM_TOPOLOGY_FLAVOR_NAME if topology_aware else SYSTEM_FLAVOR_NAME
    return {"apiVersion": API_VERSION, "kind": "ResourceFlavor", "metadata": {"name": name}, "spec": spec}


def system_flavors(
    spec: KueueSpec, pools: Sequence[GpuPool]
) -> tuple[list[dict[str, Any]], list[NetworkTopology]]:
    """The system flavor(s) and the Topology the twin names (hostname only, a label every node has): the plain
    flavor when some ClusterQueue has a GPU flavor that is not topology-aware, the twin when some has only
    topology-aware ones."""
    if spec.system_flavor is None:
        return [], []
    index = QueueIndex(spec.cluster_queues, pools, spec.dra_compute_domains)
    tas_only = [index.topology_aware_only(q) for q in spec.cluster_queues]
    flavors = []
    if not all(tas_only):
        flavors.append(system_resource_flavor(spec.system_flavor))
    if any(tas_only):
        flavors.append(system_resource_flavor(spec.system_flavor, topology_aware=True))
    return flavors, [HOST_TOPOLOGY] if any(tas_only) else []


def flavor_labels(pool: GpuPool) -> dict[str, str]:
    """What admitted pods select: the pool's labels and, for a fallback chain, what its auto-provisioner needs."""
    extra = profile_of(pool.cloud).chain_selector(pool) if pool.chain else {}
    return {**selector_labels(pool), **extra}


def resource_flavor(pool: GpuPool) -> dict[str, Any]:
    """The pool as a ResourceFlavor: admitted pods get its node labels and tolerations; a pool with
    topology-aware scheduling names its machine's Topology. TAS ignores tolerations a webhook would add, so
    the GPU taint's toleration must be on the flavor (Kueue's TAS GPU sample), as it always is here."""
    spec: dict[str, Any] = {"nodeLabels": flavor_labels(pool), "tolerations": pool_tolerations(pool)}
    if pool.topology is not None:
        spec["topologyName"] = pool.topology.name
    return {
        "apiVersion": API_VERSION,
        "kind": "ResourceFlavor",
        "metadata": {"name": flavor_name(pool)},
        "spec": spec,
    }


def topologies(pools: Sequence[GpuPool], extra: Sequence[NetworkTopology] = ()) -> list[dict[str, Any]]:
    """One Kueue ``Topology`` per distinct network topology the pools' flavors name (levels broadest first,
    hostname last), in pool order, then the ``extra`` ones (the system twin flavor's)."""
    seen: dict[str, dict[str, Any]] = {}
    for t in [*(p.topology for p in pools), *extra]:
        if t is None or t.name in seen:
            continue
        seen[t.name] = {
            "apiVersion": API_VERSION,
            "kind": "Topology",
            "metadata": {"name": t.name},
            "spec": {"levels": [{"nodeLabel": label} for label in t.levels]},
        }
    return list(seen.values())


def _flavor_quotas(
    name: str,
    units: Mapping[str, int],
    covered: Sequence[str],
    nominal: Mapping[str, int] | None,
    queue: ClusterQueue,
) -> dict[str, Any]:
    """The flavor's quotas in ``queue``: ``units`` is what the flavor holds, ``nominal`` the queue's own part of
    it (``None``: a cohort peer's flavor, nominal 0)."""
    resources = []
    for resource in covered:
        capacity = units.get(resource, 0)
        own = nominal.get(resource, 0) if nominal is not None else 0
        entry: dict[str, Any] = {"name": resource, "nominalQuota": _quantity(resource, own)}
        if queue.cohort is not None and queue.borrowing_limit_percent is not None:
            # Percent of the flavor's capacity: on a peer's flavor (nominal 0) that is what may be borrowed.
            entry["borrowingLimit"] = _percent(resource, capacity, queue.borrowing_limit_percent)
        if queue.cohort is not None and queue.lending_limit_percent is not None and nominal is not None:
            entry["lendingLimit"] = _percent(resource, own, queue.lending_limit_percent)
        resources.append(entry)
    return {"name": name, "resources": resources}


def queue_policy(queue: ClusterQueue) -> dict[str, Any]:
    """A ClusterQueue's namespace selector, queueing strategy and preemption: what every cluster that holds the
    queue (a fleet's manager and workers too) gives it alike."""
    p = queue.preemption
    return {
        "namespaceSelector": {"matchLabels": {CLUSTER_QUEUE_NAMESPACE_LABEL: queue.name}},
        "queueingStrategy": queue.queueing_strategy,
        "preemption": {
            "withinClusterQueue": p.within_cluster_queue,
            "reclaimWithinCohort": p.reclaim_within_cohort,
            "borrowWithinCohort": {"policy": p.borrow_within_cohort},
        },
    }


def cluster_queue(
    queue: ClusterQueue,
    index: QueueIndex,
    units: Mapping[str, Mapping[str, int]],
    system_share: Mapping[str, int] | None = None,
    nominal: Mapping[str, Mapping[str, int]] | None = None,
) -> dict[str, Any]:
    """A ClusterQueue whose nominal quota is what its own pools offer (``units``: ``all_units``), or its part
    of them (``nominal``: ``nominal_shares``, by pool; default all of each), after ``system_share`` of the
    system flavor (first, so CPU-only jobs land there; 0 of every GPU resource)."""
    covered = index.covered(queue)
    own = nominal if nominal is not None else units
    flavors = []
    if system_share is not None:
        system = SYSTEM_TOPOLOGY_FLAVOR_NAME if index.topology_aware_only(queue) else SYSTEM_FLAVOR_NAME
        flavors.append(_flavor_quotas(system, system_share, covered, system_share, queue))
    flavors += [
        _flavor_quotas(flavor_name(p), units[p.name], covered, own[p.name], queue) for p in index.own(queue)
    ]
    flavors += [
        _flavor_quotas(flavor_name(p), units[p.name], covered, None, queue) for p in index.peers(queue)
    ]
    checks = [
        {"name": admission_check_name(pool), "onFlavors": [flavor_name(pool)]}
        for pool in [*index.own(queue), *index.peers(queue)]
        if pool.queued_provisioning
    ]
    body: dict[str, Any] = {
        **queue_policy(queue),
        "resourceGroups": [{"coveredResources": covered, "flavors": flavors}] if flavors else [],
    }
    if queue.cohort is not None:
        body["cohortName"] = queue.cohort
    if checks:
        # Quota first, then a ProvisioningRequest for the job's pods: admitted only once every node exists.
        body["admissionChecksStrategy"] = {"admissionChecks": checks}
    return {"apiVersion": API_VERSION, "kind": "ClusterQueue", "metadata": {"name": queue.name}, "spec": body}


def admission_check_name(pool: GpuPool) -> str:
    """The pool's AdmissionCheck and ProvisioningRequestConfig (one pair per queued-provisioning pool)."""
    return f"{pool.name}-provisioning"


def provisioning_objects(pools: Sequence[GpuPool]) -> list[dict[str, Any]]:
    """A ``ProvisioningRequestConfig`` and the ``AdmissionCheck`` naming it for each queued-provisioning pool
    (Kueue's built-in ProvisioningRequest controller): the cloud's provisioning class, the pool's GPU
    resources as the managed ones, and the pool's maximum run duration as the class parameter."""
    out: list[dict[str, Any]] = []
    for pool in pools:
        if not pool.queued_provisioning:
            continue
        name = admission_check_name(pool)
        spec: dict[str, Any] = {
            "provisioningClassName": profile_of(pool.cloud).provisioning_request_class,
            "managedResources": sorted(node_resources(pool)),
            # One ProvisioningRequest per group of identical pods (a JobSet's workers), as GKE's guide does.
            "podSetMergePolicy": "IdenticalWorkloadSchedulingRequirements",
        }
        if pool.primary.max_run_hours:
            spec["parameters"] = {"maxRunDurationSeconds": str(pool.primary.max_run_hours * 3600)}
        out.append(
            {
                "apiVersion": API_VERSION,
                "kind": "ProvisioningRequestConfig",
                "metadata": {"name": name},
                "spec": spec,
            }
        )
        out.append(
            {
                "apiVersion": API_VERSION,
                "kind": "AdmissionCheck",
                "metadata": {"name": name},
                "spec": {
                    "controllerName": PROVISIONING_CONTROLLER,
                    "parameters": {
                        "apiGroup": "kueue.x-k8s.io",
                        "kind": "ProvisioningRequestConfig",
                        "name": name,
                    },
                },
            }
        )
    return out


def cluster_queues(spec: KueueSpec, pools: Sequence[GpuPool]) -> list[dict[str, Any]]:
    queues = spec.cluster_queues
    shares: list[Mapping[str, int] | None] = [*system_shares(spec)] or [None] * len(queues)
    index = QueueIndex(queues, pools, spec.dra_compute_domains)
    used = {p.name for q in queues for p in index.own(q)}
    units = all_units(pools, spec.capacity_basis, used)
    nominal = nominal_shares(queues, index, units)
    return [
        cluster_queue(q, index, units, share, own)
        for q, share, own in zip(queues, shares, nominal, strict=True)
    ]


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
    spec: KueueSpec, device_class_mappings: Sequence[Mapping[str, Any]] = (), fractions: bool = False
) -> dict[str, Any]:
    """The controller's Configuration: the chart's defaults, gang admission, the integrations, and Kueue's
    pod-based integrations limited to the team namespaces (``MANAGED_NAMESPACES``).

    In config v1beta2 the presence of ``waitForPodsReady`` enables it (there is no ``enable`` field).
    ``device_class_mappings`` (DRA pools) charge their ResourceClaimTemplates to the pools' quotas; with
    ``fractions`` (isolated pools) Kueue charges ``nvidia.com/gpumem`` and ``nvidia.com/gpucores`` times the
    pod's ``nvidia.com/vgpu`` units, the totals the isolated flavors' quotas count.
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
        "managedJobsNamespaceSelector": MANAGED_NAMESPACES,
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
    if device_class_mappings:  # DRA
        conf["resources"] = {"deviceClassMappings": [dict(m) for m in device_class_mappings]}
    if fractions:  # isolated pools: a pod's per-unit memory and compute, times its units
        conf.setdefault("resources", {})["transformations"] = fraction_transformations()
    return conf


def manager_config_yaml(
    spec: KueueSpec, device_class_mappings: Sequence[Mapping[str, Any]] = (), fractions: bool = False
) -> str:
    """``managerConfig.controllerManagerConfigYaml``: the Configuration as the YAML string of the chart."""
    conf = manager_configuration(spec, device_class_mappings, fractions)
    return yaml.safe_dump(conf, sort_keys=False, default_flow_style=False)


@dataclass
class KueueObjects:
    topologies: list[dict[str, Any]] = field(default_factory=list)
    """``Topology`` objects the flavors name (topology-aware scheduling)."""
    flavors: list[dict[str, Any]] = field(default_factory=list)
    cluster_queues: list[dict[str, Any]] = field(default_factory=list)
    namespaces: list[dict[str, Any]] = field(default_factory=list)
    local_queues: list[dict[str, Any]] = field(default_factory=list)
    priority_classes: list[dict[str, Any]] = field(default_factory=list)
    admission_checks: list[dict[str, Any]] = field(default_factory=list)
    """ProvisioningRequestConfigs and AdmissionChecks of queued-provisioning pools."""

    def custom_resources(self) -> Iterator[dict[str, Any]]:
        yield from self.admission_checks
        yield from self.topologies
        yield from self.flavors
        yield from self.cluster_queues
        yield from self.local_queues
        yield from self.priority_classes


def build(pools: Sequence[GpuPool], spec: KueueSpec) -> KueueObjects:
    """Every Kueue object for the pools and settings."""
    system, system_topologies = system_flavors(spec, pools)
    return KueueObjects(
        topologies=topologies(pools, system_topologies),
        flavors=[*system, *(resource_flavor(p) for p in pools)],
        cluster_queues=cluster_queues(spec, pools),
        namespaces=team_namespaces(spec),
        local_queues=local_queues(spec),
        priority_classes=priority_classes(spec),
        admission_checks=provisioning_objects(pools),
    )


def helm_values(
    spec: KueueSpec, device_class_mappings: Sequence[Mapping[str, Any]] = (), fractions: bool = False
) -> dict[str, Any]:
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
        "managerConfig": {
            "controllerManagerConfigYaml": manager_config_yaml(spec, device_class_mappings, fractions)
        },
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
    mirror: Mirror | None = None
    """Where the chart and its images come from instead of upstream."""

    def retained_namespaces(self) -> set[str]:
        """Team namespaces kept when their team or Kueue is removed (unless every team in it opts out)."""
        return {t.namespace for t in self.spec.teams if t.retain_namespace}


def kueue_plan(
    pools: Sequence[GpuPool],
    spec: KueueSpec,
    namespace: str,
    manage_namespaces: bool = True,
    secret: bool = False,
    metrics_values: Mapping[str, Any] | None = None,
    mirror: Mirror | None = None,
) -> KueuePlan:
    """The plan from resolved pools and settings (the stack layer's path; checks have run). ``metrics_values``:
    the chart values the metrics path asks for (the observability add-on contributes them); ``mirror`` (the
    stack's) overrides the spec's."""
    mappings = kueue_device_class_mappings(pools, spec.dra_compute_domains)  # DRA pools
    values = helm_values(spec, mappings, fractions=any(fraction_quota(p) for p in pools))
    if metrics_values:
        values = deep_merge(values, metrics_values)
    mirror = mirror if mirror is not None else spec.mirror
    return KueuePlan(spec, build(pools, spec), values, namespace, manage_namespaces, secret, mirror)
