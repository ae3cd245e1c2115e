"""The GPUDirect subnets' range (``cluster.gpuNetworkCidr`` / ``GkeGpuDirect`` ``gpu_network_cidr``): split as
with the default, firewalled to itself, and refused when it overlaps the cluster's network or is too small."""

from __future__ import annotations

import ipaddress
from typing import Any

import pytest

from gpu_platform.cloud_facts.gke.gpudirect import DEFAULT_GPU_NETWORK_CIDR, GpuNetworkLayout
from gpu_platform.cloud_facts.gke.profile import gpu_network_problems
from gpu_platform.clouds.gke.gpudirect_plan import gpudirect_plan
from gpu_platform.errors import ArgumentsError, Problems
from gpu_platform.offline import run_program
from gpu_platform.resolve.cluster_pools import resolve_pools

POOLS = [
    {"name": "a3m", "machine_type": "a3-megagpu-8g", "max_nodes": 4, "gpudirect": True},
    {
        "name": "b200",
        "machine_type": "a4-highgpu-8g",
        "max_nodes": 4,
        "gpudirect": True,
        "zones": ["us-central1-b"],
    },
]


def _cidrs(network: str | None) -> dict[str, str]:
    plan = gpudirect_plan("c", "us-central1", resolve_pools("gke", POOLS), network=network)
    return {s.name: s.cidr for vpc in plan.vpcs for s in vpc.subnets}


def test_the_default_split_is_google_s_quarters() -> None:
    cidrs = _cidrs(None)
    assert cidrs["c-gpu-1-sub"] == "192.168.0.0/20" and cidrs["c-gpu-8-sub"] == "192.168.112.0/20"
    assert cidrs["c-gvnic-1-sub"] == "192.168.128.0/18"
    assert cidrs["c-rdma-sub-0"] == "192.168.192.0/21" and cidrs["c-rdma-sub-7"] == "192.168.248.0/21"
    assert _cidrs(DEFAULT_GPU_NETWORK_CIDR) == cidrs


def test_another_range_is_split_the_same_way_without_overlap() -> None:
    cidrs = _cidrs("172.20.0.0/20")
    assert cidrs["c-gpu-1-sub"] == "172.20.0.0/24" and cidrs["c-gvnic-1-sub"] == "172.20.8.0/22"
    assert cidrs["c-rdma-sub-7"] == "172.20.15.128/25"
    nets = [ipaddress.IPv4Network(c) for c in cidrs.values()]
    assert all(n.subnet_of(ipaddress.IPv4Network("172.20.0.0/20")) for n in nets)
    assert not any(a.overlaps(b) for i, a in enumerate(nets) for b in nets[i + 1 :])


def _problems(cidr: str, cluster: str | None = "10.0.0.0/16", pools: list[Any] | None = None) -> list[str]:
    p = Problems()
    gpu_network_problems(cidr, cluster, resolve_pools("gke", pools or POOLS), p)
    return [reason for _, reason in p.items]


def test_a_range_overlapping_the_cluster_network_is_refused_with_a_free_one() -> None:
    (reason,) = _problems("10.0.128.0/17")
    assert "overlaps the cluster's network 10.0.0.0/16" in reason and "such as 192.168.0.0/16" in reason
    (reason,) = _problems("192.168.0.0/16", cluster="192.168.0.0/16")
    assert "such as 172.16.0.0/16" in reason
    assert _problems("192.168.0.0/16") == [] and _problems("10.0.0.0/16", cluster=None) == []


@pytest.mark.parametrize(
    ("cidr", "why"),
    [
        ("192.168.0.0/25", "too small"),
        ("8.8.0.0/16", "not a private range"),
        ("192.168.0.1/16", "not an IPv4 network"),
        ("fd00::/64", "not an IPv4 network"),
    ],
)
def test_a_range_that_is_no_private_network_of_24_or_more_is_refused(cidr: str, why: str) -> None:
    (reason,) = _problems(cidr)
    assert why in reason


def test_every_node_needs_an_address_in_each_subnet() -> None:
    layout = GpuNetworkLayout.of("192.168.0.0/24")
    assert layout.usable(layout.rdma_subnets[0]) == 4  # a /29 less Compute Engine's four
    pools = [{**POOLS[1], "max_nodes": 5}]
    (reason,) = _problems("192.168.0.0/24", pools=pools)
    assert "up to 5 nodes need an address each in every RDMA subnet, a /29 of 192.168.0.0/24 with 4" in reason
    assert _problems("192.168.0.0/24", pools=[{**POOLS[1], "max_nodes": 4}]) == []


def test_the_component_refuses_an_overlap_and_firewalls_its_own_range() -> None:
    from gpu_platform.clouds.gke.gpudirect import GkeGpuDirect

    args: Any = {
        "cluster_name": "c",
        "region": "us-central1",
        "pools": POOLS,
        "project": "p",
        "gpu_network_cidr": "10.0.0.0/18",
        "cluster_network_cidr": "10.0.0.0/16",
    }
    with pytest.raises(ArgumentsError, match=r"gpu_network_cidr: '10.0.0.0/18' overlaps"):
        run_program(lambda: GkeGpuDirect("gd", args))
    args["gpu_network_cidr"] = "10.64.0.0/16"
    resources = run_program(lambda: GkeGpuDirect("gd", args))
    firewalls = resources.by_type("gcp:compute/firewall:Firewall")
    assert firewalls and all(r.inputs["sourceRanges"] == ["10.64.0.0/16"] for r in firewalls)
