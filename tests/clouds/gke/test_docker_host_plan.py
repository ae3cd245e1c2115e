"""A Docker host on Compute Engine: the instance inputs of its plan are what pulumi-gcp accepts."""

from __future__ import annotations

from gpu_platform.clouds.gke import docker_host_plan as gce
from tests.support.docker_host import plan_for


def test_compute_engine_inputs_match_pulumi_gcp() -> None:
    import pulumi_gcp.compute as compute

    from tests.support.sdk_inputs import sdk_input_problems

    for extra in ({}, {"spot": True, "public_ip": True}, {"machine_type": "n1-standard-8", "gpu_count": 2}):
        inputs = gce.instance_inputs(plan_for("gke", **extra))
        assert sdk_input_problems(compute.Instance, inputs) == []
    assert sdk_input_problems(compute.Instance, {"machine_typ": "x", "scheduling": {"on_host_maintenanc": 1}})
