"""Every network setting of the stack file and of the cluster components is checked by one validator: loopback,
link-local, ``0.0.0.0/8`` and the other special-purpose ranges are refused for a cluster's VPC and its GPU networks
(and for the clients allowed to reach an API server), naming the key; the shared address space 100.64.0.0/10,
which VPCs accept, plans."""

from __future__ import annotations

from typing import Any

import pytest

from gpu_platform.errors import ArgumentsError
from gpu_platform.stack import load_platform
from tests.support.refusals import config_problems


def _gke(**cluster: Any) -> dict[str, Any]:
    return {
        "cloud": "gke",
        "cluster": {"name": "c", "project": "p", "region": "us-central1", **cluster},
        "gpuPools": [
            {
                "name": "b200",
                "machineType": "a4-highgpu-8g",
                "maxNodes": 2,
                "zones": ["us-central1-b"],
                "gpudirect": True,
            }
        ],
    }


SPECIAL = [
    ("127.0.0.0/16", "loopback"),
    ("169.254.0.0/16", "link-local"),
    ("0.0.0.0/16", "this network"),
    ("224.0.0.0/16", "multicast"),
    ("240.0.0.0/16", "reserved"),
    ("198.18.0.0/16", "benchmarking"),
]


@pytest.mark.parametrize(("cidr", "what"), SPECIAL)
@pytest.mark.parametrize("key", ["vpcCidr", "gpuNetworkCidr"])
def test_a_special_range_is_refused_for_the_cluster_and_gpu_networks(key: str, cidr: str, what: str) -> None:
    other = {"gpuNetworkCidr": "192.168.0.0/16"} if key == "vpcCidr" else {}
    problems = config_problems(_gke(**{key: cidr}, **other))
    reason = problems[f"gpu-platform:cluster.{key}"]
    assert what in reason and "100.64.0.0/10" in reason, reason


@pytest.mark.parametrize("cloud_cidr", ["100.64.0.0/16", "100.96.0.0/12"])
def test_the_shared_address_space_plans_as_a_vpc(cloud_cidr: str) -> None:
    spec = load_platform(_gke(vpcCidr=cloud_cidr))
    assert spec.cluster.vpc_cidr == cloud_cidr


def test_the_shared_address_space_plans_as_a_gpu_network() -> None:
    spec = load_platform(_gke(gpuNetworkCidr="100.64.0.0/16"))
    assert spec.cluster.gpu_network_cidr == "100.64.0.0/16"


@pytest.mark.parametrize(
    ("cidr", "why"), [("8.8.0.0/16", "not a private range"), ("10.0.0.1/16", "not an IPv4 network")]
)
def test_public_and_malformed_networks_stay_refused(cidr: str, why: str) -> None:
    assert why in config_problems(_gke(vpcCidr=cidr))["gpu-platform:cluster.vpcCidr"]


@pytest.mark.parametrize(
    ("component", "key"),
    [("gke", "master_authorized_cidrs"), ("eks", "public_access_cidrs"), ("aks", "authorized_ip_ranges")],
)
def test_client_ranges_of_the_cluster_components_are_networks_outside_the_special_ranges(
    component: str, key: str
) -> None:
    from gpu_platform.clouds.aks import checks as aks
    from gpu_platform.clouds.eks import checks as eks
    from gpu_platform.clouds.gke import checks as gke

    check, base = {
        "gke": (gke.cluster_args, {"location": "us-central1", "project": "p"}),
        "eks": (eks.cluster_args, {}),
        "aks": (aks.cluster_args, {"location": "eastus2", "resource_group_name": "rg"}),
    }[component]
    with pytest.raises(ArgumentsError) as err:
        check({**base, key: ["0.0.0.0/0", "127.0.0.1/32", "banana"]})
    problems = dict(err.value.problems)
    assert "loopback" in problems[f"{key}[1]"] and "not an IPv4 network" in problems[f"{key}[2]"]
    assert f"{key}[0]" not in problems, "0.0.0.0/0 (any client) is a valid range"
