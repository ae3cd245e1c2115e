"""The guard rails: each classic GPU-on-Kubernetes mistake as one rule over ``PolicyResource`` views.

Rules read resource type tokens and camelCase properties as the Pulumi engine sees them, so they
apply to any Pulumi program on GKE, EKS or AKS, not only to this library's. Resource rules look at
one resource; stack rules relate several (pools vs. the GPU Operator). Both the policy pack
(``policy/__main__.py``) and ``gpu-platform plan --policy`` (``policy.offline``) run ``RULES``.
See docs/pitfalls.md for why each rule exists.
"""

from __future__ import annotations

import functools
import json
import re
import warnings
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from gpu_platform.cloud_facts import clouds_where, profile_of
from gpu_platform.policy.mirror import MIRROR_CONFIG_SCHEMA, chart_problem, configured_mirror, image_problems
from gpu_platform.policy.node_pool_readers import NodePoolView, cloud_policy, gpu_pools, node_pools, readers
from gpu_platform.policy.operators import (
    HELM_TYPES,
    GpuOperatorView,
    chart_name,
    config_map_configs,
    config_sharing,
    device_plugins,
    gpu_operators,
    is_time_slicing_config,
)
from gpu_platform.policy_model.device_plugin_rule import DevicePluginRule
from gpu_platform.policy_model.kube import (
    GPU_RESOURCE_PREFIX,
    REPELLING_EFFECTS,
    format_taint,
    parse_quantity,
    resource_blocks,
    untolerated,
)
from gpu_platform.policy_model.model import (
    ADVISORY,
    MANDATORY,
    Level,
    PolicyResource,
    Violation,
    as_map,
    get,
    is_unknown,
    path_is_ignored,
)
from gpu_platform.pools import GPU_TAINT
from gpu_platform.scheduling import (
    DEPLOY_DEVICE_PLUGIN_LABEL,
    DEVICE_PLUGIN_CONFIG_LABEL,
    DRA_KUBELET_PLUGIN_LABEL,
    ISOLATION_LABEL,
    POOL_LABEL,
    SHARING_LABEL,
)

DEPLOY_OPERANDS_LABEL = "nvidia.com/gpu.deploy.operands"
"""GPU Operator per-node switch: ``false`` keeps every operand off the node."""
DEPLOY_DRIVER_LABEL = "nvidia.com/gpu.deploy.driver"

Finding = tuple[str, str]
"""``(urn, message)`` as a rule body yields it."""


@dataclass(frozen=True)
class Rule:
    name: str
    description: str
    level: Level
    scope: Literal["resource", "stack"]
    check: Callable[..., list[Violation]]
    """Resource rules take one ``PolicyResource``, stack rules the list of all of them; a configurable rule
    also its configuration (``check(subject, config)``)."""
    config_schema: Mapping[str, Any] | None = None
    """The properties of its configuration (``pulumi preview --policy-pack-config``, ``plan --policy-config``);
    ``None``: the rule takes none."""


RULES: dict[str, Rule] = {}
RuleConfig = Mapping[str, Mapping[str, Any]]
"""Rule name -> its configuration, as Pulumi's policy pack config file holds it."""


def _rule(
    name: str,
    level: Level,
    scope: Literal["resource", "stack"],
    description: str,
    config_schema: Mapping[str, Any] | None = None,
) -> Callable[..., Any]:
    """Register a rule body yielding ``(urn, message)`` (given its configuration too when it has a
    ``config_schema``); the registered function returns ``Violation``s."""

    def register(body: Callable[..., Iterable[Finding]]) -> Callable[..., list[Violation]]:
        @functools.wraps(body)
        def check(subject: Any, config: Mapping[str, Any] | None = None) -> list[Violation]:
            found = body(subject, config or {}) if config_schema is not None else body(subject)
            return [Violation(name, level, urn, message) for urn, message in found]

        RULES[name] = Rule(name, description, level, scope, check, config_schema)
        return check

    return register


# --- resource rules ---------------------------------------------------------------------------------


@_rule(
    "gpu-pool-taint",
    MANDATORY,
    "resource",
    "Every GPU node pool, node group, agent pool or Karpenter/AKS NAP NodePool carries a NoSchedule "
    "nvidia.com/gpu taint, so ordinary pods never fill expensive GPU nodes (GKE taints only in some cases, "
    "EKS, AKS and Karpenter never).",
)
def gpu_pool_taint(res: PolicyResource) -> Iterator[Finding]:
    for pool in node_pools(res):
        if not pool.gpu or pool.taints is None:
            continue
        gpu_taints = [t for t in pool.taints if t.key == GPU_TAINT.key]
        if any(t.effect in REPELLING_EFFECTS for t in gpu_taints):
            continue
        weak = f" (it is only {gpu_taints[0].effect})" if gpu_taints else ""
        yield (
            res.urn,
            f"GPU node pool {pool.display} has no NoSchedule taint with key {GPU_TAINT.key}{weak}: "
            "ordinary pods will be scheduled onto its GPU nodes and keep them busy. Add "
            f"{pool.prefix}{pool.taint_fix or cloud_policy(pool.cloud).TAINT_FIX} and give GPU workloads the matching toleration.",
        )


@_rule(
    "gpu-request-whole-number",
    MANDATORY,
    "resource",
    "Containers ask for whole GPUs (nvidia.com/*): no fractions, requests equal to limits, never requests "
    "without limits. Kubernetes rejects anything else at admission.",
)
def gpu_request_whole_number(res: PolicyResource) -> Iterator[Finding]:
    if not res.type.startswith("kubernetes:"):
        return
    for path, block in resource_blocks(res.props):
        limits, requests = as_map(block.get("limits")), as_map(block.get("requests"))
        for name in sorted({*limits, *requests}):
            if not str(name).startswith(GPU_RESOURCE_PREFIX):
                continue
            lim_raw, req_raw = limits.get(name), requests.get(name)
            if is_unknown(lim_raw) or is_unknown(req_raw):
                continue
            lim, req = parse_quantity(lim_raw), parse_quantity(req_raw)
            for raw, qty, field in ((lim_raw, lim, "limits"), (req_raw, req, "requests")):
                if raw is not None and (qty is None or qty != qty.to_integral_value() or qty < 0):
                    yield (
                        res.urn,
                        f"{path}.{field}: {raw!r} {name} is not a whole number; Kubernetes rejects "
                        "fractional extended resources ('must be an integer'). For part of a GPU use a pool "
                        "with memory-isolated fractions (sharing mode 'isolated': ask for nvidia.com/gpumem MiB "
                        "of a card) or MIG slices, and ask for whole units of those.",
                    )
            if req_raw is not None and lim_raw is None:
                yield (
                    res.urn,
                    f"{path}: requests {name} without a limit; extended resources need limits "
                    "(requests may be omitted and then default to the limit).",
                )
            elif req is not None and lim is not None and req != lim:
                yield (
                    res.urn,
                    f"{path}: requests {req_raw} {name} but limits {lim_raw}; GPU requests must equal limits "
                    "(GPUs cannot be overcommitted).",
                )


_RANGE = re.compile(r"[\^~<>=*|]|(^|\.)[xX](\.|$)|\s-\s|^latest$", re.IGNORECASE)


def _local_chart(chart: str) -> bool:
    return chart.startswith((".", "/", "file://")) or chart.endswith(".tgz")


@_rule(
    "helm-chart-pinned",
    MANDATORY,
    "resource",
    "Helm releases pin an exact chart version, so a preview shows what will really be installed and an "
    "upstream release never changes a cluster unannounced.",
)
def helm_chart_pinned(res: PolicyResource) -> Iterator[Finding]:
    if res.type not in HELM_TYPES:
        return
    chart, version = res.props.get("chart"), res.props.get("version")
    if is_unknown(chart) or is_unknown(version) or not isinstance(chart, str) or _local_chart(chart):
        return
    if version is None or str(version).strip() == "":
        yield (
            res.urn,
            f"Helm chart '{chart}' has no version: each `pulumi up` installs whatever is newest upstream. "
            "Set `version` to an exact release.",
        )
    elif _RANGE.search(str(version).strip()):
        yield (
            res.urn,
            f"Helm chart '{chart}' version '{version}' is a range, not a release: pin an exact version.",
        )


@_rule(
    "mirror-required",
    MANDATORY,
    "resource",
    "Behind a mirror, every Helm chart comes from the chart mirror and every image (chart values and Kubernetes "
    "objects) from the image mirror, so nothing reaches for a registry the cluster cannot or must not reach. Off "
    'until configured: give the mirror as the rule\'s `charts` and `images` (docs/adopting.md, "Behind a mirror").',
    config_schema=MIRROR_CONFIG_SCHEMA,
)
def mirror_required(res: PolicyResource, config: Mapping[str, Any]) -> Iterator[Finding]:
    mirror = configured_mirror(config)
    if res.type in HELM_TYPES and (problem := chart_problem(res, mirror)) is not None:
        yield res.urn, f"Helm release '{res.name}': {problem}."
    for problem in image_problems(res, mirror):
        yield res.urn, f"{res.name}: {problem}; set the stack's mirror.images (or the component's mirror)."


@_rule(
    "autoscaled-pool-ignores-size",
    MANDATORY,
    "resource",
    "Autoscaled node pools ignore changes to their node count, so `pulumi up` never fights the cluster "
    "autoscaler (shrinking a busy group, or failing on AKS).",
)
def autoscaled_pool_ignores_size(res: PolicyResource) -> Iterator[Finding]:
    for pool in node_pools(res):
        for field in pool.size_fields:
            if path_is_ignored(res.ignore_changes, field):
                continue
            fix = cloud_policy(pool.cloud).SIZE_FIX.format(field=field)
            yield (
                res.urn,
                f"Autoscaled node pool {pool.display} sets {field} without ignoring changes to it: once the "
                f"autoscaler resizes the pool, the next `pulumi up` {cloud_policy(pool.cloud).SIZE_FIGHT}. "
                f"{fix[0].upper()}{fix[1:]}.",
            )


# --- stack rules ------------------------------------------------------------------------------------


def _operand_pools(resources: list[PolicyResource]) -> list[NodePoolView]:
    """GPU pools the GPU Operator manages (not switched off per node)."""
    return [p for p in gpu_pools(resources) if p.label(DEPLOY_OPERANDS_LABEL) != "false"]


def _tolerations_hint(missing: list[Any]) -> str:
    return ", ".join(f"{{key: {t.key}, operator: Exists, effect: {t.effect}}}" for t in missing)


@_rule(
    "gpu-operator-tolerations",
    MANDATORY,
    "stack",
    "The GPU Operator's daemonsets (driver, toolkit, device plugin, validator), its NFD worker and any "
    "standalone device plugin tolerate every taint of the GPU pools, or the GPUs are never advertised.",
)
def gpu_operator_tolerations(resources: list[PolicyResource]) -> Iterator[Finding]:
    pools = [p for p in _operand_pools(resources) if p.taints is not None]
    for op in gpu_operators(resources):
        checks = [
            (
                "daemonsets.tolerations",
                op.daemonset_tolerations,
                "its driver, toolkit, device plugin and "
                "validator pods never start there, so the GPUs are never advertised",
            )
        ]
        if op.kind == "helm":
            checks.append(
                (
                    "node-feature-discovery.worker.tolerations",
                    op.nfd_worker_tolerations,
                    "NFD never labels those nodes, so the operator never treats them as GPU nodes",
                )
            )
        for key, tolerations, effect in checks:
            if tolerations is None:
                continue
            for pool in pools:
                missing = untolerated(tolerations, [*(pool.taints or ()), *pool.cloud_taints])
                if missing:
                    yield (
                        op.resource.urn,
                        f"GPU Operator {op.display}: {key} do not tolerate "
                        f"{', '.join(format_taint(t) for t in missing)} on GPU pool {pool.display}: "
                        f"{effect}. Add {_tolerations_hint(missing)}.",
                    )
    for plugin in device_plugins(resources):
        if plugin.tolerations is None:
            continue
        for pool in pools:
            missing = untolerated(plugin.tolerations, [*(pool.taints or ()), *pool.cloud_taints])
            if missing and not plugin.constrained:
                yield (
                    plugin.resource.urn,
                    f"Device plugin '{plugin.resource.name}' does not tolerate "
                    f"{', '.join(format_taint(t) for t in missing)} on GPU pool {pool.display}, so that "
                    f"pool's GPUs are never advertised. Add {_tolerations_hint(missing)}.",
                )


@_rule(
    "single-driver-owner",
    MANDATORY,
    "stack",
    "The NVIDIA driver has one owner: never the cloud (GKE driver install, EKS NVIDIA AMI, AKS driver) and "
    "the GPU Operator (driver.enabled=true) on the same nodes.",
)
def single_driver_owner(resources: list[PolicyResource]) -> Iterator[Finding]:
    operators = [op for op in gpu_operators(resources) if op.driver_enabled]
    if not operators:
        return
    for pool in _operand_pools(resources):
        if pool.cloud_driver is not True or pool.labels is None or pool.label(DEPLOY_DRIVER_LABEL) == "false":
            continue
        for op in operators:
            source = cloud_policy(pool.cloud).DRIVER_SOURCE.format(ami=pool.ami_type)
            yield (
                pool.resource.urn,
                f"GPU pool {pool.display} gets its NVIDIA driver from the cloud ({source}) and GPU "
                f"Operator {op.display} installs one too (driver.enabled is true, the chart default). The "
                "operator cannot replace a host driver: its driver pods fail or the requested version is "
                f"silently ignored. Either {cloud_policy(pool.cloud).DRIVER_FIX}.",
            )


def _device_plugin_runs_on(op: GpuOperatorView, pool: NodePoolView) -> bool:
    return op.device_plugin_enabled is True and pool.label(DEPLOY_DEVICE_PLUGIN_LABEL) != "false"


def _own_plugin_pools(cloud: str, resources: list[PolicyResource]) -> list[NodePoolView]:
    """The cloud's operand pools whose labels the program knows."""
    return [p for p in _operand_pools(resources) if p.cloud == cloud and p.labels is not None]


def _image_device_plugin(
    cloud: str, rule: DevicePluginRule, resources: list[PolicyResource]
) -> Iterator[Finding]:
    """Pools whose node image runs its own device plugin: no operator or unconstrained plugin adds a second."""
    for pool in (p for p in _own_plugin_pools(cloud, resources) if p.image_ships_device_plugin):
        for op in gpu_operators(resources):
            if _device_plugin_runs_on(op, pool):
                yield (
                    op.resource.urn,
                    f"GPU pool {pool.display} runs {pool.ami_type}, which ships its own NVIDIA device "
                    f"plugin, and GPU Operator {op.display} deploys a second one there "
                    f"(devicePlugin.enabled). Label the pool {DEPLOY_DEVICE_PLUGIN_LABEL}=false, or set "
                    "devicePlugin.enabled=false.",
                )
        for plugin in device_plugins(resources):
            if not plugin.constrained:
                yield (
                    plugin.resource.urn,
                    f"Device plugin '{plugin.resource.name}' has no nodeSelector or affinity and would "
                    f"also run on GPU pool {pool.display} ({pool.ami_type}), which ships its own device "
                    f"plugin. Keep it off {rule.images} nodes.",
                )


def _label_device_plugin(
    cloud: str, rule: DevicePluginRule, resources: list[PolicyResource]
) -> Iterator[Finding]:
    """Pools where the cloud runs its device plugin unless a node label turns it off, and the operator's runs."""
    profile = profile_of(cloud)
    off = profile.default_device_plugin_off_label
    if off is None:
        return
    operators = gpu_operators(resources)
    for pool in _own_plugin_pools(cloud, resources):
        if pool.label(off[0]) == off[1]:
            continue
        for op in operators:
            if _device_plugin_runs_on(op, pool):
                yield (
                    pool.resource.urn,
                    f"{profile.display} GPU pool {pool.display} lacks the node label "
                    f"{off[0]}={off[1]}, so {profile.display}'s device plugin runs next to the one "
                    f"GPU Operator {op.display} deploys. Add it to {pool.prefix}{rule.labels_field} (or label "
                    f"the pool {DEPLOY_DEVICE_PLUGIN_LABEL}=false to keep {profile.display}'s plugin, "
                    f"{rule.keep_own}).",
                )


_DEVICE_PLUGIN_BODIES = {"image": _image_device_plugin, "label": _label_device_plugin}


def _register_device_plugin_rules() -> None:
    """Each cloud's own device-plugin rule (its policy module's ``DEVICE_PLUGIN_RULE``), in name order."""
    declared = [(cloud, r.DEVICE_PLUGIN_RULE) for cloud, r in readers().items() if r.DEVICE_PLUGIN_RULE]
    for cloud, rule in sorted(declared, key=lambda found: found[1].name):
        body = functools.partial(_DEVICE_PLUGIN_BODIES[rule.kind], cloud, rule)
        _rule(rule.name, MANDATORY, "stack", rule.description)(body)


_register_device_plugin_rules()


def _time_slicing_sources(pool: NodePoolView, resources: list[PolicyResource]) -> list[str]:
    how = []
    if pool.cloud_time_slicing:
        how.append(pool.cloud_time_slicing)
    if pool.label(SHARING_LABEL) == "time-slicing":
        how.append(f"label {SHARING_LABEL}=time-slicing")
    key = pool.label(DEVICE_PLUGIN_CONFIG_LABEL)
    for op in gpu_operators(resources):
        configs = {**config_map_configs(resources, op.device_plugin_config_name), **op.device_plugin_configs}
        chosen = key if isinstance(key, str) and key else op.device_plugin_default
        if chosen and is_time_slicing_config(configs.get(chosen)):
            how.append(f"device-plugin config '{chosen}' of {op.display}")
    return how


@_rule(
    "time-slicing-isolation",
    ADVISORY,
    "stack",
    f"GPU pools marked {ISOLATION_LABEL}=required are not time-sliced: time-slicing has no memory or fault "
    "isolation between the pods sharing a GPU.",
)
def time_slicing_isolation(resources: list[PolicyResource]) -> Iterator[Finding]:
    for pool in gpu_pools(resources):
        if pool.label(ISOLATION_LABEL) != "required":
            continue
        how = _time_slicing_sources(pool, resources)
        if how:
            yield (
                pool.resource.urn,
                f"GPU pool {pool.display} is marked {ISOLATION_LABEL}=required but its GPUs are time-sliced "
                f"({'; '.join(how)}): pods sharing a GPU get no memory or fault isolation, so one can "
                "exhaust GPU memory or crash its neighbours. Use MIG, or MPS for per-client memory limits.",
            )


UNISOLATED_SHARING = ("time-slicing", "mps")
"""``gpu-platform.io/sharing`` values that leave a card's memory shared by every pod on it."""
CLUSTER_QUEUE_TYPE = "kubernetes:kueue.x-k8s.io/v1beta2:ClusterQueue"
LOCAL_QUEUE_TYPE = "kubernetes:kueue.x-k8s.io/v1beta2:LocalQueue"


def _node_selectors(obj: Any) -> Iterator[Mapping[str, Any]]:
    """Every ``nodeSelector`` mapping inside a resource's properties (pod templates, InferenceService predictors)."""
    if isinstance(obj, Mapping):
        for key, value in obj.items():
            if key == "nodeSelector" and isinstance(value, Mapping):
                yield value
            else:
                yield from _node_selectors(value)
    elif isinstance(obj, list):
        for item in obj:
            yield from _node_selectors(item)


def _pool_namespaces(resources: list[PolicyResource]) -> dict[str, set[str]]:
    """Pool name -> namespaces whose pods can land on it: LocalQueues of a ClusterQueue listing its flavor (owned
    or borrowed in a cohort), and workloads whose ``nodeSelector`` names it (``gpu-platform.io/pool``)."""
    flavors: dict[str, set[str]] = {}
    for r in resources:
        if r.type == CLUSTER_QUEUE_TYPE:
            groups = get(r.props, "spec", "resourceGroups") or []
            names = {
                get(f, "name") for g in groups if isinstance(g, Mapping) for f in (g.get("flavors") or [])
            }
            flavors[str(get(r.props, "metadata", "name"))] = {n for n in names if isinstance(n, str)}
    out: dict[str, set[str]] = {}
    for r in resources:
        namespace = get(r.props, "metadata", "namespace") or "default"
        if r.type == LOCAL_QUEUE_TYPE:
            for pool in flavors.get(str(get(r.props, "spec", "clusterQueue")), set()):
                out.setdefault(pool, set()).add(str(namespace))
        elif r.type.startswith("kubernetes:"):
            for selector in _node_selectors(r.props):
                if isinstance(selected := selector.get(POOL_LABEL), str):
                    out.setdefault(selected, set()).add(str(namespace))
    return out


@_rule(
    "time-slicing-across-teams",
    MANDATORY,
    "stack",
    "A time-sliced or MPS GPU pool is used by one team namespace only: nothing isolates the memory of the pods "
    "sharing a card, so one team's pod could take it all and crash another's. Share a pool between teams with "
    "memory-isolated fractions (sharing mode 'isolated') or MIG.",
)
def time_slicing_across_teams(resources: list[PolicyResource]) -> Iterator[Finding]:
    reach = _pool_namespaces(resources)
    for pool in gpu_pools(resources):
        name, mode = pool.label(POOL_LABEL), pool.label(SHARING_LABEL)
        namespaces = reach.get(name, set()) if isinstance(name, str) else set()
        if mode in UNISOLATED_SHARING and len(namespaces) > 1:
            yield (
                pool.resource.urn,
                f"GPU pool {pool.display} shares each GPU by {mode}, which isolates no memory, and pods of "
                f"{len(namespaces)} namespaces reach it ({', '.join(sorted(namespaces))}): one team's pod can "
                "take the whole card and crash the others'. Use sharing mode 'isolated' or MIG, or give each "
                "team its own pool.",
            )


# --- composition ----------------------------------------------------------------------------

SHARED_BY_DEVICE_PLUGIN = ("time-slicing", "mps")
"""``gpu-platform.io/sharing`` values the device plugin's config implements (MIG and DRA are checked elsewhere)."""


def _operator_configs(op: GpuOperatorView, resources: list[PolicyResource]) -> dict[str, Any] | None:
    """Every device-plugin config ``op`` can hand a node, by name; ``None`` when one is unknown at preview."""
    name = op.device_plugin_config_name
    held = config_map_configs(resources, name) if name is not None else {}
    configs = {**held, **op.device_plugin_configs}
    return None if any(is_unknown(v) for v in configs.values()) else configs


@_rule(
    "composition-agrees",
    MANDATORY,
    "stack",
    f"A GPU pool's nodes and the GPU Operator that serves them agree: the device-plugin config named by the "
    f"nodes' {DEVICE_PLUGIN_CONFIG_LABEL} label exists among the operator's configs, and it shares the GPUs the "
    f"way the pool's {SHARING_LABEL} label says (time-slicing, MPS or none). Node pools and an operator "
    "composed by hand from different pool lists drift apart; GpuPlatform makes both from one.",
)
def composition_agrees(resources: list[PolicyResource]) -> Iterator[Finding]:
    operators = [op for op in gpu_operators(resources) if not is_unknown(op.values)]
    for pool in _operand_pools(resources):
        if pool.labels is None or pool.label(DRA_KUBELET_PLUGIN_LABEL) == "true":
            continue
        key, said = pool.label(DEVICE_PLUGIN_CONFIG_LABEL), pool.label(SHARING_LABEL)
        if is_unknown(key) or is_unknown(said):
            continue
        for op in operators:
            configs = _operator_configs(op, resources)
            if not _device_plugin_runs_on(op, pool) or configs is None:
                continue
            if key and key not in configs:
                defined = ", ".join(sorted(configs)) or "none: devicePlugin.config is not set"
                yield (
                    pool.resource.urn,
                    f"GPU pool {pool.display} labels its nodes {DEVICE_PLUGIN_CONFIG_LABEL}={key}, a "
                    f"device-plugin config GPU Operator {op.display} does not define (it defines {defined}): "
                    "the device plugin cannot apply it, so the pool's GPUs are not shared the way its labels "
                    "and Kueue's quotas assume. Build the node pool and the operator from the same pool "
                    "list (or use GpuPlatform, which makes both from one).",
                )
                continue
            chosen = key or op.device_plugin_default
            does = config_sharing(configs[chosen]) if chosen and chosen in configs else "none"
            if does is None or not isinstance(said, str) or said == does:
                continue
            if said in SHARED_BY_DEVICE_PLUGIN or (said == "none" and does in SHARED_BY_DEVICE_PLUGIN):
                where = f"config '{chosen}'" if chosen else "the device plugin's built-in config"
                yield (
                    pool.resource.urn,
                    f"GPU pool {pool.display} says {SHARING_LABEL}={said}, but GPU Operator {op.display} gives "
                    f"its nodes {where}, which shares {'nothing' if does == 'none' else f'by {does}'}: the "
                    "nodes advertise a different number of GPUs than the pool's labels, Kueue's quotas and the "
                    "workloads' requests assume. Build the node pool and the operator from the same pool list "
                    "(or use GpuPlatform).",
                )


# --- DRA ------------------------------------------------------------------------------------

DRA_CHARTS = ("dra-driver-nvidia-gpu", "nvidia-dra-driver-gpu")
"""The NVIDIA DRA driver chart, under its current and its pre-0.4 (NGC) name."""


def _dra_releases(resources: list[PolicyResource]) -> list[PolicyResource]:
    return [r for r in resources if r.type in HELM_TYPES and chart_name(r.props.get("chart")) in DRA_CHARTS]


@_rule(
    "dra-without-device-plugin",
    MANDATORY,
    "stack",
    "A device plugin and the NVIDIA DRA driver never hand out the same node's GPUs: DRA pools keep the GPU "
    "Operator's (and GKE's) device plugin off, and the DRA kubelet plugin is kept off device-plugin pools.",
)
def dra_without_device_plugin(resources: list[PolicyResource]) -> Iterator[Finding]:
    pools = [p for p in gpu_pools(resources) if p.labels is not None]
    dra = [p for p in pools if p.label(DRA_KUBELET_PLUGIN_LABEL) == "true"]
    for pool in dra:
        for op in gpu_operators(resources):
            if _device_plugin_runs_on(op, pool):
                yield (
                    op.resource.urn,
                    f"GPU pool {pool.display} is a DRA pool ({DRA_KUBELET_PLUGIN_LABEL}=true) and GPU Operator "
                    f"{op.display} also runs its device plugin there: the same GPUs would be allocated twice. "
                    f"Label the pool {DEPLOY_DEVICE_PLUGIN_LABEL}=false (or set devicePlugin.enabled=false).",
                )
        if pool.image_ships_device_plugin:
            own = cloud_policy(pool.cloud).DEVICE_PLUGIN_RULE
            yield (
                pool.resource.urn,
                f"GPU pool {pool.display} is a DRA pool on {pool.ami_type}, which runs its own NVIDIA device plugin; "
                f"{own.dra_fix if own else 'use a node image without one for DRA pools'}.",
            )
        cloud = profile_of(pool.cloud)
        off = cloud.default_device_plugin_off_label
        if off is not None and pool.label(off[0]) != off[1]:
            yield (
                pool.resource.urn,
                f"{cloud.display} GPU pool {pool.display} is a DRA pool without {off[0]}={off[1]}, so "
                f"{cloud.display}'s device plugin runs next to the DRA driver. Add the label.",
            )
    others = [p for p in pools if p.label(DRA_KUBELET_PLUGIN_LABEL) != "true"]
    for release in _dra_releases(resources):
        values = as_map(release.props.get("values"))
        gpus = get(values, "resources", "gpus", "enabled", default=True)
        selector = get(values, "kubeletPlugin", "nodeSelector", default={})
        if is_unknown(gpus) or is_unknown(selector) or gpus is False or not others:
            continue
        if not selector:
            yield (
                release.urn,
                f"The DRA driver release '{release.name}' hands out GPUs (resources.gpus.enabled) on every GPU node: "
                f"kubeletPlugin.nodeSelector is empty while {', '.join(p.display for p in others)} use the device "
                f'plugin. Select the DRA nodes ({{{DRA_KUBELET_PLUGIN_LABEL}: "true"}}).',
            )


# --- fast fabrics: what pods request exists on the nodes and in the queue ---------------------------

EFA_RESOURCE = "vpc.amazonaws.com/efa"
RDMA_PREFIX = "rdma/"
FABRIC_DEVICE_PLUGIN_CHARTS = {"aws-efa-k8s-device-plugin": EFA_RESOURCE}
"""Charts whose release makes a fabric resource requestable."""
QUEUE_LABEL = "kueue.x-k8s.io/queue-name"
KUEUE_API = "kubernetes:kueue.x-k8s.io/"


def _fabric_settings() -> str:
    """The pool settings that make a fabric resource requestable, each with the clouds that take it."""
    settings = (
        ("efa", lambda q: q.efa),
        ("infiniband", lambda q: any(m.infiniband for m in q.machines.values())),
    )
    return " or ".join(
        f"{key}: true ({'/'.join(q.display for q in where)})"
        for key, has in settings
        if (where := clouds_where(has))
    )


def _fabric(name: str) -> bool:
    return name == EFA_RESOURCE or name.startswith(RDMA_PREFIX)


def _kind(res: PolicyResource) -> str:
    return res.type.rsplit(":", 1)[-1] if res.type.startswith("kubernetes:") else ""


def _provided_fabric(resources: list[PolicyResource]) -> set[str]:
    """Fabric resources some device plugin in the stack advertises: the EFA plugin's release, the
    ``rdma/<resourceName>`` entries of a NicClusterPolicy's RDMA shared device plugin."""
    out: set[str] = set()
    for r in resources:
        if r.type in HELM_TYPES and (
            name := FABRIC_DEVICE_PLUGIN_CHARTS.get(chart_name(r.props.get("chart")) or "")
        ):
            out.add(name)
        if _kind(r) == "NicClusterPolicy":
            config = get(as_map(r.props.get("spec")), "rdmaSharedDevicePlugin", "config", default=None)
            if isinstance(config, str):
                try:
                    entries = json.loads(config).get("configList", [])
                except (ValueError, AttributeError):
                    entries = []
                out.update(f"{RDMA_PREFIX}{e.get('resourceName')}" for e in entries if isinstance(e, dict))
    return out


@_rule(
    "fabric-resources-agree",
    MANDATORY,
    "stack",
    "Multi-node training over EFA, InfiniBand or GKE GPUDirect works only when each piece agrees: a Kueue flavor "
    "names a Topology the stack creates; a queue that quota's vpc.amazonaws.com/efa or rdma/* has the device plugin "
    "that advertises it; a queued workload that requests one is covered by some ClusterQueue (Kueue never admits a "
    "workload asking for a resource no queue covers); a GKE GPUDirect pool attaches every extra NIC of its machine, "
    "each with its GKENetworkParamSet and Network, and its path's NCCL plugin installer runs; a pod's "
    "networking.gke.io/interfaces names Networks that exist.",
)
def fabric_resources_agree(resources: list[PolicyResource]) -> Iterator[Finding]:
    pools = [pool for r in resources for pool in node_pools(r)]
    for reader in readers().values():
        yield from reader.fabric_findings(resources, pools)  # the clouds' own fabrics (GKE GPUDirect)
    kueue = [r for r in resources if r.type.startswith(KUEUE_API)]
    topologies = {get(as_map(r.props.get("metadata")), "name") for r in kueue if _kind(r) == "Topology"}
    for flavor in (r for r in kueue if _kind(r) == "ResourceFlavor"):
        name = get(as_map(flavor.props.get("spec")), "topologyName", default=None)
        if isinstance(name, str) and name not in topologies:
            yield (
                flavor.urn,
                f"ResourceFlavor '{flavor.name}' names Topology '{name}', which the stack does not create: Kueue "
                "marks the flavor inactive and admits nothing to it. Create the Topology or drop topologyName.",
            )
    provided = _provided_fabric(resources)
    # Only a stack that makes the GPU pools is expected to install their device plugins too (a queue-only
    # program on a cluster made elsewhere finds them there).
    makes_pools = bool(gpu_pools(resources))
    covered: set[str] = set()
    for cq in (r for r in kueue if _kind(r) == "ClusterQueue"):
        for group in get(as_map(cq.props.get("spec")), "resourceGroups", default=[]) or []:
            names = [str(n) for n in as_map(group).get("coveredResources", []) or []]
            covered.update(names)
            for name in names:
                if makes_pools and _fabric(name) and name not in provided:
                    yield (
                        cq.urn,
                        f"ClusterQueue '{cq.name}' quota's {name}, but no device plugin in the stack advertises it "
                        "(the EFA device plugin for vpc.amazonaws.com/efa, a NicClusterPolicy RDMA shared device "
                        "plugin for rdma/*): pods requesting it never schedule.",
                    )
    if not kueue:
        return
    for res in resources:
        labels = as_map(get(as_map(res.props.get("metadata")), "labels", default={}))
        if not res.type.startswith("kubernetes:") or QUEUE_LABEL not in labels:
            continue
        for path, block in resource_blocks(res.props):
            asked = {*as_map(block.get("limits")), *as_map(block.get("requests"))}
            for name in sorted(n for n in map(str, asked) if _fabric(n) and n not in covered):
                yield (
                    res.urn,
                    f"{path}: requests {name}, which no ClusterQueue covers: Kueue never admits this workload. "
                    f"Set {_fabric_settings()} on its pool.",
                )


# --- running ----------------------------------------------------------------------------------------


def resource_rules() -> list[Rule]:
    return [r for r in RULES.values() if r.scope == "resource"]


def stack_rules() -> list[Rule]:
    return [r for r in RULES.values() if r.scope == "stack"]


def _run(rule: Rule, subject: Any, config: RuleConfig | None) -> list[Violation]:
    return (
        rule.check(subject, (config or {}).get(rule.name))
        if rule.config_schema is not None
        else rule.check(subject)
    )


def check_resource(res: PolicyResource, config: RuleConfig | None = None) -> list[Violation]:
    return [v for rule in resource_rules() for v in _run(rule, res, config)]


def check_stack(resources: list[PolicyResource], config: RuleConfig | None = None) -> list[Violation]:
    return [v for rule in stack_rules() for v in _run(rule, resources, config)]


def check_all(resources: list[PolicyResource], config: RuleConfig | None = None) -> list[Violation]:
    """Every rule over a whole program: each resource rule per resource, then the stack rules; ``config``: the
    configurable rules' configuration, by rule name."""
    return [v for r in resources for v in check_resource(r, config)] + check_stack(resources, config)


__all__ = [
    "RULES",
    "PolicyResource",
    "Rule",
    "Violation",
    "check_all",
    "check_resource",
    "check_stack",
    "get",
]


def __getattr__(name: str) -> object:
    """A cloud's own rule, once a function of this module by its rule's name (now ``RULES[name].check``), and
    the names moved to a cloud's policy module (``gpu_platform._moved``), each with a warning."""
    from gpu_platform._moved import REMOVED_IN, moved_attribute

    rule = RULES.get(name.replace("_", "-"))
    if rule is None:
        return moved_attribute(__name__, name)
    warnings.warn(
        f"{__name__}.{name} is now {__name__}.RULES[{rule.name!r}].check; the old name goes in gpu-platform "
        f"{REMOVED_IN}",
        DeprecationWarning,
        stacklevel=2,
    )
    return rule.check
