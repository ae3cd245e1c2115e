"""The stack file's ``cluster`` section, resolved with its defaults and checked against the cloud and pools.

Also the checks the cluster components make on their own arguments (system pool, network CIDR), so a
stack file and a program building ``GkeCluster`` directly are refused for the same reasons.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from gpu_platform.args.autoprovisioning import DEFAULT_KARPENTER_REPLICAS
from gpu_platform.args.autoscaling import EksAutoscaler
from gpu_platform.args.cluster import (
    DEFAULT_KUBECONFIG_OUTPUT,
    DEFAULT_SYSTEM_MAX_NODES,
    DEFAULT_SYSTEM_MIN_NODES,
    DEFAULT_VPC_CIDR,
    SYSTEM_MACHINE_TYPE,
)
from gpu_platform.catalog.machines import find_machine
from gpu_platform.errors import Problems
from gpu_platform.pools import GpuPool
from gpu_platform.resolve.autoprovisioning import karpenter_pool_problems
from gpu_platform.resolve.pools import PoolProblems
from gpu_platform.versions import CLUSTER_AUTOSCALER_IMAGE_TAGS

CLUSTER_NAME = re.compile(r"^[a-z]([-a-z0-9]{0,38}[a-z0-9])?$")
KUBERNETES_VERSION = re.compile(r"^v?1\.\d{1,2}(\.\d{1,3})?([-+][0-9A-Za-z.-]+)?$")
MIN_PREFIX = {"gke": 16, "eks": 16, "aks": 20}
"""Largest prefix length of a new cluster's network per cloud (what the subnet layouts need)."""
MAX_SYSTEM_NODES = 100
EKS_MAX_ZONES = 6
"""Public subnets of up to six zones keep stable CIDR slots (``plans.clusters.PUBLIC_SLOTS``)."""


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
    kubeconfig: str | None
    kubeconfig_stack: str | None
    kubeconfig_output: str
    existing_node_role_arn: str | None
    existing_subnet_ids: tuple[str, ...]
    disposable: bool = False
    """Nothing is protected from deletion (dev stacks)."""
    autoscaler: str | None = None
    """EKS: ``cluster-autoscaler`` or ``none``; ``None`` elsewhere (GKE and AKS scale pools themselves)."""
    pod_identity_agent: bool = True

    @property
    def attached(self) -> bool:
        """Pools or add-ons go onto a cluster made elsewhere (reached through a kubeconfig)."""
        return not self.create


def system_pool_problems(cloud: str, pool: Mapping[str, Any], p: Problems) -> SystemPool | None:
    """The system pool with its defaults: a known CPU machine, ``1 <= min_nodes <= max_nodes``."""
    before = p.count()
    machine = pool.get("machine_type", SYSTEM_MACHINE_TYPE[cloud])
    gpu_machine = find_machine(cloud, machine)
    if gpu_machine is not None:
        p.add(
            ("machine_type",),
            f"{machine} has {gpu_machine.gpus} x {gpu_machine.gpu.display}: the system pool is untainted, so "
            f"ordinary pods would fill it; use a CPU machine such as {SYSTEM_MACHINE_TYPE[cloud]}",
        )
    elif not _looks_like_machine(cloud, machine):
        p.add(
            ("machine_type",),
            f"'{machine}' is not a {cloud.upper()} machine type like {SYSTEM_MACHINE_TYPE[cloud]}",
        )
    low = pool.get("min_nodes", DEFAULT_SYSTEM_MIN_NODES)
    high = pool.get("max_nodes", DEFAULT_SYSTEM_MAX_NODES)
    if not 1 <= low <= MAX_SYSTEM_NODES:
        p.add(("min_nodes",), f"{low} is out of range; the system pool needs 1 to {MAX_SYSTEM_NODES} nodes")
    if not 1 <= high <= MAX_SYSTEM_NODES:
        p.add(("max_nodes",), f"{high} is out of range; the system pool needs 1 to {MAX_SYSTEM_NODES} nodes")
    elif low > high:
        p.add(("min_nodes",), f"{low} is more than {{{{max_nodes}}}} {high}")
    return SystemPool(machine, low, high) if p.count() == before else None


_MACHINE_SHAPES = {
    # <series>-<class>[-<vCPUs>]: the Compute Engine general-purpose and compute-optimized series.
    "gke": re.compile(
        r"^(e2|n1|n2|n2d|n4|c2|c2d|c3|c3d|c4|c4a|c4d|t2a|t2d|m1|m2|m3)-"
        r"(standard|highmem|highcpu|micro|small|medium|custom|megamem|ultramem)(-\d+)?(-lssd)?$"
    ),
    # <family>.<size>: EC2 sizes.
    "eks": re.compile(r"^[a-z][a-z0-9-]*\.(nano|micro|small|medium|large|\d*xlarge|metal(-\d+xl)?)$"),
    "aks": re.compile(r"^Standard_[A-Z][A-Za-z0-9_]*$"),
}


def _looks_like_machine(cloud: str, name: str) -> bool:
    return bool(_MACHINE_SHAPES[cloud].match(name))


def network_problem(cidr: str, cloud: str) -> str | None:
    """Why ``cidr`` cannot be a new cluster's network, or ``None``."""
    try:
        net = ipaddress.ip_network(cidr, strict=True)
    except ValueError as exc:
        return f"'{cidr}' is not a network like {DEFAULT_VPC_CIDR} ({exc})"
    if net.version != 4:
        return f"'{cidr}' is IPv6; the cluster networks here are IPv4"
    if not net.is_private:
        return f"'{cidr}' is not a private range (10.0.0.0/8, 172.16.0.0/12, 192.168.0.0/16)"
    if net.prefixlen > MIN_PREFIX[cloud]:
        return f"'{cidr}' is too small: {cloud.upper()} needs a /{MIN_PREFIX[cloud]} or larger"
    return None


def _zone_problems(cloud: str, region: str | None, pools: Sequence[GpuPool], at: PoolProblems) -> None:
    if region is None or cloud not in ("gke", "eks"):
        return
    base = region_of(region) if cloud == "gke" else region
    shape = re.compile(rf"^{re.escape(base)}-[a-z]$" if cloud == "gke" else rf"^{re.escape(base)}[a-z]$")
    example = f"{base}-a" if cloud == "gke" else f"{base}a"
    for pool in pools:
        for j, zone in enumerate(pool.zones):
            if not shape.match(zone):
                at(pool.index).add(("zones", j), f"'{zone}' is not a zone of {base} (like {example})")


def region_of(location: str) -> str:
    """``us-central1-a`` -> ``us-central1``; a region stays as it is."""
    parts = location.split("-")
    return "-".join(parts[:2]) if len(parts) > 2 else location


ROLE_ARN = re.compile(r"^arn:aws[a-z-]*:iam::\d{12}:role/[\w+=,.@/-]+$")
STACK_NAME = re.compile(r"^[^/\s]+/[^/\s]+/[^/\s]+$")
ONLY_ON = {
    "project": ("gke",),
    "resource_group": ("aks",),
    "existing_node_role_arn": ("eks",),
    "existing_subnet_ids": ("eks",),
    "zones": ("eks",),
    "autoscaler": ("eks",),
    "pod_identity_agent": ("eks",),
}
"""Cluster keys that mean something on some clouds only: anywhere else they would be silently ignored."""


def _meaningless_keys(cloud: str, c: Mapping[str, Any], create: bool, p: Problems) -> None:
    for key, clouds in ONLY_ON.items():
        if key in c and cloud not in clouds:
            p.add((key,), f"{'/'.join(x.upper() for x in clouds)} only; remove it")
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
    arn = c.get("existing_node_role_arn")
    if arn is not None and not ROLE_ARN.match(arn):
        p.add(
            ("existing_node_role_arn",),
            f"'{arn}' is not an IAM role ARN like arn:aws:iam::123456789012:role/nodes",
        )


def _karpenter_problems(
    c: Mapping[str, Any], create: bool, pools: Sequence[GpuPool], at: PoolProblems, p: Problems
) -> None:
    """Karpenter needs the cluster's subnets tagged, a node for each controller replica off its own nodes,
    and pools it can size (``resolve.autoprovisioning.karpenter_pool_problems``)."""
    if not create:
        p.add(
            ("autoscaler",),
            "karpenter only on a cluster the stack creates (it tags the subnets and security group Karpenter "
            "discovers); on an attached cluster use cluster-autoscaler or none",
        )
        return
    low = c.get("system_pool", {}).get("min_nodes", DEFAULT_SYSTEM_MIN_NODES)
    if low < DEFAULT_KARPENTER_REPLICAS:
        p.add(
            ("system_pool", "min_nodes"),
            f"{low} is too few with {{{{cluster.autoscaler}}}} karpenter: its {DEFAULT_KARPENTER_REPLICAS} "
            "controller replicas each need their own system node (never a Karpenter node)",
        )
    for pool in pools:
        karpenter_pool_problems(pool, at(pool.index))


def _autoscaler(
    cloud: str, c: Mapping[str, Any], create: bool, pools: Sequence[GpuPool], at: PoolProblems, p: Problems
) -> str | None:
    """EKS's autoscaler choice with its default, and what it needs."""
    if cloud != "eks":
        return None
    default = EksAutoscaler.CLUSTER_AUTOSCALER.value if create else EksAutoscaler.NONE.value
    choice: str = c.get("autoscaler", default)
    if choice == EksAutoscaler.NONE.value and "pod_identity_agent" in c:
        p.add(
            ("pod_identity_agent",),
            "only with {{cluster.autoscaler}} cluster-autoscaler or karpenter; remove it",
        )
    if choice == EksAutoscaler.KARPENTER.value:
        _karpenter_problems(c, create, pools, at, p)
    version = c.get("kubernetes_version")
    if choice == EksAutoscaler.CLUSTER_AUTOSCALER.value and version and KUBERNETES_VERSION.match(version):
        minor = ".".join(version.lstrip("v").split(".")[:2])
        if minor not in CLUSTER_AUTOSCALER_IMAGE_TAGS:
            p.add(
                ("kubernetes_version",),
                f"{minor} has no pinned Cluster Autoscaler (its minor must match the cluster's); valid: "
                f"{', '.join(CLUSTER_AUTOSCALER_IMAGE_TAGS)}, or {{{{cluster.autoscaler}}}} none",
            )
    return choice


def _attach_problems(
    cloud: str, c: Mapping[str, Any], pools: Sequence[GpuPool], at: PoolProblems, p: Problems
) -> None:
    if c.get("kubeconfig") is None and c.get("kubeconfig_stack_reference") is None:
        p.add(
            ("kubeconfig",),
            "required for an existing or attached cluster: a secure: kubeconfig, or cluster.kubeconfigStackReference",
        )
    if cloud == "aks" and not c.get("resource_group"):
        p.add(("resource_group",), "required when cluster.create is false on AKS")
    if cloud == "eks":
        for key in ("existing_node_role_arn", "existing_subnet_ids"):
            if not c.get(key):
                p.add((key,), "required when cluster.create is false on EKS")
        for pool in pools:
            if pool.zones:
                at(pool.index).add(
                    ("zones",), "on an attached EKS cluster the subnets decide the zones; remove it"
                )
            if pool.efa:
                at(pool.index).add(
                    ("efa",),
                    "EFA on an attached cluster needs its security group: build EksGpuNodePool with security_group_ids",
                )


def _eks_zones(
    c: Mapping[str, Any], region: str | None, pools: Sequence[GpuPool], at: PoolProblems, p: Problems
) -> tuple[str, ...]:
    """The VPC's zones: fixed in config whenever pools name zones, so pool edits never move subnets."""
    zones = tuple(c.get("zones", ()))
    if zones and not 2 <= len(zones) <= EKS_MAX_ZONES:
        p.add(("zones",), f"EKS needs two to {EKS_MAX_ZONES} zones (got {len(zones)})")
    for j, zone in enumerate(zones):
        if zone in zones[:j]:
            p.add(("zones", j), f"'{zone}' is listed twice")
        elif region and not re.match(rf"^{re.escape(region)}[a-z]$", zone):
            p.add(("zones", j), f"'{zone}' is not a zone of {region} (like {region}a)")
    in_region = re.compile(rf"^{re.escape(region or '')}[a-z]$")
    # A pool whose zones are not even in the region is already refused: no follow-on requirement.
    named = [pool for pool in pools if pool.zones and all(in_region.match(z) for z in pool.zones)]
    if named and not zones and c.get("create", True):
        p.add(
            ("zones",),
            f"required when pools name zones (pool '{named[0].name}'): list the VPC's zones so that editing "
            "a pool never moves a subnet; pools use a subset",
        )
    if zones:
        for pool in pools:
            for j, zone in enumerate(pool.zones):
                if zone not in zones and in_region.match(zone):
                    reason = f"'{zone}' is not one of {{{{cluster.zones}}}} ({', '.join(zones)})"
                    at(pool.index).add(("zones", j), reason)
    return zones


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
    create = c.get("create", True) if cloud != "existing" else False
    version = c.get("kubernetes_version")
    if version is not None and not KUBERNETES_VERSION.match(version):
        p.add(("kubernetes_version",), f"'{version}' is not a Kubernetes version like '1.33' (quote it)")
    region = c.get("region")
    if cloud == "gke" and not region:
        p.add(("region",), "required on GKE (the cluster's region or zone)")
    cidr = c.get("vpc_cidr", DEFAULT_VPC_CIDR)
    if cloud != "existing" and create and (reason := network_problem(cidr, cloud)):
        p.add(("vpc_cidr",), reason)
    system = None
    if cloud != "existing":
        system = system_pool_problems(cloud, c.get("system_pool", {}), p.at("system_pool"))
    _meaningless_keys(cloud, c, create, p)
    if not create:
        _attach_problems(cloud, c, pools, at, p)
    _zone_problems(cloud, region, pools, at)
    zones = _eks_zones(c, region, pools, at, p) if cloud == "eks" else ()
    autoscaler = _autoscaler(cloud, c, create, pools, at, p)
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
        disposable=c.get("disposable", False),
        autoscaler=autoscaler,
        pod_identity_agent=c.get("pod_identity_agent", True),
    )
