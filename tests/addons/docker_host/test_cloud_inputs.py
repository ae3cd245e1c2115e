"""A Docker host's inputs are checked as its cloud checks them, each refusal naming its key: published ports
(Docker's ``[IP:][HOST:]CONTAINER[/PROTOCOL]``), Compute Engine labels and network tags, EC2 tags and resource IDs,
Azure tags, admin user names and SSH public keys, zones given where a region belongs (and the reverse), images of
another cloud's kind, a zone without the host's GPU, and ``null`` where a list belongs."""

from __future__ import annotations

from typing import Any

import pytest

from tests.support import ssh_keys
from tests.support.docker_host import SECTIONS, args
from tests.support.plans import plan_docker_host
from tests.support.refusals import arg_problems


def _service(**extra: Any) -> list[dict[str, Any]]:
    return [{"name": "vllm", "image": "vllm/vllm-openai:v0.10.1", "cuda_version": "12.8", "gpus": 1, **extra}]


# --- null where a list or number belongs (a traceback before) ---------------------------------------------------


@pytest.mark.parametrize(
    ("extra", "key"),
    [
        ({"services": None}, "services"),
        ({"disk_size_gb": None}, "disk_size_gb"),
        ({"labels": None}, "labels"),
    ],
)
def test_null_is_refused_naming_the_key(extra: dict[str, Any], key: str) -> None:
    assert "null" in arg_problems(plan_docker_host, args("gke", **extra))[key]


# --- published ports --------------------------------------------------------------------------------------------

VALID_PORTS = [
    "8000",
    "8000:8000",
    "127.0.0.1:8000:8000",
    "[::1]:8000:8000",
    "8000-8010:8000-8010",
    "9000-9010:80",
    "6060:6060/udp",
    "0.0.0.0:5000-5002:5000-5002/tcp",
]


def test_every_docker_port_form_plans() -> None:
    plan = plan_docker_host(args("gke", services=_service(ports=VALID_PORTS)))
    assert plan.services[0].compose()["ports"] == VALID_PORTS


@pytest.mark.parametrize(
    ("port", "why"),
    [
        ("70000:80", "1 to 65535"),
        ("0:80", "1 to 65535"),
        ("8010-8000:80", "ends before it starts"),
        ("8000-8001:80-82", "same length"),
        ("80/icmp", "tcp, udp or sctp"),
        ("http", "not a port"),
        ("", "not a port"),
        ("1.2.3.4.5:80:80", "not an IP address"),
    ],
)
def test_a_port_docker_refuses_is_refused(port: str, why: str) -> None:
    problems = arg_problems(plan_docker_host, args("gke", services=_service(ports=["8000:8000", port])))
    assert why in problems["services[0].ports[1]"], problems


# --- Compute Engine ---------------------------------------------------------------------------------------------


def _gce(**gce: Any) -> dict[str, Any]:
    return args("gke", gce={**SECTIONS["gke"]["gce"], **gce})


def test_a_region_where_the_zone_belongs_is_refused() -> None:
    assert "is a region" in arg_problems(plan_docker_host, _gce(zone="us-central1"))["gce.zone"]
    assert "not a Compute Engine zone" in arg_problems(plan_docker_host, _gce(zone="eastus2"))["gce.zone"]


def test_a_zone_without_the_hosts_gpu_is_refused_with_the_zones_that_have_it() -> None:
    reason = arg_problems(plan_docker_host, _gce(zone="asia-northeast3-c"))["gce.zone"]
    assert "does not offer" in reason and "asia-northeast3-a" in reason
    plan_docker_host(_gce(zone="asia-northeast3-a"))


@pytest.mark.parametrize(
    ("labels", "key", "why"),
    [
        ({"Team": "ml"}, "labels.Team", "lowercase"),
        ({"1team": "ml"}, "labels.1team", "start with a lowercase letter"),
        ({"team": "ML.Research"}, "labels.team", "lowercase"),
        ({"k" * 64: "v"}, f"labels.{'k' * 64}", "at most 63"),
        ({f"l{i}": "v" for i in range(65)}, "labels", "at most 64"),
    ],
)
def test_gce_labels_follow_compute_engine_rules(labels: dict[str, str], key: str, why: str) -> None:
    assert why in arg_problems(plan_docker_host, args("gke", labels=labels))[key]


def test_international_lowercase_labels_and_empty_values_plan() -> None:
    labels = {"équipe": "données", "team": "", "cost_center": "gpu-01"}
    assert plan_docker_host(args("gke", labels=labels)).labels == labels


def test_gce_network_tags_are_rfc_1035_names() -> None:
    assert (
        "not a network tag" in arg_problems(plan_docker_host, _gce(tags=["web", "Web_Server"]))["gce.tags[1]"]
    )


@pytest.mark.parametrize(
    ("cloud", "image", "what"),
    [
        ("gke", "ami-0123456789abcdef0", "an AMI ID"),
        ("gke", "Canonical:ubuntu-24_04-lts:server:latest", "an Azure Marketplace image"),
        ("eks", "projects/debian-cloud/global/images/family/debian-12", "a Compute Engine image"),
        ("eks", "Canonical:ubuntu-24_04-lts:server:latest", "an Azure Marketplace image"),
        ("aks", "ami-0123456789abcdef0", "an AMI ID"),
        ("aks", "Canonical:ubuntu", "publisher:offer:sku:version"),
    ],
)
def test_an_image_of_another_clouds_kind_is_refused(cloud: str, image: str, what: str) -> None:
    problems = arg_problems(plan_docker_host, args(cloud, image=image, driver_version="580.95.05"))
    assert what in problems["image"], problems


# --- EC2 ----------------------------------------------------------------------------------------------------------


def _ec2(**ec2: Any) -> dict[str, Any]:
    return args("eks", ec2={**SECTIONS["eks"]["ec2"], **ec2})


def test_a_security_group_where_the_subnet_belongs_and_the_reverse_are_refused() -> None:
    problems = arg_problems(
        plan_docker_host,
        _ec2(subnet_id="sg-0123456789abcdef0", security_group_ids=["subnet-0a1b2c3d", "vpc-1a2b3c4d"]),
    )
    assert "security group ID" in problems["ec2.subnet_id"]
    assert "subnet ID" in problems["ec2.security_group_ids[0]"]
    assert "VPC ID" in problems["ec2.security_group_ids[1]"]


def test_a_public_key_where_the_key_pair_name_belongs_is_refused() -> None:
    assert (
        "key pair's name" in arg_problems(plan_docker_host, _ec2(key_name=ssh_keys.ED25519))["ec2.key_name"]
    )


@pytest.mark.parametrize(
    ("labels", "key", "why"),
    [
        ({"aws:team": "ml"}, "labels.aws:team", "reserved for AWS"),
        ({"k" * 129: "v"}, f"labels.{'k' * 129}", "at most 128"),
        ({"team": "v" * 257}, "labels.team", "at most 256"),
        ({f"t{i}": "v" for i in range(50)}, "labels", "at most 50"),
    ],
)
def test_ec2_tags_follow_ec2_rules(labels: dict[str, str], key: str, why: str) -> None:
    assert why in arg_problems(plan_docker_host, args("eks", labels=labels))[key]


# --- Azure --------------------------------------------------------------------------------------------------------


def _azure(**azure: Any) -> dict[str, Any]:
    return args("aks", azure={**SECTIONS["aks"]["azure"], **azure})


@pytest.mark.parametrize("user", ["root", "admin", "Administrator", "support_388945a0", "a", "123"])
def test_azure_reserved_admin_user_names_are_refused(user: str) -> None:
    assert "reserved" in arg_problems(plan_docker_host, _azure(admin_username=user))["azure.admin_username"]


@pytest.mark.parametrize(
    ("user", "why"), [("-ops", "start"), ("Ops", "upper-case"), ("ops@x", "@"), ("o" * 65, "64")]
)
def test_azure_admin_user_names_follow_its_character_rules(user: str, why: str) -> None:
    assert why in arg_problems(plan_docker_host, _azure(admin_username=user))["azure.admin_username"]


@pytest.mark.parametrize(
    ("key", "why"),
    [
        (ssh_keys.RSA_1024, "2048 bits"),
        (ssh_keys.ECDSA_P256, "ssh-rsa (2048 bits or more) or ssh-ed25519"),
        (f"restrict {ssh_keys.ED25519}", "does not start with a key type"),
        ("ssh-ed25519 AAAAC3Nza example", "not base64"),
        ("-----BEGIN OPENSSH PRIVATE KEY-----", "private key"),
    ],
)
def test_azure_ssh_keys_are_parsed(key: str, why: str) -> None:
    assert why in arg_problems(plan_docker_host, _azure(ssh_public_key=key))["azure.ssh_public_key"]


@pytest.mark.parametrize("key", [ssh_keys.ED25519, ssh_keys.RSA_2048])
def test_azure_accepts_rsa_and_ed25519_keys(key: str) -> None:
    assert plan_docker_host(_azure(ssh_public_key=key)).settings["ssh_public_key"] == key


def test_a_zone_where_the_azure_region_belongs_is_refused() -> None:
    assert "availability zone" in arg_problems(plan_docker_host, _azure(location="2"))["azure.location"]
    assert (
        "not an Azure region"
        in arg_problems(plan_docker_host, _azure(location="us-central1-a"))["azure.location"]
    )


def test_an_ec2_subnet_where_the_azure_subnet_belongs_is_refused() -> None:
    assert (
        "an EC2 subnet ID"
        in arg_problems(plan_docker_host, _azure(subnet_id="subnet-0a1b2c3d"))["azure.subnet_id"]
    )


@pytest.mark.parametrize(
    ("labels", "key", "why"),
    [
        ({"team/ml": "x"}, "labels.team/ml", "cannot contain"),
        ({f"t{i}": "v" for i in range(51)}, "labels", "50"),
    ],
)
def test_azure_tags_follow_azure_rules(labels: dict[str, str], key: str, why: str) -> None:
    assert why in arg_problems(plan_docker_host, args("aks", labels=labels))[key]
