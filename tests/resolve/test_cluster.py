"""``cluster.region`` is a region of the cloud (GKE: a region or a zone, for a zonal cluster): an availability zone
given as the region, or another cloud's region, is refused naming the key, and no zone is checked against it."""

from __future__ import annotations

from typing import Any

import pytest

from gpu_platform.stack import load_platform
from tests.support.refusals import config_problems

POOLS = {
    "gke": {"name": "l4", "machineType": "g2-standard-8", "maxNodes": 2},
    "eks": {"name": "l4", "machineType": "g6.xlarge", "maxNodes": 2},
    "aks": {"name": "t4", "machineType": "Standard_NC4as_T4_v3", "maxNodes": 2},
}


def _stack(cloud: str, region: str) -> dict[str, Any]:
    cluster: dict[str, Any] = {"name": "c", "region": region}
    cluster.update({"gke": {"project": "p"}, "aks": {"resourceGroup": "rg"}}.get(cloud, {}))
    return {"cloud": cloud, "cluster": cluster, "gpuPools": [POOLS[cloud]]}


@pytest.mark.parametrize(
    ("cloud", "region", "why"),
    [
        ("eks", "us-east-1a", "availability zone"),
        ("eks", "us-central1", "not an EKS region"),
        ("aks", "2", "availability zone"),
        ("aks", "eastus2-1", "not an AKS region"),
        ("gke", "us-central", "not a GKE region"),
    ],
)
def test_a_zone_or_a_foreign_region_is_refused(cloud: str, region: str, why: str) -> None:
    problems = config_problems(_stack(cloud, region))
    assert (
        list(problems) == ["gpu-platform:cluster.region"] and why in problems["gpu-platform:cluster.region"]
    )


@pytest.mark.parametrize(
    ("cloud", "region"),
    [("eks", "us-gov-west-1"), ("aks", "eastus2"), ("gke", "us-central1"), ("gke", "us-central1-a")],
)
def test_regions_and_gke_zones_plan(cloud: str, region: str) -> None:
    assert load_platform(_stack(cloud, region)).cluster.region == region
