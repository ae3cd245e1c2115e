"""Where a model's weights come from on each cloud, and how long the model may take to start.

The model server reads its weights through ``spec.model.uri`` of the ``LLMInferenceService``. KServe v0.20.0
(``pkg/controller/v1alpha2/llmisvc/workload_storage.go``) either downloads them first with its storage initializer
(``hf://``, ``s3://``, ``gs://``: an init container into an ``emptyDir``), or mounts a claim read-only
(``pvc://<claim>/<path>``: no download). A bucket mounted as a volume turns every replica's start into a read of
the bucket at the mount's speed, with no copy of the whole model first; so on the clouds the weights stay in the
cloud's object store and are served through its CSI driver, as a static PersistentVolume and claim:

- GKE, ``gs://bucket/path``: the Cloud Storage FUSE CSI driver (``gcsfuse.csi.storage.gke.io``): the pod
  annotation ``gke-gcsfuse/volumes: "true"`` (KServe copies ``spec.annotations`` to the pod template,
  ``workload_single_node.go``), metadata prefetched on mount with unlimited metadata caches (Google's
  "Optimize the Cloud Storage FUSE CSI driver for GKE performance": ``gcsfuseMetadataPrefetchOnMount`` with
  ``metadata-cache:ttl-secs:-1``, ``stat-/type-cache-max-size-mb:-1``, ``file-system:kernel-list-cache-ttl-secs:-1``).
  On a pool with local SSDs as ephemeral storage the file cache is on (``file-cache:max-size-mb:-1`` with parallel
  downloads): the sidecar's cache volume is an ``emptyDir``, so on local NVMe.
- EKS, ``s3://bucket/prefix``: Mountpoint for Amazon S3 CSI driver v2 (``s3.csi.aws.com``, static provisioning
  only), read-only with metadata cached indefinitely (``metadata-ttl indefinite``); on a pool with instance-store
  NVMe (the kubelet's RAID0) a local data cache, ``cache: emptyDir`` with ``cacheEmptyDirSizeLimit`` the weights'
  size (awslabs/mountpoint-s3-csi-driver ``docs/CACHING.md``).
- AKS, ``https://<account>.blob.core.windows.net/<container>/<path>``: the Azure Blob CSI driver with BlobFuse2
  (``blob.csi.azure.com``, ``protocol: fuse2``) and the mount options of Microsoft's BlobFuse StorageClass
  example (``azure-csi-blob-storage-provision``). AKS's NVMe data disks are raw disks that only Azure Container
  Storage serves (``cloud_facts/aks/local_nvme.py``), not a path BlobFuse2 can cache to, so no local cache there.
- An existing cluster: a claim the cluster already has (``claim``, e.g. NFS), or KServe's local model cache
  (``LocalModelNodeGroup`` + ``LocalModelCache``, ``serving.kserve.io/v1alpha1``) where the cluster runs KServe's
  ``kserve-localmodel`` controller: it copies the model to each node of the group (a local path, on NVMe where the
  nodes have it) and KServe's ``LLMInferenceService`` defaulter labels a service whose ``model.uri`` is the
  cache's ``sourceModelUri`` so it mounts the node's copy (``pkg/webhook/admission/llminferenceservice/
  defaulter.go``, ``workload_storage.go``).
- Anything else (``hf://``, a bucket of another cloud): KServe's download. Where the pool's nodes put their
  ephemeral storage on local NVMe (GKE local SSDs, EKS instance store) the download's ``emptyDir`` is on it.

Deadlines (``deadlines``): large models time out under the defaults (kserve/kserve#3795). KServe v0.20.0's
vLLM preset gives the server ``startupProbe`` 60 x 10 s = 600 s (``kserve-config-llm-template``); the library
derives the budget from the weights' size:

    download = weights / DOWNLOAD_BYTES_PER_S                     (KServe's download only)
    load     = weights / read rate + STARTUP_OVERHEAD_S            (read rate: the mount's, or the local disk's)
    startupProbe.failureThreshold = max(60, ceil(SAFETY x load / 10))
    create timeout (Pulumi) = ceil(SAFETY x (download + load) / 60) minutes + 10

The rates are the library's conservative assumptions, not measurements: 100 MB/s for KServe's single-stream
download, 200 MB/s for a first read through a bucket mount or a network claim, 1 GB/s from a local disk into GPU
memory; ``STARTUP_OVERHEAD_S`` (300 s) covers vLLM's engine start (profiling, ``torch.compile`` and CUDA graph
capture). ``SAFETY`` (2) absorbs a slower bucket or a busy node. The download runs in an init container no probe
watches; the Deployment's ``progressDeadlineSeconds`` (600 s default) only marks the rollout as not progressing,
and the ``LLMInferenceService`` has no field for it, so the create timeout is what waits for it.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlparse

from gpu_platform.cloud_facts import profile_of
from gpu_platform.pools import GpuPool
from gpu_platform.scheduling import selector_labels

GB = 1e9
GIB = 2**30
DOWNLOAD_BYTES_PER_S = 100e6
"""KServe's storage initializer, one stream from the hub or a bucket (the library's assumption)."""
MOUNT_BYTES_PER_S = 200e6
"""A first read through a bucket mount or a network claim (the library's assumption)."""
LOCAL_BYTES_PER_S = 1e9
"""From a local disk into GPU memory (the library's assumption)."""
STARTUP_OVERHEAD_S = 300
"""vLLM's engine start beyond reading the weights: memory profiling, ``torch.compile`` and CUDA graph capture."""
SAFETY = 2
PROBE_PERIOD_S = 10
PRESET_FAILURE_THRESHOLD = 60
"""KServe v0.20.0 ``kserve-config-llm-template``: ``startupProbe`` ``failureThreshold: 60``, ``periodSeconds: 10``."""
CREATE_MARGIN_MIN = 10
"""Minutes on top of the start for scheduling, a GPU node coming up and the image pull."""

GCSFUSE_DRIVER = "gcsfuse.csi.storage.gke.io"
MOUNTPOINT_DRIVER = "s3.csi.aws.com"
BLOB_DRIVER = "blob.csi.azure.com"
GCSFUSE_MOUNT_OPTIONS = (
    "implicit-dirs",
    "metadata-cache:negative-ttl-secs:0",
    "metadata-cache:ttl-secs:-1",
    "metadata-cache:stat-cache-max-size-mb:-1",
    "metadata-cache:type-cache-max-size-mb:-1",
    "file-system:kernel-list-cache-ttl-secs:-1",
)
GCSFUSE_FILE_CACHE_OPTIONS = (
    "file-cache:max-size-mb:-1",
    "file-cache:cache-file-for-range-read:true",
    "file-cache:enable-parallel-downloads:true",
)
GCSFUSE_POD_ANNOTATIONS = {
    "gke-gcsfuse/volumes": "true",
    # the sidecar's limits unset ("0"): reading tens of GB with a file cache outgrows the defaults
    "gke-gcsfuse/cpu-limit": "0",
    "gke-gcsfuse/memory-limit": "0",
    "gke-gcsfuse/ephemeral-storage-limit": "0",
}
MOUNTPOINT_MOUNT_OPTIONS = ("read-only", "metadata-ttl indefinite")
BLOBFUSE_MOUNT_OPTIONS = (
    "-o allow_other",
    "--file-cache-timeout-in-seconds=120",
    "--use-attr-cache=true",
    "--cancel-list-on-mount-seconds=10",
    "-o attr_timeout=120",
    "-o entry_timeout=120",
    "-o negative_timeout=120",
)
LOCAL_MODEL_API = "serving.kserve.io/v1alpha1"

KINDS = ("gcsfuse", "mountpoint-s3", "blob-fuse2", "pvc", "local-model-cache", "download")


@dataclass(frozen=True)
class Deadlines:
    """How long a replica may take to start, from its weights' size."""

    download_seconds: int
    load_seconds: int
    startup_probe: dict[str, Any]
    """Merged into the ``main`` container (KServe merges the template over its preset by container name)."""
    create_timeout: str
    """Pulumi ``customTimeouts.create`` for the ``LLMInferenceService`` (``"45m"``)."""


@dataclass(frozen=True)
class LocalModelCacheArgs:
    """KServe's local model cache on an existing cluster: the node-local directory the weights are copied to
    (on NVMe where the nodes have it) and its size."""

    path: str
    capacity_gib: int
    node_group: str | None = None
    """The ``LocalModelNodeGroup``'s name; default ``<pool>-models``."""


@dataclass(frozen=True)
class ModelCachePlan:
    """What one model needs to read its weights fast, and how long it may take to start."""

    kind: str
    """One of ``KINDS``."""
    model_uri: str
    """``spec.model.uri`` of the ``LLMInferenceService``."""
    deadlines: Deadlines
    objects: tuple[dict[str, Any], ...] = ()
    """Created before the ``LLMInferenceService``: PersistentVolume and claim, or the local cache's objects."""
    annotations: dict[str, str] | None = None
    """Merged into the service's ``spec.annotations`` (the pod's)."""
    local_nvme: bool = False
    """The weights (or their cache) are read from the node's local NVMe."""
    requires: tuple[str, ...] = ()
    """What the cluster must offer that this plan does not create."""


def _gib(n_bytes: float) -> int:
    """Whole GiB holding ``n_bytes`` with 10% room (a volume's nominal size)."""
    return max(1, math.ceil(n_bytes * 1.1 / GIB))


def deadlines(weights_bytes: float, kind: str) -> Deadlines:
    """The start budget of a replica whose weights are ``weights_bytes``, read the way ``kind`` reads them: from
    a local disk after KServe's download or from the local model cache, else through the mount or claim (a file
    cache on local NVMe speeds up later reads, not the first)."""
    if kind not in KINDS:
        raise ValueError(f"model cache kind {kind!r} is not one of {', '.join(KINDS)}")
    if weights_bytes <= 0:
        raise ValueError(f"weights of {weights_bytes} bytes: must be positive")
    download = math.ceil(weights_bytes / DOWNLOAD_BYTES_PER_S) if kind == "download" else 0
    rate = LOCAL_BYTES_PER_S if kind in ("download", "local-model-cache") else MOUNT_BYTES_PER_S
    load = math.ceil(weights_bytes / rate) + STARTUP_OVERHEAD_S
    threshold = max(PRESET_FAILURE_THRESHOLD, math.ceil(SAFETY * load / PROBE_PERIOD_S))
    minutes = math.ceil(SAFETY * (download + load) / 60) + CREATE_MARGIN_MIN
    return Deadlines(
        download_seconds=download,
        load_seconds=load,
        startup_probe={
            "httpGet": {"path": "/health", "port": 8000},
            "periodSeconds": PROBE_PERIOD_S,
            "failureThreshold": threshold,
        },
        create_timeout=f"{minutes}m",
    )


def _volume_pair(
    name: str,
    namespace: str,
    csi: dict[str, Any],
    size_gib: int,
    mount_options: tuple[str, ...],
) -> tuple[dict[str, Any], dict[str, Any]]:
    """A static, read-only PersistentVolume bound to its claim (``storageClassName: ""`` on both, ``claimRef``)."""
    pv_name = f"{namespace}-{name}-weights"
    claim = f"{name}-weights"
    pv = {
        "apiVersion": "v1",
        "kind": "PersistentVolume",
        "metadata": {"name": pv_name},
        "spec": {
            "accessModes": ["ReadOnlyMany"],
            "capacity": {"storage": f"{size_gib}Gi"},
            "persistentVolumeReclaimPolicy": "Retain",
            "storageClassName": "",
            "mountOptions": list(mount_options),
            "claimRef": {"namespace": namespace, "name": claim},
            "csi": csi,
        },
    }
    pvc = {
        "apiVersion": "v1",
        "kind": "PersistentVolumeClaim",
        "metadata": {"name": claim, "namespace": namespace},
        "spec": {
            "accessModes": ["ReadOnlyMany"],
            "storageClassName": "",
            "volumeName": pv_name,
            "resources": {"requests": {"storage": f"{size_gib}Gi"}},
        },
    }
    return pv, pvc


def _bucket_uri(uri: str) -> tuple[str, str, str]:
    """``(scheme, bucket, path)`` of ``gs://``/``s3://`` URIs; ``("azure", "<account>/<container>", path)`` of a
    Blob URL; ``(scheme, "", "")`` otherwise."""
    parsed = urlparse(uri)
    if parsed.scheme in ("gs", "s3") and parsed.netloc:
        return parsed.scheme, parsed.netloc, parsed.path.strip("/")
    blob = re.fullmatch(r"https://([a-z0-9]{3,24})\.blob\.core\.windows\.net/([^/]+)/?(.*)", uri)
    if blob:
        return "azure", f"{blob.group(1)}/{blob.group(2)}", blob.group(3).strip("/")
    return parsed.scheme, "", ""


def _pvc_uri(claim: str, path: str) -> str:
    return f"pvc://{claim}/{path}" if path else f"pvc://{claim}"


def model_cache_plan(
    name: str,
    namespace: str,
    cloud: str,
    pool: GpuPool,
    uri: str,
    weights_bytes: float,
    *,
    claim: str | None = None,
    local_model_cache: LocalModelCacheArgs | None = None,
) -> ModelCachePlan:
    """How ``LLMInferenceService`` ``name`` in ``namespace``, on ``pool`` of ``cloud``, reads the weights at
    ``uri`` (``weights_bytes`` of them, ``llm_sizing.weight_bytes``): a bucket mount of the cloud, a claim the
    cluster has (``claim``: ``uri`` ``pvc://<claim>/<path>`` names a path in it, any other ``uri`` its root), KServe's
    local model cache (``local_model_cache``) or KServe's download."""
    if claim is not None:
        path = uri.removeprefix(f"pvc://{claim}").strip("/") if uri.startswith(f"pvc://{claim}") else ""
        return ModelCachePlan("pvc", _pvc_uri(claim, path), deadlines(weights_bytes, "pvc"))
    if local_model_cache is not None:
        return _local_model_cache(name, pool, uri, weights_bytes, local_model_cache)
    scheme, bucket, path = _bucket_uri(uri)
    profile = profile_of(cloud)
    nvme = pool.local_ssds and profile.local_nvme_ephemeral_storage
    mount = profile.model_bucket
    if mount is not None and scheme == mount.scheme:
        return _BUCKET_MOUNTS[mount.mount](name, namespace, bucket, path, weights_bytes, nvme)
    return ModelCachePlan("download", uri, deadlines(weights_bytes, "download"), local_nvme=nvme)


def _gcsfuse(
    name: str, namespace: str, bucket: str, path: str, weights_bytes: float, nvme: bool
) -> ModelCachePlan:
    """``gs://<bucket>/<path>`` through the Cloud Storage FUSE CSI driver; ``nvme``: its file cache on local NVMe."""
    options = GCSFUSE_MOUNT_OPTIONS + (GCSFUSE_FILE_CACHE_OPTIONS if nvme else ())
    csi = {
        "driver": GCSFUSE_DRIVER,
        "volumeHandle": bucket,
        "readOnly": True,
        "volumeAttributes": {"gcsfuseMetadataPrefetchOnMount": "true"},
    }
    pv, pvc = _volume_pair(name, namespace, csi, _gib(weights_bytes), options)
    return ModelCachePlan(
        "gcsfuse",
        _pvc_uri(pvc["metadata"]["name"], path),
        deadlines(weights_bytes, "gcsfuse"),
        (pv, pvc),
        annotations=dict(GCSFUSE_POD_ANNOTATIONS),
        local_nvme=nvme,
        requires=(
            "the cluster's Cloud Storage FUSE CSI driver add-on (addons_config.gcs_fuse_csi_driver_config) and "
            "Workload Identity",
            f"roles/storage.objectViewer on gs://{bucket} for the model's Kubernetes service account "
            f"({name}-kserve, KServe's)",
        ),
    )


def _mountpoint_s3(
    name: str, namespace: str, bucket: str, path: str, weights_bytes: float, nvme: bool
) -> ModelCachePlan:
    """``s3://<bucket>/<path>`` through Mountpoint for Amazon S3 CSI driver v2; ``nvme``: its data cache in an
    ``emptyDir`` on local NVMe."""
    size = _gib(weights_bytes)
    attributes = {"bucketName": bucket}
    if nvme:
        attributes |= {"cache": "emptyDir", "cacheEmptyDirSizeLimit": f"{size}Gi"}
    csi = {
        "driver": MOUNTPOINT_DRIVER,
        "volumeHandle": f"{namespace}-{name}-weights",
        "volumeAttributes": attributes,
    }
    options = MOUNTPOINT_MOUNT_OPTIONS + ((f"prefix {path}/",) if path else ())
    pv, pvc = _volume_pair(name, namespace, csi, size, options)
    return ModelCachePlan(
        "mountpoint-s3",
        f"pvc://{pvc['metadata']['name']}",
        deadlines(weights_bytes, "mountpoint-s3"),
        (pv, pvc),
        local_nvme=nvme,
        requires=(
            "the Mountpoint for Amazon S3 CSI driver v2 (EKS add-on aws-mountpoint-s3-csi-driver) with read "
            f"access to s3://{bucket} (s3:ListBucket, s3:GetObject) through Pod Identity or IRSA",
        ),
    )


def _blob_fuse2(
    name: str, namespace: str, bucket: str, path: str, weights_bytes: float, nvme: bool
) -> ModelCachePlan:
    """``<account>/<container>`` (``bucket``) through the Azure Blob CSI driver with BlobFuse2 (no local cache:
    ``nvme`` is never set where this driver is the cloud's)."""
    account, container = bucket.split("/")
    csi = {
        "driver": BLOB_DRIVER,
        "volumeHandle": f"{account}_{container}_{namespace}-{name}",
        "readOnly": True,
        "volumeAttributes": {"storageAccount": account, "containerName": container, "protocol": "fuse2"},
    }
    pv, pvc = _volume_pair(name, namespace, csi, _gib(weights_bytes), BLOBFUSE_MOUNT_OPTIONS)
    return ModelCachePlan(
        "blob-fuse2",
        _pvc_uri(pvc["metadata"]["name"], path),
        deadlines(weights_bytes, "blob-fuse2"),
        (pv, pvc),
        requires=(
            "the cluster's Blob CSI driver (storage_profile.blob_csi_driver.enabled)",
            f"read access to the container {container} of {account} for the driver (Storage Blob Data Reader "
            "for the kubelet identity, or an account key Secret)",
        ),
    )


_BUCKET_MOUNTS: dict[str, Callable[[str, str, str, str, float, bool], ModelCachePlan]] = {
    "gcsfuse": _gcsfuse,
    "mountpoint-s3": _mountpoint_s3,
    "blob-fuse2": _blob_fuse2,
}
"""The builder of each ``ModelBucket.mount`` a cloud's profile names."""


def _local_model_cache(
    name: str, pool: GpuPool, uri: str, weights_bytes: float, args: LocalModelCacheArgs
) -> ModelCachePlan:
    """KServe's local model cache on ``pool``'s nodes: a node group with a local PersistentVolume at ``args.path``
    and the cache of ``uri`` on it."""
    size = _gib(weights_bytes)
    if args.capacity_gib < size:
        raise ValueError(
            f"model {name!r}: local model cache of {args.capacity_gib} GiB cannot hold its weights ({size} GiB)"
        )
    group = args.node_group or f"{pool.name}-models"
    cache = {
        "apiVersion": LOCAL_MODEL_API,
        "kind": "LocalModelCache",
        "metadata": {"name": name},
        "spec": {"sourceModelUri": uri, "modelSize": f"{size}Gi", "nodeGroups": [group]},
    }
    return ModelCachePlan(
        "local-model-cache",
        uri,
        deadlines(weights_bytes, "local-model-cache"),
        (_local_model_node_group(group, pool, args), cache),
        local_nvme=True,
        requires=(
            "KServe's local model cache controller and node agent (kserve-localmodel-resources, "
            "localModel.enabled) and its CRDs (kserve-localmodel-crd)",
        ),
    )


def _local_model_node_group(group: str, pool: GpuPool, args: LocalModelCacheArgs) -> dict[str, Any]:
    """The LocalModelNodeGroup ``group``: a local PersistentVolume of ``args.capacity_gib`` at ``args.path`` on
    ``pool``'s nodes, and the claim on it."""
    selector = selector_labels(pool)
    return {
        "apiVersion": LOCAL_MODEL_API,
        "kind": "LocalModelNodeGroup",
        "metadata": {"name": group},
        "spec": {
            "storageLimit": f"{args.capacity_gib}Gi",
            "persistentVolumeSpec": {
                "accessModes": ["ReadWriteOnce"],
                "capacity": {"storage": f"{args.capacity_gib}Gi"},
                "persistentVolumeReclaimPolicy": "Delete",
                "storageClassName": "",
                "volumeMode": "Filesystem",
                "local": {"path": args.path},
                "nodeAffinity": {
                    "required": {
                        "nodeSelectorTerms": [
                            {
                                "matchExpressions": [
                                    {"key": k, "operator": "In", "values": [v]}
                                    for k, v in sorted(selector.items())
                                ]
                            }
                        ]
                    }
                },
            },
            "persistentVolumeClaimSpec": {
                "accessModes": ["ReadWriteOnce"],
                "storageClassName": "",
                "volumeMode": "Filesystem",
                "resources": {"requests": {"storage": f"{args.capacity_gib}Gi"}},
            },
        },
    }
