"""``local_ssds`` on AKS: the local NVMe data disks of the GPU VM sizes that have them, through Azure Container
Storage (version 2), the way Microsoft documents for AKS (azure-aks-docs ``best-practices-storage-nvme.md``,
``best-practices-gpu.md`` "Use Ephemeral NVMe data disks as high-performance cache"; azure-docs
``storage/container-storage/install-container-storage-aks.md`` and ``use-container-storage-with-local-disk.md``).
The agent-pool API has no setting that puts the kubelet's or containerd's data on them: the pools stay as they are.
"""

from __future__ import annotations

from typing import Any

from gpu_platform.offline import Plan
from tests.conftest import REPO
from tests.support.refusals import config_problems

EXTENSION = "azure-native:kubernetesconfiguration:Extension"
STORAGE_CLASS = "kubernetes:storage.k8s.io/v1:StorageClass"
AGENT_POOL = "azure-native:containerservice:AgentPool"
H100 = {"name": "ndh100", "machineType": "Standard_ND96isr_H100_v5", "minNodes": 0, "maxNodes": 2}
T4 = {"name": "t4", "machineType": "Standard_NC8as_T4_v3", "minNodes": 1, "maxNodes": 2}


def stack(*pools: dict[str, Any]) -> dict[str, Any]:
    raw = {
        "cloud": "aks",
        "cluster": {"name": "gpu", "region": "westeurope", "kubernetesVersion": "1.34"},
        "gpuPools": list(pools),
        "gpuOperator": {"driver": {"owner": "cloud", "hostVersion": "580.95.05"}},
    }
    return {f"gpu-platform:{k}": v for k, v in raw.items()}


def test_local_nvme_installs_azure_container_storage_and_its_local_storage_class(plan_stack: Any) -> None:
    plan: Plan = plan_stack("test", REPO, stack({**H100, "localSsds": True}, T4))
    (extension,) = plan.by_type(EXTENSION)
    assert extension.inputs["extensionName"] == "acstor"  # the name the Azure CLI expects
    assert extension.inputs["extensionType"] == "microsoft.azurecontainerstoragev2"
    assert extension.inputs["configurationSettings"] == {"enable-azure-container-storage": "true"}
    assert extension.inputs["clusterRp"] == "Microsoft.ContainerService"
    assert extension.inputs["clusterResourceName"] == "managedClusters"
    (storage,) = plan.by_type(STORAGE_CLASS)
    assert storage.inputs["metadata"]["name"] == "local"
    assert storage.inputs["provisioner"] == "localdisk.csi.acstor.io"
    assert storage.inputs["volumeBindingMode"] == "WaitForFirstConsumer"
    assert storage.inputs["reclaimPolicy"] == "Delete"
    assert extension.urn in storage.depends_on  # the driver first: its class would provision nothing


def test_local_nvme_is_opt_in_and_never_changes_an_agent_pool(plan_stack: Any) -> None:
    """Without the key no extension; with it the agent pools are planned exactly as before (same name and
    inputs), so turning it on replaces nothing on AKS."""
    before: Plan = plan_stack("test", REPO, stack(dict(H100), T4))
    assert before.by_type(EXTENSION) == [] and before.by_type(STORAGE_CLASS) == []
    after: Plan = plan_stack("test", REPO, stack({**H100, "localSsds": True}, T4))
    pools = {p.name: p.inputs for p in before.by_type(AGENT_POOL)}
    assert {p.name: p.inputs for p in after.by_type(AGENT_POOL)} == pools


def test_a_size_without_local_nvme_is_refused_naming_the_valid_ones() -> None:
    config = stack({**T4, "localSsds": True})
    found = config_problems({k.removeprefix("gpu-platform:"): v for k, v in config.items()})
    reason = found["gpu-platform:gpuPools[0].localSsds"]
    assert reason.startswith(
        "Standard_NC8as_T4_v3 has no local SSDs the library can use; valid machine types: "
    )
    assert "Standard_ND96isr_H100_v5" in reason and "Standard_NC96ads_A100_v4" in reason
