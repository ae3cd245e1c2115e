"""A pod that claims one A100 MIG slice through a ResourceClaimTemplate (DRA), on AKS.

- ``AksGpuNodePool``: ``Standard_ND96asr_v4`` (8 x A100 40GB) partitioned by AKS at node creation
  (``gpu_instance_profile`` ``MIG1g``: seven ``1g.5gb`` slices per GPU) with AKS's driver, and
  ``allocation: dra``: the nodes carry ``nvidia.com/dra-kubelet-plugin=true`` and keep the GPU Operator's
  device plugin and MIG manager off.
- ``GpuOperator``: driver and toolkit are AKS's; NFD, GFD and DCGM from the operator; no device plugin
  anywhere (every pool is DRA).
- ``DraDriver``: the NVIDIA DRA driver 0.4.1 (standalone chart) on the DRA nodes, the DeviceClass
  ``mig-1g-5gb.gpu.nvidia.com`` and the ResourceClaimTemplate ``mig-1g-5gb`` in the team namespace.
- A pod in that namespace references the template: the scheduler allocates one ``1g.5gb`` MIG device
  (no ``nvidia.com/*`` resource request at all).
"""

from __future__ import annotations

import pulumi
import pulumi_kubernetes as k8s

from gpu_platform import AksCluster, AksGpuNodePool, DraDriver, GpuOperator, GpuPoolArgs
from gpu_platform.args import DriverArgs
from gpu_platform.scheduling import pool_tolerations, selector_labels

config = pulumi.Config()
location = pulumi.Config("azure-native").require("location")
version = config.require("kubernetesVersion")
TEAM = "inference"

# AKS partitions the GPUs with the driver it installs (gpu_instance_profile needs AKS's driver); the DRA
# driver check needs that driver's version declared.
DRIVER: DriverArgs = {"owner": "cloud", "host_version": config.require("hostDriverVersion")}

POOL: GpuPoolArgs = {
    "name": "a100mig",
    "machine_type": "Standard_ND96asr_v4",
    # AKS's autoscaler cannot learn an empty pool's MIG devices (Azure/AKS#4216): one node stays up.
    "min_nodes": 1,
    "max_nodes": 1,
    "allocation": "dra",
    "sharing": {"mode": "mig", "managed_by": "cloud", "mig": {"layout": "all-1g.5gb"}},
}

cluster = AksCluster(
    config.get("clusterName") or "gpu-dra",
    {
        "location": location,
        "kubernetes_version": version,
        "admin_group_object_ids": config.get_object("adminGroupObjectIds") or [],
        "system_pool": {"machine_type": "Standard_D4s_v5", "min_nodes": 1, "max_nodes": 3},
    },
)
pool = AksGpuNodePool(
    POOL["name"],
    {
        "resource_group_name": cluster.resource_group_name,
        "cluster_name": cluster.cluster_name,
        "vnet_subnet_id": cluster.node_subnet_id,
        "kubernetes_version": version,
        "pool": POOL,
        "driver": DRIVER,
    },
)

provider = cluster.kubernetes_provider
on_cluster = pulumi.ResourceOptions(provider=provider)
team = k8s.core.v1.Namespace(TEAM, metadata={"name": TEAM}, opts=on_cluster)

operator = GpuOperator("gpu-operator", {"cloud": "aks", "pools": [POOL], "driver": DRIVER}, opts=on_cluster)
dra = DraDriver(
    "dra",
    {
        "cloud": "aks",
        "pools": [POOL],
        "driver": DRIVER,
        "kubernetes_version": version,
        "claim_namespaces": [TEAM],
    },
    opts=pulumi.ResourceOptions(provider=provider, depends_on=[operator, team]),
)

# The pod claims the template; its containers name the claim. Tolerations and the node selector are the
# pool's (what Kueue's flavor would inject for a queued workload).
resolved = pool.plan.pool
pod = k8s.core.v1.Pod(  # type: ignore[call-overload]  # plain-dict spec below
    "mig-slice",
    metadata={"name": "mig-slice", "namespace": TEAM},
    spec={  # pyright: ignore[reportArgumentType]  (plain dicts, as pulumi_kubernetes takes them)
        "restartPolicy": "Never",
        "nodeSelector": selector_labels(resolved),
        "tolerations": pool_tolerations(resolved),
        "resourceClaims": [{"name": "mig", "resourceClaimTemplateName": "mig-1g-5gb"}],
        "containers": [
            {
                "name": "cuda",
                "image": "nvcr.io/nvidia/k8s/cuda-sample:vectoradd-cuda12.5.0",
                "command": ["sh", "-c", "nvidia-smi -L; /cuda-samples/vectorAdd"],
                "resources": {"claims": [{"name": "mig"}]},
            }
        ],
    },
    opts=pulumi.ResourceOptions(provider=provider, depends_on=[dra]),
)

pulumi.export("kubeconfig", cluster.kubeconfig)
pulumi.export("deviceClasses", dra.device_classes)
pulumi.export("claimTemplates", dra.claim_templates)
pulumi.export("gpuPoolLabels", pool.labels)
