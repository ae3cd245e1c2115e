"""Kueue: quotas derived from the GPU pools, team queues, and gang admission for distributed jobs.

One Helm release (``versions.KUEUE``, OCI chart) carries the controller ``Configuration``
(``waitForPodsReady`` on, so a job keeps its quota only if all of its pods start); every custom
resource (``kueue_objects``: one ResourceFlavor per pool, ClusterQueues with quota = physical
capacity, team LocalQueues, WorkloadPriorityClasses) depends on that release, which installs the CRDs
and the webhooks that validate them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, NotRequired, TypedDict

import pulumi
from pulumi_kubernetes import _utilities as k8s_utilities
from pulumi_kubernetes.apiextensions import CustomResource
from pydantic import ValidationError
from pydantic.alias_generators import to_snake

from gpu_platform import versions
from gpu_platform.args import GpuPoolArgs, pool_config_to_args
from gpu_platform.config.errors import ConfigError, format_path
from gpu_platform.config.kueue import KueueConfig
from gpu_platform.operators import kueue_objects as ko
from gpu_platform.operators.helm import deep_merge

if TYPE_CHECKING:
    from gpu_platform.config import PlatformSpec

HELM_RELEASE_NAME = "kueue"
"""Fixed Helm release name: the chart's object names (``kueue-webhook-service``, ``kueue-controller-manager``)
then match the defaults Kueue's internal certificate management expects."""


class RequeuingStrategyArgs(TypedDict):
    timestamp: NotRequired[str]
    """``Eviction`` (default) or ``Creation``: when the requeue backoff starts counting."""
    backoff_limit_count: NotRequired[int]
    """Requeues before the workload is deactivated (default 5); ``-1`` requeues forever."""
    backoff_base_seconds: NotRequired[int]
    backoff_max_seconds: NotRequired[int]


class WaitForPodsReadyArgs(TypedDict):
    """Gang admission (Kueue ``waitForPodsReady``): on by default."""

    enabled: NotRequired[bool]
    timeout: NotRequired[str]
    """Time an admitted workload has until all its pods are ready (default ``10m``; cover node scale-up)."""
    block_admission: NotRequired[bool]
    """Admit one workload at a time until its pods are ready, so two gangs never deadlock (default true)."""
    requeuing_strategy: NotRequired[RequeuingStrategyArgs]


class PreemptionArgs(TypedDict):
    reclaim_within_cohort: NotRequired[str]
    """``Never``, ``LowerPriority`` or ``Any`` (default)."""
    borrow_within_cohort: NotRequired[str]
    """``Never`` (default) or ``LowerPriority``."""
    within_cluster_queue: NotRequired[str]
    """``Never``, ``LowerPriority`` (default) or ``LowerOrNewerEqualPriority``."""


class ClusterQueueArgs(TypedDict):
    name: str
    pools: NotRequired[Sequence[str]]
    """Pools whose capacity is this queue's nominal quota (default: all); flavors are tried in this order.
    A pool belongs to one queue; queues in a cohort may borrow their peers' pools."""
    cohort: NotRequired[str]
    borrowing_limit_percent: NotRequired[int]
    """Cap on borrowing, in percent of each pool's capacity (needs ``cohort``; default unlimited)."""
    lending_limit_percent: NotRequired[int]
    """Cap on what the cohort may borrow from this queue, in percent of its quota (needs ``cohort``)."""
    queueing_strategy: NotRequired[str]
    """``BestEffortFIFO`` (default) or ``StrictFIFO``."""
    preemption: NotRequired[PreemptionArgs]


class TeamArgs(TypedDict):
    name: str
    namespace: NotRequired[str]
    """Default: the team name. Created and labelled so its ClusterQueue admits it."""
    cluster_queue: str
    queue_name: NotRequired[str]
    """The LocalQueue jobs name in ``kueue.x-k8s.io/queue-name`` (default ``default``)."""


class PriorityClassArgs(TypedDict):
    name: str
    value: int
    description: NotRequired[str]


class KueueArgs(TypedDict):
    """Kueue over GPU pools. Plain values (not Outputs): they decide which objects and quotas exist."""

    cloud: str
    """``gke``, ``eks``, ``aks`` or ``existing``: how ``pools`` resolve (machine types vs declared GPUs)."""
    pools: Sequence[GpuPoolArgs]
    cluster_queues: NotRequired[Sequence[ClusterQueueArgs]]
    """Default: one ClusterQueue ``gpu`` over every pool."""
    teams: NotRequired[Sequence[TeamArgs]]
    priority_classes: NotRequired[Sequence[PriorityClassArgs]]
    """Default: ``inference-high`` (1000), ``training`` (500), ``batch-low`` (100)."""
    wait_for_pods_ready: NotRequired[WaitForPodsReadyArgs]
    integrations: NotRequired[Sequence[str]]
    """Kueue ``integrations.frameworks``; default batch/job, JobSet, PyTorchJob, RayJob, RayCluster."""
    namespace: NotRequired[str]
    """Where the controller runs (default ``versions.KUEUE.namespace``, ``kueue-system``)."""
    cuda_version: NotRequired[str]
    """Stack CUDA version, passed to pool resolution (pools may declare their own)."""
    helm_values: NotRequired[Mapping[str, Any]]
    """Escape hatch: extra chart values, deep-merged under the typed ones (typed values win)."""


# ---------------------------------------------------------------------------------------------
# Args <-> config
# ---------------------------------------------------------------------------------------------

_KUEUE_KEYS = ("cluster_queues", "teams", "priority_classes", "wait_for_pods_ready", "integrations")


def _snake_loc(loc: Sequence[Any]) -> list[str | int]:
    return [p if isinstance(p, int) else to_snake(str(p)) for p in loc]


def kueue_config_from_args(args: Mapping[str, Any]) -> KueueConfig:
    """Parse the Kueue part of the args with the config schema (same defaults, same checks)."""
    raw: dict[str, Any] = {k: args[k] for k in _KUEUE_KEYS if k in args}
    wait = raw.get("wait_for_pods_ready")
    if isinstance(wait, Mapping) and isinstance(wait.get("requeuing_strategy"), Mapping):
        strategy = dict(wait["requeuing_strategy"])
        if strategy.get("backoff_limit_count") == -1:
            strategy["backoff_limit_count"] = None
        raw["wait_for_pods_ready"] = {**wait, "requeuing_strategy": strategy}
    try:
        return KueueConfig.model_validate(raw)
    except ValidationError as err:
        raise ConfigError(
            [
                (
                    format_path(_snake_loc([p for p in e["loc"] if not isinstance(p, str) or "[" not in p])),
                    e["msg"],
                )
                for e in err.errors()
            ]
        ) from None


def kueue_args_from_spec(spec: PlatformSpec) -> KueueArgs:
    """The stack config's ``kueue`` section and pools as component args."""
    cfg = spec.config
    k = cfg.kueue.model_dump(by_alias=False)
    strategy = k["wait_for_pods_ready"]["requeuing_strategy"]
    if strategy["backoff_limit_count"] is None:
        strategy["backoff_limit_count"] = -1

    def drop_none(value: Any) -> Any:
        if isinstance(value, dict):
            return {key: drop_none(v) for key, v in value.items() if v is not None}
        if isinstance(value, list):
            return [drop_none(v) for v in value]
        return value

    args: dict[str, Any] = {
        "cloud": cfg.cloud,
        "pools": [pool_config_to_args(c) for c in cfg.gpu_pools],
        "namespace": versions.KUEUE.namespace,
        **{key: drop_none(k[key]) for key in _KUEUE_KEYS},
    }
    if cfg.cuda_version is not None:
        args["cuda_version"] = cfg.cuda_version
    return args  # type: ignore[return-value]


def helm_values(cfg: KueueConfig, extra: Mapping[str, Any] | None = None) -> dict[str, Any]:
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
        "managerConfig": {"controllerManagerConfigYaml": ko.manager_config_yaml(cfg)},
    }
    return deep_merge(dict(extra or {}), typed)


# ---------------------------------------------------------------------------------------------
# Component
# ---------------------------------------------------------------------------------------------


class _TopLevelCustomResource(CustomResource):
    """A custom resource whose fields sit beside ``spec`` (WorkloadPriorityClass ``value``).

    The Python ``CustomResource`` only sends ``spec`` (pulumi/pulumi-kubernetes#2363); this sends the
    whole object, as the Node.js SDK's ``CustomResource`` does with its extra fields.
    """

    def __init__(self, resource_name: str, obj: Mapping[str, Any], opts: pulumi.ResourceOptions) -> None:
        opts = pulumi.ResourceOptions.merge(opts, pulumi.ResourceOptions(version=k8s_utilities.get_version()))
        pulumi.CustomResource.__init__(
            self, f"kubernetes:{obj['apiVersion']}:{obj['kind']}", resource_name, dict(obj), opts
        )


class Kueue(pulumi.ComponentResource):
    """Kueue with a flavor per GPU pool, quotas equal to the pools' capacity, team queues, gang admission."""

    cluster_queue_names: pulumi.Output[list[str]]
    """Names of the ClusterQueues created."""
    local_queues: pulumi.Output[list[str]]
    """``<namespace>/<name>`` of every team LocalQueue (what jobs name in ``kueue.x-k8s.io/queue-name``)."""
    status: pulumi.Output[Any]
    """The Helm release status."""

    def __init__(self, name: str, args: KueueArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        from gpu_platform.config.stack import resolve_pools

        # Check everything before registering anything.
        pools = resolve_pools(
            args["cloud"], [dict(p) for p in args["pools"]], "pools", args.get("cuda_version")
        )
        cfg = kueue_config_from_args(args)
        found = ko.problems(pools, cfg)
        if found:
            raise ConfigError([(format_path(loc), reason) for loc, reason in found])
        objects = ko.build(pools, cfg)
        namespace = args.get("namespace") or versions.KUEUE.namespace

        super().__init__("gpu-platform:index:Kueue", name, None, opts)
        import pulumi_kubernetes as k8s

        child = pulumi.ResourceOptions(parent=self)
        release = k8s.helm.v3.Release(
            f"{name}-helm",
            k8s.helm.v3.ReleaseArgs(
                name=HELM_RELEASE_NAME,
                chart=versions.KUEUE.chart,
                version=versions.KUEUE.version,
                namespace=namespace,
                create_namespace=True,
                values=helm_values(cfg, args.get("helm_values")),
            ),
            opts=child,
        )
        after_release = pulumi.ResourceOptions(parent=self, depends_on=[release])

        flavors = {
            obj["metadata"]["name"]: CustomResource(
                f"{name}-flavor-{obj['metadata']['name']}",
                api_version=obj["apiVersion"],
                kind=obj["kind"],
                metadata=obj["metadata"],
                spec=obj["spec"],
                opts=after_release,
            )
            for obj in objects.flavors
        }
        queues = {}
        for obj in objects.cluster_queues:
            used = [f["name"] for g in obj["spec"]["resourceGroups"] for f in g["flavors"]]
            queues[obj["metadata"]["name"]] = CustomResource(
                f"{name}-cq-{obj['metadata']['name']}",
                api_version=obj["apiVersion"],
                kind=obj["kind"],
                metadata=obj["metadata"],
                spec=obj["spec"],
                # Deleted before its flavors: Kueue keeps a flavor (finalizer) while a queue uses it.
                opts=pulumi.ResourceOptions(parent=self, depends_on=[release, *(flavors[f] for f in used)]),
            )
        namespaces = {
            obj["metadata"]["name"]: k8s.core.v1.Namespace(
                f"{name}-ns-{obj['metadata']['name']}", metadata=obj["metadata"], opts=child
            )
            for obj in objects.namespaces
        }
        local_names = []
        for obj in objects.local_queues:
            meta = obj["metadata"]
            local_names.append(f"{meta['namespace']}/{meta['name']}")
            CustomResource(
                f"{name}-lq-{meta['namespace']}-{meta['name']}",
                api_version=obj["apiVersion"],
                kind=obj["kind"],
                metadata=meta,
                spec=obj["spec"],
                opts=pulumi.ResourceOptions(
                    parent=self,
                    depends_on=[release, namespaces[meta["namespace"]], queues[obj["spec"]["clusterQueue"]]],
                    # spec.clusterQueue is immutable (CEL): moving a team to another queue replaces it.
                    replace_on_changes=["spec.clusterQueue"],
                    delete_before_replace=True,
                ),
            )
        for obj in objects.priority_classes:
            _TopLevelCustomResource(f"{name}-priority-{obj['metadata']['name']}", obj, after_release)

        self.cluster_queue_names = pulumi.Output.from_input(
            [q["metadata"]["name"] for q in objects.cluster_queues]
        )
        self.local_queues = pulumi.Output.from_input(local_names)
        self.status = release.status
        self.register_outputs(
            {
                "cluster_queue_names": self.cluster_queue_names,
                "local_queues": self.local_queues,
                "status": self.status,
            }
        )
