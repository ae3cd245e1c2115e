"""NVMe instance-store volumes of EKS's GPU instance types, which a pool with ``local_ssds`` assembles into one
RAID0 array under the kubelet and containerd (images, ``emptyDir``, checkpoints) instead of the EBS root volume.

Sizes: aws/karpenter-provider-aws ``website/content/en/docs/reference/instance-types.md`` at main 1d927085, label
``karpenter.k8s.aws/instance-local-nvme`` (EC2 ``DescribeInstanceTypes``' ``InstanceStorageInfo``, total GB).
"""

from __future__ import annotations

INSTANCE_STORE_NVME_GB: dict[str, int] = {
    "g4dn.xlarge": 125,
    "g4dn.2xlarge": 225,
    "g4dn.4xlarge": 225,
    "g4dn.8xlarge": 900,
    "g4dn.16xlarge": 900,
    "g4dn.12xlarge": 900,
    "g4dn.metal": 1800,
    "g5.xlarge": 250,
    "g5.2xlarge": 450,
    "g5.4xlarge": 600,
    "g5.8xlarge": 900,
    "g5.16xlarge": 1900,
    "g5.12xlarge": 3800,
    "g5.24xlarge": 3800,
    "g5.48xlarge": 7600,
    "g6.xlarge": 250,
    "g6.2xlarge": 450,
    "g6.4xlarge": 600,
    "g6.8xlarge": 900,
    "g6.16xlarge": 1880,
    "g6.12xlarge": 3760,
    "g6.24xlarge": 3760,
    "g6.48xlarge": 7520,
    "g6e.xlarge": 250,
    "g6e.2xlarge": 450,
    "g6e.4xlarge": 600,
    "g6e.8xlarge": 900,
    "g6e.16xlarge": 1900,
    "g6e.12xlarge": 3800,
    "g6e.24xlarge": 3800,
    "g6e.48xlarge": 7600,
    "p4d.24xlarge": 8000,
    "p4de.24xlarge": 8000,
    "p5.48xlarge": 30400,
    "p5e.48xlarge": 30400,
    "p5en.48xlarge": 30400,
}
"""Instance type -> its NVMe instance-store capacity in GB (all of its volumes)."""
