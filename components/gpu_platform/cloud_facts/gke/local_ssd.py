"""Local NVMe SSDs that come with GKE's GPU machine types, used as the node's ephemeral storage (images,
``emptyDir``, checkpoints) instead of the boot disk: GoogleCloudPlatform/cluster-toolkit
``modules/compute/gke-node-pool/disk_definitions.tf`` (``local_ssd_count_ephemeral_storage``), which GKE's node
pools take as ``node_config.ephemeral_storage_local_ssd_config.local_ssd_count``."""

from __future__ import annotations

EPHEMERAL_LOCAL_SSDS: dict[str, int] = {
    "a3-highgpu-8g": 16,
    "a3-megagpu-8g": 16,
    "a3-ultragpu-8g": 32,
    "a4-highgpu-8g": 32,
}
"""Machine type -> local SSDs GKE formats as ephemeral storage (every one the machine has)."""
