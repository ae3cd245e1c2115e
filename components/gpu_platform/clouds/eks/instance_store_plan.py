"""What a pool with ``local_ssds`` tells its EKS nodes: assemble the NVMe instance-store volumes into one RAID0
array and put the kubelet's and containerd's state on it (images, ``emptyDir``, pod logs, checkpoints written
there), instead of the EBS root volume.

- Managed node groups, AL2023: a nodeadm ``NodeConfig`` with ``spec.instance.localStorage.strategy: RAID0``
  (awslabs/amazon-eks-ami ``nodeadm/doc/api.md`` at v20260724, ``LocalStorageOptions``; nodeadm runs
  ``setup-local-disks raid0``, which binds ``/var/lib/kubelet``, ``/var/lib/containerd`` and ``/var/log/pods``).
- Managed node groups, Bottlerocket (1.22.0 and later): the bootstrap command Karpenter writes for the same policy,
  ``apiclient ephemeral-storage init`` then ``bind`` of the same directories (bottlerocket.dev "Bootstrap
  Commands", "Configure ephemeral disks"; aws/karpenter-provider-aws
  ``pkg/providers/amifamily/bootstrap/bottlerocket.go`` at main 1d927085).
- Both go in the launch template's user data, which EKS merges with its own (the node's cluster settings): MIME
  multi-part for AL2023, TOML for Bottlerocket (EKS user guide "Customize managed nodes with launch templates",
  "Amazon EC2 user data").
- Karpenter pools: ``EC2NodeClass`` ``spec.instanceStorePolicy: RAID0``; Karpenter writes the same settings for
  either family and counts the array as the node's ephemeral storage (Karpenter ``concepts/nodeclasses.md``).
"""

from __future__ import annotations

import yaml

from gpu_platform.cloud_facts.profile import NodeImage

RAID0 = "RAID0"
"""nodeadm's ``LocalStorageStrategy`` and Karpenter's ``InstanceStorePolicy`` for one striped array."""
NODEADM_API = "node.eks.aws/v1alpha1"
NODEADM_CONTENT_TYPE = "application/node.eks.aws"
BOUNDARY = "BOUNDARY"
"""The part boundary of the EKS user guide's and nodeadm's examples."""
BOUND_DIRS = ("/var/lib/containerd", "/var/lib/kubelet", "/var/log/pods")
"""What Bottlerocket binds onto the array: the directories nodeadm's ``setup-local-disks`` binds on AL2023."""
BOTTLEROCKET_COMMAND = "000-mount-instance-storage"
"""Karpenter's name for the command: a node class and a node group configure nodes alike."""


def al2023_user_data() -> str:
    """A MIME multi-part document with one ``NodeConfig`` part (EKS adds the cluster part)."""
    config = {
        "apiVersion": NODEADM_API,
        "kind": "NodeConfig",
        "spec": {"instance": {"localStorage": {"strategy": RAID0}}},
    }
    return (
        "MIME-Version: 1.0\n"
        f'Content-Type: multipart/mixed; boundary="{BOUNDARY}"\n\n'
        f"--{BOUNDARY}\n"
        f"Content-Type: {NODEADM_CONTENT_TYPE}\n\n"
        f"---\n{yaml.safe_dump(config, sort_keys=False)}\n"
        f"--{BOUNDARY}--\n"
    )


def bottlerocket_user_data() -> str:
    """Bottlerocket settings (TOML) with the one bootstrap command; only forms EKS's TOML merge accepts."""

    def strings(items: tuple[str, ...]) -> str:
        return "[" + ", ".join(f'"{i}"' for i in items) + "]"

    init = strings(("apiclient", "ephemeral-storage", "init"))
    bind = strings(("apiclient", "ephemeral-storage", "bind", "--dirs", *BOUND_DIRS))
    return (
        f"[settings.bootstrap-commands.{BOTTLEROCKET_COMMAND}]\n"
        f"commands = [{init}, {bind}]\n"
        "essential = true\n"
        'mode = "always"\n'
    )


def instance_store_user_data(image: NodeImage) -> str:
    """The launch template's user data that puts a node's state on its instance store, per node image."""
    return bottlerocket_user_data() if image.os == "bottlerocket" else al2023_user_data()
