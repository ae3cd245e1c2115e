"""``local_ssds`` on EKS: the instance's NVMe instance-store volumes as one RAID0 array under the kubelet and
containerd (images, ``emptyDir``, checkpoints) instead of the EBS root volume.

Managed node groups: AL2023's nodeadm ``NodeConfig`` ``spec.instance.localStorage.strategy: RAID0`` in the launch
template's MIME multi-part user data (awslabs/amazon-eks-ami ``nodeadm/doc/api.md``), Bottlerocket's
``apiclient ephemeral-storage init``/``bind`` bootstrap commands in its TOML user data (bottlerocket.dev,
"Bootstrap Commands"); both merged by EKS with its own (EKS user guide, "Customize managed nodes with launch
templates"). Karpenter pools: ``EC2NodeClass`` ``instanceStorePolicy: RAID0`` (Karpenter configures both families).
"""

from __future__ import annotations

import base64
import email
import tomllib
from typing import Any

import pytest
import yaml

from gpu_platform.cloud_facts.eks.machines import MACHINES
from gpu_platform.cloud_facts.eks.profile import PROFILE
from gpu_platform.clouds.eks import karpenter_plan as kp
from gpu_platform.clouds.eks.node_pool import EksGpuNodePool
from gpu_platform.offline import Plan, run_program
from tests.support.crds import problems_of
from tests.support.plans import plan_eks_karpenter_pool

NODEGROUP = "aws:eks/nodeGroup:NodeGroup"
LAUNCH_TEMPLATE = "aws:ec2/launchTemplate:LaunchTemplate"
H100 = {"name": "h100", "machine_type": "p5.48xlarge", "max_nodes": 2}
BOTTLEROCKET = "BOTTLEROCKET_x86_64_NVIDIA"


def build(pool: dict[str, Any]) -> Plan:
    args = {
        "cluster_name": "gpu",
        "node_role_arn": "arn:aws:iam::111122223333:role/nodes",
        "subnet_ids": ["subnet-0a0a0a0a"],
        "pool": pool,
    }
    return run_program(lambda: EksGpuNodePool(pool["name"], args))  # type: ignore[arg-type]


def user_data(plan: Plan) -> str:
    return base64.b64decode(plan.one(LAUNCH_TEMPLATE).inputs["userData"]).decode()


def node_configs(text: str) -> list[dict[str, Any]]:
    """The nodeadm ``NodeConfig`` parts of a MIME multi-part user data document."""
    message = email.message_from_string(text)
    assert message.is_multipart(), "EKS merges only MIME multi-part user data on AL2023"
    parts = [p for p in message.walk() if p.get_content_type() == "application/node.eks.aws"]
    return [yaml.safe_load(str(p.get_payload())) for p in parts]


def test_al2023_node_group_raids_the_instance_store_under_kubelet_and_containerd() -> None:
    plan = build({**H100, "local_ssds": True})
    [config] = node_configs(user_data(plan))
    assert config["apiVersion"] == "node.eks.aws/v1alpha1" and config["kind"] == "NodeConfig"
    # Only the instance section: EKS adds the cluster section (name, endpoint, CA, CIDR) in its own part.
    assert config["spec"] == {"instance": {"localStorage": {"strategy": "RAID0"}}}


def test_bottlerocket_node_group_binds_containerd_kubelet_and_pod_logs_to_the_instance_store() -> None:
    plan = build({**H100, "image": BOTTLEROCKET, "local_ssds": True})
    settings = tomllib.loads(user_data(plan))["settings"]
    assert settings == {
        "bootstrap-commands": {
            "000-mount-instance-storage": {
                "commands": [
                    ["apiclient", "ephemeral-storage", "init"],
                    [
                        "apiclient",
                        "ephemeral-storage",
                        "bind",
                        "--dirs",
                        "/var/lib/containerd",
                        "/var/lib/kubelet",
                        "/var/log/pods",
                    ],
                ],
                "essential": True,
                "mode": "always",
            }
        }
    }


def test_instance_store_is_opt_in_so_an_upgrade_never_replaces_a_node_group() -> None:
    """Without the key the launch template carries no user data and the node group keeps its name; with it the
    name changes, so ``gpu-platform diff`` shows the group replaced (created before the old one goes)."""
    before = build(dict(H100))
    assert "userData" not in before.one(LAUNCH_TEMPLATE).inputs
    off = build({**H100, "local_ssds": False})
    on = build({**H100, "local_ssds": True})
    name = before.one(NODEGROUP).inputs["nodeGroupName"]
    assert off.one(NODEGROUP).inputs["nodeGroupName"] == name
    assert on.one(NODEGROUP).inputs["nodeGroupName"] != name


def test_every_eks_gpu_instance_type_has_an_instance_store() -> None:
    """EKS's GPU types all come with NVMe instance storage (Karpenter's instance-type reference), so none is
    refused; a type added to the catalog without its instance store listed would be refused by ``local_ssds``."""
    assert set(PROFILE.local_ssd_machines) == set(MACHINES)
    assert PROFILE.local_ssd_machines["p5.48xlarge"] == 30400


@pytest.mark.parametrize("image", [None, BOTTLEROCKET])
def test_karpenter_node_class_asks_for_raid0(image: str | None) -> None:
    pool: dict[str, Any] = {**H100, "local_ssds": True}
    extra: dict[str, Any] = {}
    if image:
        pool["image"], extra["ami_version"] = image, "v1.42.0"
    plan = plan_eks_karpenter_pool(
        {"pool": pool, "node_role_name": "KarpenterNodeRole-gpu", "discovery": "gpu", **extra}
    )
    node_class = kp.ec2_node_class(plan, "KarpenterNodeRole-gpu", "gpu")
    assert node_class["spec"]["instanceStorePolicy"] == "RAID0"
    assert problems_of(node_class) == []
    plain = plan_eks_karpenter_pool(
        {"pool": dict(H100), "node_role_name": "KarpenterNodeRole-gpu", "discovery": "gpu"}
    )
    assert "instanceStorePolicy" not in kp.ec2_node_class(plain, "KarpenterNodeRole-gpu", "gpu")["spec"]
