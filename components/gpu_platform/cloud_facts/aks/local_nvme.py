"""Local NVMe data disks of AKS's GPU VM sizes, and Azure Container Storage (version 2), the way Microsoft
documents to use them on AKS: a cluster extension that finds every node's NVMe disks, stripes them and serves
volumes from them through one StorageClass (MicrosoftDocs/azure-aks-docs ``articles/aks/best-practices-gpu.md``,
"Use Ephemeral NVMe data disks as high-performance cache", and ``best-practices-storage-nvme.md``;
MicrosoftDocs/azure-docs ``articles/storage/container-storage/install-container-storage-aks.md`` and
``use-container-storage-with-local-disk.md``).

The agent-pool API has no setting that puts the kubelet's or containerd's data on those disks: an ephemeral OS
disk and ``kubeletDiskType: Temporary`` (a preview) use the VM's temporary (SCSI) disk, which these sizes have
besides their NVMe disks; Microsoft says backing ``emptyDir`` with NVMe needs custom node bootstrap scripting.
"""

from __future__ import annotations

NVME_DATA_DISKS: dict[str, int] = {
    "Standard_NC24ads_A100_v4": 1,
    "Standard_NC48ads_A100_v4": 2,
    "Standard_NC96ads_A100_v4": 4,
    "Standard_ND96isr_H100_v5": 8,
    "Standard_ND96isr_H200_v5": 8,
}
"""VM size -> its local NVMe data disks: the GPU sizes of ``best-practices-storage-nvme.md`` ("Example GPU VM
sizes with NVMe disks"), and NC24ads A100 v4 from the NC A100 v4 specs (one 960 GiB NVMe disk per GPU). Sizes
Microsoft does not list with NVMe data disks (ND A100 v4, NC H100 v5, NCasT4 v3) are refused."""

EXTENSION_NAME = "acstor"
"""The extension's name: "must be acstor for Azure CLI compatibility" (``install-container-storage-aks.md``)."""
EXTENSION_TYPE = "microsoft.azurecontainerstoragev2"
EXTENSION_SETTINGS = {"enable-azure-container-storage": "true"}
"""The extension's configuration in Microsoft's Terraform install. Its version is Azure's: "Azure Container
Storage installs the latest available version and updates itself automatically. Manual version selection is
not supported" (same page), so it has no pin in ``versions.py``."""
STORAGE_CLASS = "local"
PROVISIONER = "localdisk.csi.acstor.io"
"""The StorageClass Microsoft creates once per cluster for local NVMe (``use-container-storage-with-local-disk.md``);
pods take generic ephemeral volumes from it, striped over all of a node's NVMe disks."""
