"""GPU models: memory, MIG capability and the names Kubernetes components use for them.

Sources: NVIDIA MIG User Guide, "Supported GPU Products" and "Supported MIG Profiles"
(https://docs.nvidia.com/datacenter/tesla/mig-user-guide/); the memory of the GPUs without MIG as the
clouds' GPU machine tables give it (cloud_facts/*/machines.py); PCI device IDs from the GPU
Operator's default mig-parted config (assets/state-mig-manager/0400_configmap.yaml, v26.7.0). GB200: 186 GB per
GPU as Compute Engine's "Arm VMs on Compute" page gives it for A4X
(https://cloud.google.com/compute/docs/instances/arm-on-compute); no PCI device ID, as the operator's config
names 0x294110DE "GB200 HGX" only, which is not shown to be A4X's GB200 NVL72 Superchip.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class GpuModel:
    key: str
    """Stable short key used in labels and config (``h100-80gb``)."""
    display: str
    """Human name used in messages (``H100 80GB``)."""
    memory_gb: int
    mig_table: str | None
    """Key into ``MIG_TABLES`` or ``None`` when the GPU cannot be partitioned."""
    pci_device_ids: tuple[str, ...] = ()
    """mig-parted ``device-filter`` values, so one MIG config can hold per-GPU entries."""
    architecture: str = ""
    min_driver: str | None = None
    """The oldest data center driver that runs this GPU, where NVIDIA documents one; a driver the library
    installs, or one the user states the nodes run, below it is refused. ``None``: every supported driver."""

    @property
    def mig_capable(self) -> bool:
        return self.mig_table is not None


_GPU_LIST = (
    GpuModel("t4", "T4 16GB", 16, None, architecture="turing"),
    GpuModel("a10g", "A10G 24GB", 24, None, architecture="ampere"),
    GpuModel("l4", "L4 24GB", 24, None, architecture="ada"),
    GpuModel("l40s", "L40S 48GB", 48, None, architecture="ada"),
    GpuModel("a30-24gb", "A30 24GB", 24, "a30-24gb", pci_device_ids=("0x20B710DE",), architecture="ampere"),
    GpuModel(
        "a100-40gb",
        "A100 40GB",
        40,
        "a100-40gb",
        pci_device_ids=("0x20B010DE", "0x20B110DE", "0x20F110DE", "0x20F610DE"),
        architecture="ampere",
    ),
    GpuModel(
        "a100-80gb",
        "A100 80GB",
        80,
        "a100-80gb",
        pci_device_ids=("0x20B210DE", "0x20B510DE", "0x20F310DE", "0x20F510DE"),
        architecture="ampere",
    ),
    GpuModel(
        "h100-80gb",
        "H100 80GB",
        80,
        "h100-80gb",
        pci_device_ids=("0x233010DE", "0x233110DE", "0x232210DE", "0x232410DE"),
        architecture="hopper",
    ),
    GpuModel(
        "h100-94gb",
        "H100 NVL 94GB",
        94,
        "h100-94gb",
        pci_device_ids=("0x232110DE", "0x233A10DE"),
        architecture="hopper",
    ),
    GpuModel(
        "h200-141gb",
        "H200 141GB",
        141,
        "h200-141gb",
        pci_device_ids=("0x233510DE", "0x233B10DE"),
        architecture="hopper",
    ),
    GpuModel(
        "b200-180gb",
        "B200 180GB",
        180,
        "b200-180gb",
        pci_device_ids=("0x290110DE",),
        architecture="blackwell",
        # GPU Operator platform-support.rst: "HGX B200 requires a driver container version of 570.133.20 or later".
        min_driver="570.133.20",
    ),
    GpuModel(
        "gb200-186gb",
        "GB200 186GB",
        186,
        "gb200-186gb",
        architecture="blackwell",
        # GPU Operator v25.3.0 release notes: HGX GB200 NVL supported, with the R570 driver 570.124.06.
        min_driver="570.124.06",
    ),
)

GPUS: dict[str, GpuModel] = {g.key: g for g in _GPU_LIST}
