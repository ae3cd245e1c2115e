"""Model caches per cloud: a bucket mounted through the cloud's CSI driver as a static volume and claim (GCS FUSE,
Mountpoint for S3, BlobFuse2), a claim or KServe's local model cache on an existing cluster, KServe's download
otherwise; local NVMe where the pool has it; start deadlines from the weights' size."""

from __future__ import annotations

import math
from typing import Any

import pytest

from gpu_platform.addons.kserve.llm_service_plan import llm_inference_service
from gpu_platform.addons.kserve.llm_sizing import Request, size_model, weight_bytes
from gpu_platform.addons.serving import model_cache as mc
from gpu_platform.catalog.llm_models import LLM_MODELS
from gpu_platform.pools import GpuPool
from gpu_platform.scheduling import selector_labels
from tests.support.crds import crd_problems, crd_schema, problems_of, schema_problems
from tests.support.pools import resolved_pool

LOCAL_MODEL = ("kserve-localmodel", "crds")
NODE_GROUP_CRD = (*LOCAL_MODEL, "serving.kserve.io_localmodelnodegroups.yaml")
LLAMA_70B = weight_bytes(LLM_MODELS["llama-3.1-70b"], "bf16")  # 141.2 GB


def core_problems(obj: dict[str, Any]) -> list[str]:
    """A PersistentVolume's or claim's spec against the Kubernetes schema KServe's LocalModelNodeGroup CRD embeds
    (``persistentVolumeSpec``, ``persistentVolumeClaimSpec``: the core v1 types, generated from them)."""
    _, _, schema = crd_schema(NODE_GROUP_CRD, "v1alpha1")
    key = {"PersistentVolume": "persistentVolumeSpec", "PersistentVolumeClaim": "persistentVolumeClaimSpec"}
    return schema_problems(
        obj["spec"], schema["properties"]["spec"]["properties"][key[obj["kind"]]], obj["kind"]
    )


def service_with(plan: mc.ModelCachePlan, pool: GpuPool) -> dict[str, Any]:
    """An LLMInferenceService on ``pool`` reading its weights as ``plan`` says, with its start deadline."""
    sizing = size_model(Request(LLM_MODELS["llama-3.1-8b"], "bf16", 8192, 4), [pool])
    obj = llm_inference_service("m", "llm", plan.model_uri, sizing, pool)
    if plan.annotations:
        obj["spec"]["annotations"] = dict(plan.annotations)
    obj["spec"]["template"]["containers"][0]["startupProbe"] = plan.deadlines.startup_probe
    return obj


def test_gke_mounts_the_bucket_with_gcs_fuse_and_caches_on_local_ssd() -> None:
    pool = resolved_pool("gke", machine_type="a3-highgpu-8g", local_ssds=True)
    plan = mc.model_cache_plan("m", "llm", "gke", pool, "gs://models/llama/70b", LLAMA_70B)
    assert (plan.kind, plan.model_uri, plan.local_nvme) == ("gcsfuse", "pvc://m-weights/llama/70b", True)
    pv, pvc = plan.objects
    assert pv["metadata"] == {"name": "llm-m-weights"}
    assert pv["spec"]["csi"] == {
        "driver": "gcsfuse.csi.storage.gke.io",
        "volumeHandle": "models",
        "readOnly": True,
        "volumeAttributes": {"gcsfuseMetadataPrefetchOnMount": "true"},
    }
    assert pv["spec"]["mountOptions"] == [
        "implicit-dirs",
        "metadata-cache:negative-ttl-secs:0",
        "metadata-cache:ttl-secs:-1",
        "metadata-cache:stat-cache-max-size-mb:-1",
        "metadata-cache:type-cache-max-size-mb:-1",
        "file-system:kernel-list-cache-ttl-secs:-1",
        "file-cache:max-size-mb:-1",
        "file-cache:cache-file-for-range-read:true",
        "file-cache:enable-parallel-downloads:true",
    ]
    assert pv["spec"]["accessModes"] == ["ReadOnlyMany"] == pvc["spec"]["accessModes"]
    assert pv["spec"]["capacity"] == {"storage": "145Gi"}  # 141.2 GB + 10%, in GiB
    assert pv["spec"]["claimRef"] == {"namespace": "llm", "name": "m-weights"}
    assert pvc["spec"]["volumeName"] == "llm-m-weights"
    assert pv["spec"]["storageClassName"] == "" == pvc["spec"]["storageClassName"]
    assert plan.annotations == {
        "gke-gcsfuse/volumes": "true",
        "gke-gcsfuse/cpu-limit": "0",
        "gke-gcsfuse/memory-limit": "0",
        "gke-gcsfuse/ephemeral-storage-limit": "0",
    }
    assert any("gcs_fuse_csi_driver_config" in r for r in plan.requires)
    for obj in plan.objects:
        assert core_problems(obj) == []
    assert problems_of(service_with(plan, pool)) == []


def test_gke_without_local_ssds_has_no_file_cache() -> None:
    pool = resolved_pool("gke", machine_type="a3-highgpu-8g")
    plan = mc.model_cache_plan("m", "llm", "gke", pool, "gs://models", LLAMA_70B)
    assert plan.model_uri == "pvc://m-weights"
    assert not plan.local_nvme
    assert not [o for o in plan.objects[0]["spec"]["mountOptions"] if o.startswith("file-cache")]


def test_eks_mounts_the_bucket_with_mountpoint_and_a_cache_on_the_instance_store() -> None:
    pool = resolved_pool("eks", machine_type="p5.48xlarge", local_ssds=True)
    plan = mc.model_cache_plan("m", "llm", "eks", pool, "s3://models/llama/70b", LLAMA_70B)
    assert (plan.kind, plan.model_uri, plan.local_nvme) == ("mountpoint-s3", "pvc://m-weights", True)
    pv, pvc = plan.objects
    assert pvc["metadata"] == {"name": "m-weights", "namespace": "llm"}
    assert pv["spec"]["csi"] == {
        "driver": "s3.csi.aws.com",
        "volumeHandle": "llm-m-weights",
        "volumeAttributes": {"bucketName": "models", "cache": "emptyDir", "cacheEmptyDirSizeLimit": "145Gi"},
    }
    assert pv["spec"]["mountOptions"] == ["read-only", "metadata-ttl indefinite", "prefix llama/70b/"]
    assert any("s3:GetObject" in r for r in plan.requires)
    for obj in plan.objects:
        assert core_problems(obj) == []
    assert problems_of(service_with(plan, pool)) == []
    plain = mc.model_cache_plan(
        "m", "llm", "eks", resolved_pool("eks", machine_type="p5.48xlarge"), "s3://b", 1e9
    )
    assert plain.objects[0]["spec"]["csi"]["volumeAttributes"] == {"bucketName": "b"}
    assert not plain.local_nvme


def test_aks_mounts_the_container_with_blobfuse2_and_no_local_cache() -> None:
    pool = resolved_pool("aks", machine_type="Standard_ND96isr_H100_v5")
    uri = "https://acct01.blob.core.windows.net/weights/llama/70b"
    plan = mc.model_cache_plan("m", "llm", "aks", pool, uri, LLAMA_70B)
    assert (plan.kind, plan.model_uri, plan.local_nvme) == ("blob-fuse2", "pvc://m-weights/llama/70b", False)
    pv, _ = plan.objects
    assert pv["spec"]["csi"] == {
        "driver": "blob.csi.azure.com",
        "volumeHandle": "acct01_weights_llm-m",
        "readOnly": True,
        "volumeAttributes": {"storageAccount": "acct01", "containerName": "weights", "protocol": "fuse2"},
    }
    assert "-o allow_other" in pv["spec"]["mountOptions"]
    assert "--cancel-list-on-mount-seconds=10" in pv["spec"]["mountOptions"]
    for obj in plan.objects:
        assert core_problems(obj) == []
    assert problems_of(service_with(plan, pool)) == []


def test_an_existing_claim_is_mounted_as_it_is() -> None:
    pool = resolved_pool("existing", gpu="h100-80gb", gpus_per_node=8)
    plan = mc.model_cache_plan(
        "m", "llm", "existing", pool, "pvc://nfs-models/llama", LLAMA_70B, claim="nfs-models"
    )
    assert (plan.kind, plan.model_uri, plan.objects) == ("pvc", "pvc://nfs-models/llama", ())
    assert plan.deadlines == mc.deadlines(LLAMA_70B, "pvc")


def test_kserves_local_model_cache_on_the_pools_nodes() -> None:
    pool = resolved_pool("existing", gpu="h100-80gb", gpus_per_node=8)
    args = mc.LocalModelCacheArgs(path="/mnt/nvme/models", capacity_gib=1000)
    plan = mc.model_cache_plan(
        "m",
        "llm",
        "existing",
        pool,
        "hf://meta-llama/Llama-3.1-70B-Instruct",
        LLAMA_70B,
        local_model_cache=args,
    )
    assert (plan.kind, plan.model_uri, plan.local_nvme) == (
        "local-model-cache",
        "hf://meta-llama/Llama-3.1-70B-Instruct",
        True,
    )
    group, cache = plan.objects
    assert cache["spec"] == {
        "sourceModelUri": "hf://meta-llama/Llama-3.1-70B-Instruct",
        "modelSize": "145Gi",
        "nodeGroups": ["p-models"],
    }
    pv_spec = group["spec"]["persistentVolumeSpec"]
    assert pv_spec["local"] == {"path": "/mnt/nvme/models"}
    (term,) = pv_spec["nodeAffinity"]["required"]["nodeSelectorTerms"]
    assert (
        {e["key"]: e["values"] for e in term["matchExpressions"]}
        == {k: [v] for k, v in selector_labels(pool).items()}
        != {}
    )
    assert group["spec"]["storageLimit"] == "1000Gi"
    for obj in plan.objects:
        plural = {"LocalModelNodeGroup": "localmodelnodegroups", "LocalModelCache": "localmodelcaches"}[
            obj["kind"]
        ]
        assert crd_problems(obj, *LOCAL_MODEL, f"serving.kserve.io_{plural}.yaml", version="v1alpha1") == []
    with pytest.raises(ValueError, match="cannot hold its weights"):
        mc.model_cache_plan(
            "m",
            "llm",
            "existing",
            pool,
            "hf://x",
            LLAMA_70B,
            local_model_cache=mc.LocalModelCacheArgs("/m", 100),
        )


@pytest.mark.parametrize(
    ("cloud", "raw", "uri", "nvme"),
    [
        (
            "gke",
            {"machine_type": "a3-highgpu-8g", "local_ssds": True},
            "hf://meta-llama/Llama-3.1-70B-Instruct",
            True,
        ),
        ("eks", {"machine_type": "p5.48xlarge"}, "gs://other-cloud/model", False),
        ("aks", {"machine_type": "Standard_ND96isr_H100_v5"}, "s3://other-cloud/model", False),
        (
            "existing",
            {"gpu": "h100-80gb", "gpus_per_node": 8},
            "hf://meta-llama/Llama-3.1-70B-Instruct",
            False,
        ),
    ],
)
def test_anything_else_is_kserves_download(cloud: str, raw: dict[str, Any], uri: str, nvme: bool) -> None:
    pool = resolved_pool(cloud, **raw)
    plan = mc.model_cache_plan("m", "llm", cloud, pool, uri, LLAMA_70B)
    assert (plan.kind, plan.model_uri, plan.objects, plan.annotations, plan.local_nvme) == (
        "download",
        uri,
        (),
        None,
        nvme,
    )
    assert plan.deadlines.download_seconds == 1412  # 141.2 GB at 100 MB/s


def test_deadlines_grow_with_the_weights() -> None:
    small = mc.deadlines(16.06e9, "gcsfuse")  # Llama 3.1 8B in bf16
    assert small.download_seconds == 0
    assert small.load_seconds == math.ceil(16.06e9 / 200e6) + 300 == 381
    assert small.startup_probe == {
        "httpGet": {"path": "/health", "port": 8000},
        "periodSeconds": 10,
        "failureThreshold": 77,
    }
    big = mc.deadlines(LLAMA_70B, "download")
    assert (big.download_seconds, big.load_seconds) == (
        1412,
        442,
    )  # then 141.2 GB from the local disk at 1 GB/s
    assert big.startup_probe["failureThreshold"] == 89
    assert big.create_timeout == f"{math.ceil(2 * (1412 + 442) / 60) + 10}m" == "72m"
    mounted = mc.deadlines(LLAMA_70B, "gcsfuse")
    assert mounted.load_seconds == 706 + 300
    assert mounted.startup_probe["failureThreshold"] == 202  # far past the preset's 60 x 10 s
    tiny = mc.deadlines(1e9, "local-model-cache")
    # the engine start alone (2 x 300 s) already fills KServe's preset budget of 60 x 10 s
    assert tiny.startup_probe["failureThreshold"] == 61
    with pytest.raises(ValueError, match="not one of"):
        mc.deadlines(1e9, "nfs")
    with pytest.raises(ValueError, match="must be positive"):
        mc.deadlines(0, "pvc")
