"""The stack file's ``cluster`` section, resolved with its defaults and checked against the cloud and pools.

Also the checks the cluster components make on their own arguments (system pool, network CIDR), so a
stack file and a program building ``GkeCluster`` directly are refused for the same reasons.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from gpu_platform.args.cluster import (
    DEFAULT_KUBECONFIG_OUTPUT,
    DEFAULT_SYSTEM_MAX_NODES,
    DEFAULT_SYSTEM_MIN_NODES,
    DEFAULT_VPC_CIDR,
)
from gpu_platform.args.validate import check_arguments, is_unknown
from gpu_platform.cloud_facts import PROFILES, profile_of
from gpu_platform.cloud_facts.profile import CloudProfile, PoolProblems
from gpu_platform.errors import Problems
from gpu_platform.formats.network import client_range_problem, private_network_problem
from gpu_platform.pools import GpuPool
from gpu_platform.resolve.zones import offered_zone_problems, region_offer_problems

if TYPE_CHECKING:
    import pulumi

CLUSTER_NAME = re.compile(r"^[a-z]([-a-z0-9]{0,38}[a-z0-9])?$")
KUBERNETES_VERSION = re.compile(r"^v?1\.\d{1,2}(\.\d{1,3})?([-+][0-9A-Za-z.-]+)?$")
MAX_SYSTEM_NODES = 100


@dataclass(frozen=True)
class SystemPool:
    machine_type: str
    min_nodes: int
    max_nodes: int


@dataclass(frozen=True)
class ClusterSpec:
    """The ``cluster`` section with every default applied."""

    name: str
    create: bool
    region: str | None
    project: str | None
    resource_group: str | None
    kubernetes_version: str | None
    vpc_cidr: str
    zones: tuple[str, ...]
    system_pool: SystemPool | None
    """``None`` on existing clusters (no pool is created)."""
    kubeconfig: str | pulumi.Output[str] | None
    """Plain text from a stack file (a ``secure:`` value); an Output only from ``GpuPlatform``'s arguments."""
    kubeconfig_stack: str | None
    kubeconfig_output: str
    existing_node_role_arn: str | None
    existing_subnet_ids: tuple[str, ...]
    disposable: bool = False
    """Nothing is protected from deletion (dev stacks)."""
    autoscaler: str | None = None
    existing_security_group_ids: tuple[str, ...] = ()
    """EKS attach mode: the security groups of EFA interfaces."""
    """EKS: ``cluster-autoscaler`` or ``none``; ``None`` elsewhere (GKE and AKS scale pools themselves)."""
    pod_identity_agent: bool = True
    gpu_network_cidr: str | None = None
    """GKE: the GPUDirect subnets' range as the stack file gives it; ``None``: the default."""
    proxy_subnet_cidr: str | None = None
    """GKE: the proxy-only subnet's range as the stack file gives it; ``None``: the default."""

    @property
    def attached(self) -> bool:
        """Pools or add-ons go onto a cluster made elsewhere (reached through a kubeconfig)."""
        return not self.create


def system_pool_problems(cloud: str, pool: Mapping[str, Any], p: Problems) -> SystemPool | None:
    """The system pool with its defaults: a known CPU machine, ``1 <= min_nodes <= max_nodes``."""
    before = p.count()
    profile = profile_of(cloud)
    default = profile.system_machine_type or ""
    machine = pool.get("machine_type", default)
    gpu_machine = profile.machine(machine)
    if gpu_machine is not None:
        p.add(
            ("machine_type",),
            f"{machine} has {gpu_machine.gpus} x {gpu_machine.gpu.display}: the system pool is untainted, so "
            f"ordinary pods would fill it; use a CPU machine such as {default}",
        )
    elif not profile.looks_like_machine(machine):
        p.add(("machine_type",), f"'{machine}' is not a {profile.display} machine type like {default}")
    low = pool.get("min_nodes", DEFAULT_SYSTEM_MIN_NODES)
    high = pool.get("max_nodes", DEFAULT_SYSTEM_MAX_NODES)
    if not 1 <= low <= MAX_SYSTEM_NODES:
        p.add(("min_nodes",), f"{low} is out of range; the system pool needs 1 to {MAX_SYSTEM_NODES} nodes")
    if not 1 <= high <= MAX_SYSTEM_NODES:
        p.add(("max_nodes",), f"{high} is out of range; the system pool needs 1 to {MAX_SYSTEM_NODES} nodes")
    elif low > high:
        p.add(("min_nodes",), f"{low} is more than {{{{max_nodes}}}} {high}")
    return SystemPool(machine, low, high) if p.count() == before else None


def network_problem(cidr: str, cloud: str) -> str | None:
    """Why ``cidr`` cannot be a new cluster's network, or ``None``."""
    if reason := private_network_problem(cidr, DEFAULT_VPC_CIDR):
        return reason
    net = ipaddress.IPv4Network(cidr)
    profile = profile_of(cloud)
    if net.prefixlen > profile.min_network_prefix:
        return f"'{cidr}' is too small: {profile.display} needs a /{profile.min_network_prefix} or larger"
    return None


def _zone_problems(cloud: str, region: str | None, pools: Sequence[GpuPool], at: PoolProblems) -> None:
    """Pool zones of the cluster's region that offer the pool's GPU (``resolve.zones``)."""
    rule = profile_of(cloud).zone_pattern(region) if region is not None else None
    if rule is None or region is None:
        return
    base, shape, example = rule
    for pool in pools:
        for j, zone in enumerate(pool.zones):
            if not shape.match(zone):
                at(pool.index).add(("zones", j), f"'{zone}' is not a zone of {base} (like {example})")
        offered_zone_problems(pool, at(pool.index), region=base)
    region_offer_problems(cloud, region, pools, at)


STACK_NAME = re.compile(r"^[^/\s]+/[^/\s]+/[^/\s]+$")


def cloud_only_cluster_keys() -> dict[str, list[CloudProfile]]:
    """Each cluster key that means something on some clouds only, with those clouds (registry order)."""
    out: dict[str, list[CloudProfile]] = {}
    for profile in PROFILES.values():
        for key in sorted(profile.cluster_keys):
            out.setdefault(key, []).append(profile)
    return out


def _meaningless_keys(cloud: str, c: Mapping[str, Any], create: bool, p: Problems) -> None:
    own = profile_of(cloud).cluster_keys
    for key, where in cloud_only_cluster_keys().items():
        if key in c and key not in own:
            p.add((key,), f"{'/'.join(q.display for q in where)} only; remove it")
    for key in ("kubeconfig", "kubeconfig_stack_reference"):
        if key in c and create:
            p.add((key,), "only for a cluster made elsewhere (cloud existing, or create false); remove it")
    if "kubeconfig" in c and "kubeconfig_stack_reference" in c:
        p.add(("kubeconfig_stack_reference",), "give a kubeconfig or a stack reference, not both")
    ref = c.get("kubeconfig_stack_reference")
    if ref and not STACK_NAME.match(ref["stack"]):
        p.add(
            ("kubeconfig_stack_reference", "stack"),
            f"'{ref['stack']}' is not a stack name like org/project/stack",
        )


def _chain_problems(
    cloud: str, create: bool, autoscaler: str | None, pools: Sequence[GpuPool], at: PoolProblems
) -> None:
    """Pools with a fallback chain are auto-provisioned: what that needs of the cluster and of the pool."""
    profile = profile_of(cloud)
    for pool in pools:
        if not pool.chain or profile.chain_provisioner is None:
            continue
        here = at(pool.index)
        if profile.chain_autoscaler is not None and autoscaler != profile.chain_autoscaler:
            here.add(
                ("capacity",),
                f"a fallback chain is served by {profile.chain_served_by}; set {{{{cluster.autoscaler}}}} "
                f"{profile.chain_autoscaler} or give one source",
            )
        elif profile.chain_needs_created_cluster and not create:
            here.add(
                ("capacity",),
                f"a fallback chain is served by {profile.chain_served_by}, which the stack enables on a cluster it "
                "creates; on an attached cluster give one source",
            )
        elif profile.chain_autoscaler is None:  # Karpenter's own checks already ran over every pool
            profile.provisioner_problems(pool, here)


def _autoscaler(
    cloud: str, c: Mapping[str, Any], create: bool, pools: Sequence[GpuPool], at: PoolProblems, p: Problems
) -> str | None:
    """The autoscaler choice with its default where the stack makes one (EKS), and what it needs (the
    profile's ``autoscaler_problems``)."""
    profile = profile_of(cloud)
    if not profile.autoscaler_choice:
        return None
    version = c.get("kubernetes_version")
    valid = version if version and KUBERNETES_VERSION.match(version) else None
    return profile.autoscaler_problems(c, create, pools, at, p, valid)


def _attach_problems(
    cloud: str, c: Mapping[str, Any], pools: Sequence[GpuPool], at: PoolProblems, p: Problems
) -> None:
    if c.get("kubeconfig") is None and c.get("kubeconfig_stack_reference") is None:
        p.add(
            ("kubeconfig",),
            "required for an existing or attached cluster: a secure: kubeconfig, or "
            "{{cluster.kubeconfig_stack_reference}}",
        )
    elif isinstance(c.get("kubeconfig"), str) and not c["kubeconfig"].strip():
        p.add(
            ("kubeconfig",),
            "is empty: set the cluster's kubeconfig (`pulumi config set --secret --path "
            "gpu-platform:cluster.kubeconfig`) or use cluster.kubeconfigStackReference",
        )
    if "system_pool" in c:
        p.add(
            ("system_pool",),
            "the cluster is made elsewhere, so the library creates no system pool; remove it (describe the CPU "
            "nodes to Kueue with {{kueue.system_flavor.node_labels}}, {{kueue.system_flavor.cpus}} and "
            "{{kueue.system_flavor.memory_gib}})",
        )
    profile_of(cloud).attach_problems(c, pools, at, p)


def resolve_cluster(
    cloud: str, c: Mapping[str, Any], pools: Sequence[GpuPool], at: PoolProblems, p: Problems
) -> ClusterSpec | None:
    """The cluster section with defaults, after every cluster-level check (``p`` is its location)."""
    before = p.count()
    if not CLUSTER_NAME.match(c["name"]):
        p.add(
            ("name",),
            f"'{c['name']}' is not a valid cluster name: lowercase letters, digits and dashes, at most 40",
        )
    profile = profile_of(cloud)
    create = c.get("create", True) if profile.creates_nodes else False
    version = c.get("kubernetes_version")
    if version is not None and not KUBERNETES_VERSION.match(version):
        p.add(("kubernetes_version",), f"'{version}' is not a Kubernetes version like '1.33' (quote it)")
    region = c.get("region")
    if profile.region_required and not region:
        p.add(("region",), f"required on {profile.display} (the cluster's region or zone)")
    elif region and (reason := profile.region_problem(region)):
        p.add(("region",), reason)
        region = None  # no zone is checked against a region that is none
    cidr = c.get("vpc_cidr", DEFAULT_VPC_CIDR)
    vpc = cidr if profile.creates_nodes and create else None  # what the cloud's own checks compare with
    if vpc is not None and (reason := network_problem(cidr, cloud)):
        p.add(("vpc_cidr",), reason)
        vpc = None
    system = None
    if profile.creates_nodes:
        system = system_pool_problems(cloud, c.get("system_pool", {}), p.at("system_pool"))
    _meaningless_keys(cloud, c, create, p)
    profile.cluster_settings_problems(c, vpc, pools, at, p)
    if not create:
        _attach_problems(cloud, c, pools, at, p)
    _zone_problems(cloud, region, pools, at)
    zones = profile.cluster_zones(c, region, pools, at, p)
    autoscaler = _autoscaler(cloud, c, create, pools, at, p)
    _chain_problems(cloud, create, autoscaler, pools, at)
    if p.count() != before:
        return None
    ref = c.get("kubeconfig_stack_reference")
    return ClusterSpec(
        name=c["name"],
        create=create,
        region=region,
        project=c.get("project"),
        resource_group=c.get("resource_group"),
        kubernetes_version=version,
        vpc_cidr=cidr,
        zones=zones,
        system_pool=system,
        kubeconfig=c.get("kubeconfig"),
        kubeconfig_stack=ref["stack"] if ref else None,
        kubeconfig_output=(ref or {}).get("output", DEFAULT_KUBECONFIG_OUTPUT),
        existing_node_role_arn=c.get("existing_node_role_arn"),
        existing_subnet_ids=tuple(c.get("existing_subnet_ids", ())),
        existing_security_group_ids=tuple(c.get("existing_security_group_ids", ())),
        disposable=c.get("disposable", False),
        autoscaler=autoscaler,
        pod_identity_agent=c.get("pod_identity_agent", True),
        gpu_network_cidr=c.get("gpu_network_cidr"),
        proxy_subnet_cidr=c.get("proxy_subnet_cidr"),
    )


CLIENT_RANGE_KEYS = ("master_authorized_cidrs", "public_access_cidrs", "authorized_ip_ranges")
"""The cluster components' lists of networks allowed to reach the API server (GKE, EKS, AKS)."""


def client_range_problems(checked: Mapping[str, Any], p: Problems) -> None:
    """Each plain entry of a client range list is an IPv4 network outside the special ranges (Outputs pass)."""
    for key in CLIENT_RANGE_KEYS:
        ranges = checked.get(key)
        if not isinstance(ranges, (list, tuple)):
            continue
        for i, cidr in enumerate(ranges):
            if not is_unknown(cidr) and (reason := client_range_problem(cidr)):
                p.add((key, i), reason)


def resolve_cluster_args(
    cloud: str, tp: Any, args: Any, cidr_key: str
) -> tuple[Problems, dict[str, Any] | None, SystemPool | None]:
    """A cluster component's arguments checked: the problems so far, the checked arguments and its system pool."""
    p = Problems()
    checked = check_arguments(tp, args, p)
    if checked is None:
        p.raise_for_arguments()
    assert checked is not None
    system = system_pool_problems(cloud, checked.get("system_pool", {}), p.at("system_pool"))
    if reason := network_problem(checked.get(cidr_key, DEFAULT_VPC_CIDR), cloud):
        p.add((cidr_key,), reason)
    client_range_problems(checked, p)
    name = checked.get("cluster_name")
    if isinstance(name, str) and not CLUSTER_NAME.match(name):
        p.add(
            ("cluster_name",),
            f"'{name}' is not a valid cluster name: lowercase letters, digits and dashes, at most 40",
        )
    version = checked.get("kubernetes_version")
    if isinstance(version, str) and not KUBERNETES_VERSION.match(version):
        p.add(("kubernetes_version",), f"'{version}' is not a Kubernetes version like '1.33'")
    return p, checked, system
