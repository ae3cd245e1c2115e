"""The Docker host's checks: every refusal names its key (and why), CUDA images are held against the host's
driver, MIG against the host's GPU."""

from __future__ import annotations

import pytest

from gpu_platform.addons.docker_host.checks import cuda_of_image
from tests.support.docker_host import MIG_HOST, SECTIONS, args, refused
from tests.support.plans import plan_docker_host


def test_cuda_is_read_from_the_tag_of_cuda_images() -> None:
    assert cuda_of_image("nvcr.io/nvidia/cuda:12.8.1-base-ubuntu22.04") == "12.8"
    assert cuda_of_image("nvidia/cuda:13.0.0-runtime-ubuntu24.04") == "13.0"
    assert cuda_of_image("pytorch/pytorch:2.5.1-cuda12.4-cudnn9-runtime") == "12.4"
    assert cuda_of_image("vllm/vllm-openai:v0.10.1") is None
    assert cuda_of_image("localhost:5000/nvidia/cuda") is None


def test_fractional_gpus_are_refused() -> None:
    msg = refused(args("gke", services=[{"name": "a", "image": "x:1", "gpus": 0.5}]))
    assert "services[0].gpus: 0.5 is a fractional GPU" in msg and "whole devices" in msg


def test_cuda_image_newer_than_the_driver_is_refused_naming_both_versions() -> None:
    # The Deep Learning VM image runs driver branch 570 (CUDA <= 12.8).
    msg = refused(
        args("gke", services=[{"name": "a", "image": "nvidia/cuda:13.0.0-base-ubuntu24.04", "gpus": 1}])
    )
    assert "services[0].image: CUDA 13.0 needs NVIDIA driver >= 580.65.06" in msg
    assert "runs driver 570.26" in msg and "up to CUDA 12.8" in msg
    declared = refused(args("gke", services=[{"name": "a", "image": "vllm/x:1", "cuda_version": "12.9"}]))
    assert "services[0].cuda_version: CUDA 12.9 needs NVIDIA driver >= 575.51.03" in declared
    own = refused(args("eks", image="ami-0123", driver_version="550.144.03"))
    assert "CUDA 12.8 needs NVIDIA driver >= 570.26, but the host runs driver 550.144.03" in own


def test_cuda_on_a_new_enough_driver_passes() -> None:
    plan = plan_docker_host(
        args("eks", services=[{"name": "a", "image": "nvidia/cuda:13.2.0-base-ubuntu24.04"}])
    )
    assert plan.services[0].cuda_version == "13.2" and str(plan.driver_version) == "595.91.07"


@pytest.mark.parametrize(
    ("value", "why"),
    [
        ("swarm", "'docker stack deploy' ignores Compose's deploy.resources.reservations.devices"),
        ("Docker Swarm", "'docker stack deploy' ignores"),
        ("mesos", "retired to the Apache Attic"),
    ],
)
def test_swarm_and_mesos_are_refused_with_why(value: str, why: str) -> None:
    msg = refused(args("gke", orchestrator=value))
    assert "orchestrator: " in msg and "not supported" in msg and why in msg


def test_unknown_orchestrator_lists_the_choice() -> None:
    assert "orchestrator: 'nomad' is not an orchestrator of a Docker host; valid: compose" in refused(
        args("gke", orchestrator="nomad")
    )


def test_non_gpu_machine_types_are_refused_with_the_valid_choices() -> None:
    msg = refused(args("gke", machine_type="n2-standard-8"))
    assert (
        "machine_type: 'n2-standard-8' is a CPU machine type for Compute Engine; valid: g2-standard-4" in msg
    )
    msg = refused(args("eks", machine_type="m7i.large"))
    assert "machine_type: 'm7i.large'" in msg and "g6.xlarge" in msg and "p5.48xlarge" in msg


def test_gpu_requests_beyond_the_host_are_refused() -> None:
    msg = refused(args("gke", services=[{"name": "a", "image": "x:1", "gpus": 3}]))
    assert "services[0].gpus: 3 is not between 0 and the host's 2 GPU(s)" in msg
    msg = refused(args("gke", services=[{"name": "a", "image": "x:1", "device_ids": ["0", "2"]}]))
    assert "services[0].device_ids[1]: '2' is not a GPU index of this host; valid: 0, 1" in msg
    msg = refused(args("gke", services=[{"name": "a", "image": "x:1", "gpus": 1, "device_ids": ["0"]}]))
    assert "services[0].device_ids: give either gpus (a count) or device_ids, not both" in msg
    many = [{"name": n, "image": "x:1", "gpus": 2} for n in ("a", "b")]
    assert "services[1].gpus: 2 GPU(s) asked, but only 0 of the host's 2 are left" in refused(
        args("gke", services=many)
    )
    both_all = [{"name": n, "image": "x:1"} for n in ("a", "b")]
    assert "services[0].gpus: several services use GPUs" in refused(args("gke", services=both_all))


def test_settings_and_images_are_checked_together() -> None:
    a = args("gke")
    a["ec2"] = SECTIONS["eks"]["ec2"]
    del a["gce"]
    msg = refused(a)
    assert "ec2: only for cloud 'eks'; this host is on 'gke' (give gce)" in msg
    assert "gce: required for cloud 'gke'" in msg
    assert "driver_version: required with image" in refused(args("eks", image="ami-0123"))
    assert "gpu_count: 3 GPUs cannot be attached to n1-standard-8; valid: 1, 2, 4" in refused(
        args("gke", machine_type="n1-standard-8", gpu_count=3)
    )


def test_mig_is_refused_where_the_gpu_has_none_or_the_profile_is_unknown() -> None:
    msg = refused(args("gke", machine_type="g2-standard-24", mig_profile="1g.10gb"))
    assert (
        "mig_profile: the L4 24GB of g2-standard-24 has no MIG; MIG-capable GPUs: a100-40gb, a100-80gb" in msg
    )
    msg = refused({**MIG_HOST, "mig_profile": "1g.12gb"})
    assert (
        "mig_profile: '1g.12gb' is not a MIG profile of the A100 40GB; valid: 1g.5gb, 1g.10gb, 2g.10gb" in msg
    )
    msg = refused({**MIG_HOST, "services": [{"name": "a", "image": "x:1", "device_ids": ["0"]}]})
    assert (
        "services[0].device_ids[0]: '0' is not a MIG device (<GPU>:<MIG> index) of this host; valid: 0:0"
        in msg
    )


def test_an_unknown_restart_policy_is_refused_with_the_valid_ones() -> None:
    msg = refused(args("gke", services=[{"name": "a", "image": "x:1", "gpus": 1, "restart": "never"}]))
    assert (
        "services[0].restart: 'never' is not a Compose restart policy; valid: no, always, on-failure, unless-stopped"
        in msg
    )


def test_a_host_without_a_way_out_is_refused_naming_egress() -> None:
    no_way_out = {k: v for k, v in args("gke").items() if k != "egress"}
    assert "egress: is required: cloud-init fetches NVIDIA's key" in refused(no_way_out)
    assert "egress: 'vpn' is not an egress; valid: nat, public-ip" in refused(args("gke", egress="vpn"))
    assert "contradict" in refused(args("gke", egress="nat", public_ip=True))
    plan_docker_host(args("gke", public_ip=True))  # a public address is a way out
