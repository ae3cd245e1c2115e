"""Zone stockouts on GKE: pools pinned where their GPU is not offered are refused; pools without zones on a
regional cluster span the zones that have the GPU, down to the node pool's ``nodeLocations``."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from gpu_platform import ArgumentsError, GpuPlatform
from gpu_platform.clouds.gke.node_pool import GkeGpuNodePool
from gpu_platform.offline import run_program
from gpu_platform.stack import load_platform
from tests.support.plans import plan_gke_compute_class
from tests.support.refusals import config_error

NODEPOOL = "gcp:container/nodePool:NodePool"


def stack(region: str, **pool: Any) -> dict[str, Any]:
    return {
        "cloud": "gke",
        "cluster": {"name": "c1", "project": "p", "region": region},
        "gpuPools": [{"name": "gpus", "machineType": "g2-standard-8", "maxNodes": 4, **pool}],
    }


def test_a_zone_without_the_gpu_is_refused_listing_the_zones_that_have_it() -> None:
    message = config_error(stack("us-east4", zones=["us-east4-a", "us-east4-b"]))
    assert message.count("gpu-platform:") == 1
    assert "gpu-platform:gpuPools[0].zones[1]: 'us-east4-b' does not offer g2-standard-8" in message
    assert "zones of us-east4 that have it: us-east4-a, us-east4-c" in message
    assert "Compute Engine GPU zones as of 2026-12-02" in message


def test_each_machine_is_checked_through_its_own_gpu() -> None:
    """us-central1-a has the H100 of A3 High but not the H200 of A3 Ultra."""
    load_platform(stack("us-central1", machineType="a3-highgpu-8g", zones=["us-central1-a"]))
    message = config_error(stack("us-central1", machineType="a3-ultragpu-8g", zones=["us-central1-a"]))
    assert "gpuPools[0].zones[0]: 'us-central1-a' does not offer a3-ultragpu-8g" in message
    assert "zones of us-central1 that have it: us-central1-b" in message


def test_a_zone_outside_the_region_is_refused_once_for_the_region() -> None:
    message = config_error(stack("us-east4", zones=["us-west1-b"]))
    assert message.count("gpu-platform:") == 1
    assert "'us-west1-b' is not a zone of us-east4" in message


def test_a_region_without_the_gpu_is_refused_naming_the_regions_that_have_it() -> None:
    message = config_error(stack("europe-west2", machineType="a4-highgpu-8g", maxNodes=2))
    assert (
        "gpu-platform:gpuPools[0].machineType: a4-highgpu-8g (B200 180GB) is offered in no zone of" in message
    )
    assert "europe-west2" in message and "europe-west4" in message


def test_a_zonal_cluster_whose_zone_lacks_the_gpu_is_refused() -> None:
    message = config_error(stack("us-west1-a", machineType="a3-ultragpu-8g", maxNodes=2))
    assert (
        "gpu-platform:gpuPools[0].zones: not given, so the pool runs in the cluster's zone us-west1-a"
        in message
    )
    assert "us-west1-c" in message
    load_platform(stack("us-west1-c", machineType="a3-ultragpu-8g", maxNodes=2))


def test_what_the_table_does_not_know_is_never_refused() -> None:
    """A region the table does not list may be newer than the table: the cloud decides at ``pulumi up``."""
    spec = load_platform(stack("mars-north1", zones=["mars-north1-a"]))
    assert spec.pools[0].zones == ("mars-north1-a",)


def test_a_pool_without_zones_spans_the_zones_that_have_its_gpu() -> None:
    """us-east4 has three zones and the L4 in two: GKE's default node locations could pick the third."""
    spec = load_platform(stack("us-east4"))
    assert spec.pools[0].zones == ("us-east4-a", "us-east4-c")


def test_pools_keep_the_cluster_default_where_every_zone_has_the_gpu_or_they_name_zones() -> None:
    assert load_platform(stack("us-central1")).pools[0].zones == ()
    assert load_platform(stack("us-east4", zones=["us-east4-c"])).pools[0].zones == ("us-east4-c",)
    # A reservation is zonal: it decides where its VMs run, so its pool is not spread.
    reserved = stack("us-east4", capacity=[{"source": "reservation", "reservation": "l4-res", "nodes": 2}])
    assert load_platform(reserved).pools[0].zones == ()


def test_the_derived_zones_are_the_node_pools_node_locations() -> None:
    args: dict[str, Any] = {
        "cloud": "gke",
        "cluster": {"name": "c1", "project": "p", "region": "us-east4"},
        "gpu_pools": [{"name": "l4", "machine_type": "g2-standard-8", "max_nodes": 4, "initial_nodes": 2}],
    }
    plan = run_program(lambda: GpuPlatform("platform", copy.deepcopy(args)), config={"gcp:project": "p"})  # type: ignore[arg-type]
    pool = plan.one(NODEPOOL, "l4-nodepool").inputs
    assert pool["nodeLocations"] == ["us-east4-a", "us-east4-c"]
    assert pool["initialNodeCount"] == 1  # per zone: two nodes in all, as asked
    assert pool["autoscaling"]["totalMaxNodeCount"] == 4
    # The CPU system pool keeps the cluster's default node locations: only the GPU decides where GPU pools go.
    assert "nodeLocations" not in plan.one(NODEPOOL, "c1-system").inputs


def test_a_node_pool_component_is_refused_a_zone_without_its_gpu() -> None:
    pool = {"name": "h200", "machine_type": "a3-ultragpu-8g", "max_nodes": 2, "zones": ["us-central1-a"]}
    args = {"cluster": "gpu", "location": "us-central1", "project": "proj", "pool": pool}
    with pytest.raises(ArgumentsError) as err:
        run_program(lambda: GkeGpuNodePool("h200", args))  # type: ignore[arg-type]
    assert "pool.zones[0]: 'us-central1-a' does not offer a3-ultragpu-8g" in str(err.value)


def test_a_compute_class_is_refused_a_zone_without_its_gpu() -> None:
    pool = {"name": "h200", "machine_type": "a3-ultragpu-8g", "max_nodes": 2, "zones": ["us-central1-c"]}
    with pytest.raises(ArgumentsError) as err:
        plan_gke_compute_class({"pool": pool})  # type: ignore[typeddict-item]
    assert "pool.zones[0]: 'us-central1-c' does not offer a3-ultragpu-8g" in str(err.value)
    ok = plan_gke_compute_class({"pool": {**pool, "zones": ["us-central1-b"]}})  # type: ignore[typeddict-item]
    assert ok.pool.zones == ("us-central1-b",)
