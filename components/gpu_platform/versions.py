"""Every chart, repository and image version the library installs: the one place to bump them.

Each constant is cited by the component that uses it and asserted by a test, so prose and
code cannot drift apart.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ChartPin:
    """A Helm chart at a pinned version from a pinned repository."""

    chart: str
    version: str
    repo: str | None
    """Classic Helm repository URL; ``None`` when ``chart`` is a full ``oci://`` reference."""
    namespace: str


GPU_OPERATOR = ChartPin(
    chart="gpu-operator",
    version="v26.7.0",
    repo="https://helm.ngc.nvidia.com/nvidia",
    namespace="gpu-operator",
)
KUEUE = ChartPin(
    chart="oci://registry.k8s.io/kueue/charts/kueue",
    version="0.19.2",
    repo=None,
    namespace="kueue-system",
)
CERT_MANAGER = ChartPin(
    chart="cert-manager",
    version="v1.21.1",
    repo="https://charts.jetstack.io",
    namespace="cert-manager",
)
KSERVE_CRD = ChartPin(
    chart="oci://ghcr.io/kserve/charts/kserve-crd",
    version="v0.20.0",
    repo=None,
    namespace="kserve",
)
KSERVE_RESOURCES = ChartPin(
    chart="oci://ghcr.io/kserve/charts/kserve-resources",
    version="v0.20.0",
    repo=None,
    namespace="kserve",
)

# Kueue's own image at the chart's release: the chart's values.yaml at the tag still points at
# the staging image (see shared/upstream/SOURCES.md), so the library pins the release image.
KUEUE_IMAGE_REPOSITORY = "registry.k8s.io/kueue/kueue"
KUEUE_IMAGE_TAG = "v0.19.2"


@dataclass(frozen=True)
class UpstreamFile:
    """A manifest shipped with the package byte for byte as upstream has it at a pinned commit."""

    repo: str
    commit: str
    path: str
    file: str
    """Name under ``gpu_platform/data/``."""
    sha256: str


# Google's COS driver installer (NVIDIA's GKE path A): GoogleCloudPlatform/container-engine-accelerators
# ``nvidia-driver-installer/cos/daemonset-preloaded.yaml``. The installer image is preloaded on COS GPU
# nodes (pull policy Never); partition-gpus applies GKE's gpu_partition_size. The manifest is used as it is
# (``cloud_facts.gke.driver_installer``); the image constants below are what it pins, and a test
# checks that they agree.
GKE_COS_INSTALLER = UpstreamFile(
    repo="GoogleCloudPlatform/container-engine-accelerators",
    commit="992db81257553607f1477945f1b3219632991829",
    path="nvidia-driver-installer/cos/daemonset-preloaded.yaml",
    file="gke-cos-daemonset-preloaded.yaml",
    sha256="41c303c5f1c1279eae47f5e183591b12e2cc4176523ad5764ab1081c1b9d27ee",
)
GKE_COS_A4X_INSTALLER = UpstreamFile(
    repo="GoogleCloudPlatform/container-engine-accelerators",
    commit="992db81257553607f1477945f1b3219632991829",
    path="nvidia-driver-installer/cos/daemonset-preloaded-latest-a4x.yaml",
    file="gke-cos-daemonset-preloaded-latest-a4x.yaml",
    sha256="f6ca0f059cbb17adf8b3268ff3ff29d26f80dce717a9edced18afe7aa3bd5838",
)
"""Google's COS installer for A4X (upstream 2dd8fc9b, 2025-03): the same preloaded installer and pause images,
``--version=latest``, no partition container, and a node affinity of its own on the A4X machine types."""
GKE_COS_DRIVER_INSTALLER_IMAGE = "cos-nvidia-installer:fixed"
GKE_PARTITION_GPU_IMAGE = "gcr.io/gke-release/nvidia-partition-gpu@sha256:de12f85ebfb4fb6c1893cd30c23aab662a72fa0448f97ef74fccb82d7522ef17"
"""Multi-arch image with H200 support (upstream 4da5c076, 2025-04)."""
GKE_DRIVER_INSTALLER_PAUSE_IMAGE = (
    "gke.gcr.io/pause:3.8@sha256:880e63f94b145e46f1b1082bb71b85e21f16b99b180b9996407d61240ceb9830"
)

# GKE GPUDirect: Google's NCCL plugin installers and NRI device injector, as GoogleCloudPlatform/
# container-engine-accelerators pins them at GPUDIRECT_COMMIT (``gpudirect-tcpxo/nccl-tcpxo-installer.yaml``,
# ``gpudirect-tcpx/nccl-tcpx-installer.yaml``, ``gpudirect-rdma/nccl-rdma-installer.yaml``,
# ``nri_device_injector/nri-device-injector.yaml``; vendored under tests/upstream/gke-gpudirect/). The TCPXO
# daemon goes with its installer: ``gpudirect-tcpxo/README.md`` release of Jan 9, 2026 pairs plugin v1.0.15
# with tcpgpudmarxd v1.0.21; the TCPX daemon v2.0.12 is the one ``gpudirect-tcpx/nccl-test-latest.yaml`` runs
# with plugin v3.1.9. The gIB image also carries the NCCL environment script pods source.
GPUDIRECT_COMMIT = "992db81257553607f1477945f1b3219632991829"
NCCL_TCPXO_INSTALLER_IMAGE = (
    "us-docker.pkg.dev/gce-ai-infra/gpudirect-tcpxo/nccl-plugin-gpudirecttcpx-dev:v1.0.15"
)
TCPXO_DAEMON_IMAGE = "us-docker.pkg.dev/gce-ai-infra/gpudirect-tcpxo/tcpgpudmarxd-dev:v1.0.21"
NCCL_TCPX_INSTALLER_IMAGE = (
    "us-docker.pkg.dev/gce-ai-infra/gpudirect-tcpx/nccl-plugin-gpudirecttcpx-dev:v3.1.9"
)
TCPX_DAEMON_IMAGE = "us-docker.pkg.dev/gce-ai-infra/gpudirect-tcpx/tcpgpudmarxd-dev:v2.0.12"
NCCL_GIB_INSTALLER_IMAGE = "us-docker.pkg.dev/gce-ai-infra/gpudirect-gib/nccl-plugin-gib:v1.1.1"
NCCL_GIB_ARM64_INSTALLER_IMAGE = "us-docker.pkg.dev/gce-ai-infra/gpudirect-gib/nccl-plugin-gib-arm64:v1.1.0"
"""The gIB build for Arm nodes (A4X), as ``gpudirect-rdma/nccl-rdma-installer-a4x.yaml`` pins it at GPUDIRECT_COMMIT
(Cluster Toolkit ``examples/gke-a4x`` at v1.91.0 runs the same)."""
NCCL_GIB_INSTALLER_IMAGES = {"amd64": NCCL_GIB_INSTALLER_IMAGE, "arm64": NCCL_GIB_ARM64_INSTALLER_IMAGE}
"""Google's gIB installer per node architecture: what RDMA pools of each architecture run."""
NRI_DEVICE_INJECTOR_IMAGE = "gcr.io/gke-release/nri-device-injector@sha256:6e79483d52abdc28454bf186320b10a56b0f117a10e8d65d5c74dbb821a76970"
GPUDIRECT_HOST_SHELL_IMAGE = "ubuntu:24.04"
"""Runs ``nsenter`` into the host for the TCPXO pre-installation step (upstream names ``ubuntu`` unpinned;
the step runs host binaries only, so any image with nsenter serves)."""

# KServe's ClusterServingRuntimes (kserve-huggingfaceserver, ...) ship in their own chart since v0.17;
# operators.kserve installs it after kserve-resources, whose webhooks validate them.
KSERVE_RUNTIME_CONFIGS = ChartPin(
    chart="oci://ghcr.io/kserve/charts/kserve-runtime-configs",
    version="v0.20.0",
    repo=None,
    namespace="kserve",
)
# KServe's LLMInferenceService controller (kserve/kserve charts/kserve-llmisvc-crd and kserve-llmisvc-resources at
# v0.20.0): its CRDs, then the controller beside kserve-resources (``createSharedResources: false``); its presets
# are kserve-runtime-configs' ``llmisvcConfigs`` (addons.serving).
KSERVE_LLMISVC_CRD = ChartPin(
    chart="oci://ghcr.io/kserve/charts/kserve-llmisvc-crd",
    version="v0.20.0",
    repo=None,
    namespace="kserve",
)
KSERVE_LLMISVC_RESOURCES = ChartPin(
    chart="oci://ghcr.io/kserve/charts/kserve-llmisvc-resources",
    version="v0.20.0",
    repo=None,
    namespace="kserve",
)

# HAMi (Project-HAMi/HAMi ``charts/hami`` at v2.10.0): memory-isolated GPU fractions on isolated pools. Its
# scheduler is a kube-scheduler with HAMi's extender; the chart defaults that image's tag to the cluster's
# version, so the library pins one per Kubernetes minor (a scheduler must not be newer than the API server).
HAMI = ChartPin(
    chart="hami",
    version="2.10.0",
    repo="https://project-hami.github.io/HAMi",
    namespace="hami-system",
)
HAMI_IMAGE_TAG = "v2.10.0"
"""The chart's ``global.imageTag`` at 2.10.0: HAMi's scheduler extender, device plugin and monitor."""
HAMI_KUBE_SCHEDULER_IMAGE_REPOSITORY = "registry.k8s.io/kube-scheduler"
HAMI_KUBE_SCHEDULER_IMAGE_TAGS: dict[str, str] = {
    minor: f"v{minor}.0" for minor in ("1.30", "1.31", "1.32", "1.33", "1.34", "1.35")
}
"""Kubernetes minor -> the kube-scheduler HAMi's scheduler Deployment runs (each minor's first release; spelled
as a comprehension so Renovate's cluster-autoscaler table pattern does not read it as autoscaler tags)."""
HAMI_KUBE_SCHEDULER_DEFAULT_MINOR = "1.33"
"""Used when the stack leaves the cluster's version unsaid: the oldest minor every supported cloud still runs."""

# Kubernetes Cluster Autoscaler (EKS managed node groups): the chart from the project's own repository,
# and the image whose minor matches the cluster's (the chart README: mismatched minors misbehave in subtle
# ways). Each tag is the newest patch of its minor in kubernetes/autoscaler (tags cluster-autoscaler-1.3x.y).
CLUSTER_AUTOSCALER = ChartPin(
    chart="cluster-autoscaler",
    version="9.59.0",
    repo="https://kubernetes.github.io/autoscaler",
    namespace="kube-system",
)
CLUSTER_AUTOSCALER_IMAGE_REPOSITORY = "registry.k8s.io/autoscaling/cluster-autoscaler"
CLUSTER_AUTOSCALER_IMAGE_TAGS: dict[str, str] = {
    "1.29": "v1.29.5",
    "1.30": "v1.30.7",
    "1.31": "v1.31.5",
    "1.32": "v1.32.7",
    "1.33": "v1.33.6",
    "1.34": "v1.34.5",
    "1.35": "v1.35.2",
    "1.36": "v1.36.1",
}
"""Kubernetes minor -> autoscaler image tag: every minor EKS supports in standard or extended support."""
CLUSTER_AUTOSCALER_DEFAULT_MINOR = "1.35"
"""The chart's own app minor (9.59.0 ships v1.35.0): used when the stack leaves the cluster version to EKS."""

# AWS EFA Kubernetes device plugin (aws/eks-charts ``stable/aws-efa-k8s-device-plugin``; the chart version
# carries a ``v``). It advertises ``vpc.amazonaws.com/efa`` on EFA nodes; the image is the chart's own.
AWS_EFA_DEVICE_PLUGIN = ChartPin(
    chart="aws-efa-k8s-device-plugin",
    version="v0.5.30",
    repo="https://aws.github.io/eks-charts",
    namespace="kube-system",
)
AWS_EFA_DEVICE_PLUGIN_IMAGE_REPOSITORY = (
    "602401143452.dkr.ecr.us-west-2.amazonaws.com/eks/aws-efa-k8s-device-plugin"
)
AWS_EFA_DEVICE_PLUGIN_IMAGE_TAG = "v0.5.20"
# NVIDIA Network Operator (Mellanox/network-operator ``deployment/network-operator``, published at NGC's Helm
# repository). On AKS ND-series pools it runs the DOCA (MOFED) driver and the RDMA shared device plugin that
# makes the InfiniBand HCAs requestable (Azure/aks-rdma-infiniband configs/nicclusterpolicy). The component
# images a NicClusterPolicy names are the ones released with the chart (hack/release.yaml at v26.4.1).
NETWORK_OPERATOR = ChartPin(
    chart="network-operator",
    version="26.4.1",
    repo="https://helm.ngc.nvidia.com/nvidia",
    namespace="nvidia-network-operator",
)
MELLANOX_REGISTRY = "nvcr.io/nvidia/mellanox"
DOCA_DRIVER_IMAGE = "doca-driver"
DOCA_DRIVER_VERSION = "doca3.4.1-26.04-1.1.0.0-1"
"""The operator appends ``-<os><version>-<arch>`` (``-ubuntu22.04-amd64``) to pick the node's build."""
RDMA_SHARED_DEVICE_PLUGIN_IMAGE = "k8s-rdma-shared-dev-plugin"
RDMA_SHARED_DEVICE_PLUGIN_VERSION = "network-operator-v26.4.1"
EKS_POD_IDENTITY_AGENT_ADDON = "eks-pod-identity-agent"
"""EKS add-on that serves Pod Identity credentials; its version is left to EKS (the cluster's default)."""
EKS_NODE_MONITORING_AGENT_ADDON = "eks-node-monitoring-agent"
"""EKS add-on that reports node health (GPU Xid and DCGM checks among them) as node conditions and events,
which EKS node auto repair acts on; its version is left to EKS (the cluster's default)."""

# --- Workload layer: the controllers the queues promise, and Volcano ------------------------
# Versions, repositories and namespaces: tests/upstream/NEW_COMPONENTS_NOTES.md sections 0-5 (each chart is
# vendored under tests/upstream/charts/<chart>-<version>/ and rendered offline by the tests).
JOBSET = ChartPin(
    chart="oci://registry.k8s.io/jobset/charts/jobset",
    version="0.12.0",
    repo=None,
    namespace="jobset-system",
)
LEADER_WORKER_SET = ChartPin(
    chart="oci://registry.k8s.io/lws/charts/lws",
    version="0.10.0",
    repo=None,
    namespace="lws-system",
    # Fixed: the chart's CRD (crds/, not templated) hard-codes its conversion webhook in lws-system.
)
KUBEFLOW_TRAINER = ChartPin(
    chart="oci://ghcr.io/kubeflow/charts/kubeflow-trainer",
    version="2.3.0",
    repo=None,
    namespace="kubeflow-system",
)
KUBERAY_OPERATOR = ChartPin(
    chart="kuberay-operator",
    version="1.7.0",
    repo="https://ray-project.github.io/kuberay-helm/",
    namespace="kuberay-system",
)
VOLCANO = ChartPin(
    chart="volcano",
    version="1.15.1",
    repo="https://volcano-sh.github.io/helm-charts",
    namespace="volcano-system",
)

# The JobSet and LWS charts in their repositories carry a development image (``main``, pull policy Always);
# their release scripts stamp the release image into the published chart. The library pins the release
# image in the values, so what runs is the same whether the chart came from the registry or a checkout.
JOBSET_IMAGE_REPOSITORY = "registry.k8s.io/jobset/jobset"
JOBSET_IMAGE_TAG = "v0.12.0"
LWS_IMAGE_REPOSITORY = "registry.k8s.io/lws/lws"
LWS_IMAGE_TAG = "v0.10.0"
TRAINER_IMAGE_TAG = "v2.3.0"
"""Trainer's own images (controller, DeepSpeed runtime): the chart defaults them to ``v<chart version>``."""

# Kubeflow Trainer's built-in ClusterTrainingRuntimes, created by the library (not by the chart's
# post-install Job, which needs egress to the Alpine package mirrors): kubeflow/trainer@v2.3.0
# manifests/base/runtimes, shipped byte for byte; ``manifests/overlays/runtimes`` then tags the DeepSpeed
# image ``v2.3.0`` (``TRAINER_IMAGE_TAG``), which ``addons.workloads.plan`` applies.
TRAINER_TORCH_RUNTIME = UpstreamFile(
    repo="kubeflow/trainer",
    commit="658725bdae5c7e3a0854d93ac6ff492e109a22ab",
    path="manifests/base/runtimes/torch_distributed.yaml",
    file="trainer-torch-distributed.yaml",
    sha256="c4520df54615d481831d402e644dbeaf77a7a521eae87b2e80fd5f789aac5df2",
)
TRAINER_DEEPSPEED_RUNTIME = UpstreamFile(
    repo="kubeflow/trainer",
    commit="658725bdae5c7e3a0854d93ac6ff492e109a22ab",
    path="manifests/base/runtimes/deepspeed_distributed.yaml",
    file="trainer-deepspeed-distributed.yaml",
    sha256="f443d4c4b2c0e6a8acdae5381ff2563696b958929217c088e101a7f27bc36827",
)
# The startup-taint remover (addons/gpu_operator/startup_taint.py) runs bash, jq and kubectl: the Kubernetes project's own
# kubectl image, which carries all three since kubernetes/kubernetes#119592 (debian-base). kubectl's skew
# policy allows one minor either side of the API server; the remover only reads a Node and removes a taint.
KUBECTL_IMAGE = "registry.k8s.io/kubectl:v1.34.1"
# `gpu-platform verify --smoke` runs NVIDIA's CUDA vectorAdd sample on one GPU of each pool: the tag NVIDIA's own
# examples run (kubernetes-sigs/dra-driver-nvidia-gpu demo/specs/extended-resources/gpu-full.yaml).
CUDA_SAMPLE_IMAGE = "nvcr.io/nvidia/k8s/cuda-sample:vectoradd-cuda12.5.0"
# `gpu-platform verify --smoke` runs an NCCL all-reduce across two nodes of each multi-node pool with torchrun in
# NVIDIA's NGC PyTorch container: PyTorch with NCCL, nothing to build and no MPI or SSH between the pods. Release
# 25.01 is built on CUDA 12.8.0: driver R570, or on data-center GPUs R470/R525/R535/R545 through the image's CUDA
# forward-compatibility package (NVIDIA Deep Learning Frameworks, "PyTorch Release 25.01" release notes,
# docs.nvidia.com/deeplearning/frameworks/pytorch-release-notes/rel-25-01.html).
NCCL_SMOKE_IMAGE = "nvcr.io/nvidia/pytorch:25.01-py3"
# --- DRA and node auto-provisioning --------------------------------------------------------
# NVIDIA DRA driver for GPUs, standalone next to the GPU Operator's ClusterPolicy (not the operator-managed
# GPUCluster path, which runs v0.5.0, is a technology preview and excludes ClusterPolicy cluster-wide; see
# addons/dra/plan.py). Chart and image from kubernetes-sigs/dra-driver-nvidia-gpu@v0.4.1 (chart appVersion 0.4.1,
# image tag "v" + appVersion), namespace from its docs/install.md.
DRA_DRIVER = ChartPin(
    chart="oci://registry.k8s.io/dra-driver-nvidia/charts/dra-driver-nvidia-gpu",
    version="0.4.1",
    repo=None,
    namespace="dra-driver-nvidia-gpu",
)
DRA_DRIVER_IMAGE = "registry.k8s.io/dra-driver-nvidia/dra-driver-nvidia-gpu:v0.4.1"
# Karpenter (AWS) v1.14.1: the CRDs from their own chart (templates, so `helm upgrade` updates them), the
# controller chart with skipCrds. The chart in the tree at the tag still says 1.13.0 (stamped at publish
# time): the release image tag and digest are pinned here (aws/karpenter-provider-aws main 1d927085,
# "docs: update for patch release v1.14.1"; tests/upstream/NEW_COMPONENTS_NOTES.md section 0).
KARPENTER = ChartPin(
    chart="oci://public.ecr.aws/karpenter/karpenter",
    version="1.14.1",
    repo=None,
    namespace="kube-system",
)
KARPENTER_CRD = ChartPin(
    chart="oci://public.ecr.aws/karpenter/karpenter-crd",
    version="1.14.1",
    repo=None,
    namespace="kube-system",
)
EKS_AL2023_AMI_RELEASE = "v20260714"
"""The EKS-optimized AL2023 AMI release Karpenter pools boot (``amiSelectorTerms`` alias ``al2023@<release>``,
awslabs/amazon-eks-ami ``CHANGELOG.md`` "AMI Release v20260714"): a pinned release, so a new AMI replaces GPU
nodes only when this pin (or the pool's ``ami_version``) changes, never on AWS's schedule."""
KARPENTER_IMAGE_TAG = "1.14.1"
KARPENTER_IMAGE_DIGEST = "sha256:723130949e4cab989461ff07d1be4cd781d63515432494641b33c235f300ae23"

# --- Slurm on Kubernetes (SchedMD Slinky) ---------------------------------------------------
# SlinkyProject/slurm-operator@v1.2.1 (87313dac): three charts published together as OCI charts. The CRDs
# (group slinky.slurm.net) are their own release so removing the operator never deletes a Slurm cluster;
# the operator's webhook certificates come from cert-manager (docs/installation.md at the tag).
SLURM_OPERATOR_CRDS = ChartPin(
    chart="oci://ghcr.io/slinkyproject/charts/slurm-operator-crds",
    version="1.2.1",
    repo=None,
    namespace="slinky",
)
SLURM_OPERATOR = ChartPin(
    chart="oci://ghcr.io/slinkyproject/charts/slurm-operator",
    version="1.2.1",
    repo=None,
    namespace="slinky",
)
SLURM = ChartPin(
    chart="oci://ghcr.io/slinkyproject/charts/slurm",
    version="1.2.1",
    repo=None,
    namespace="slurm",
)
SLURM_IMAGE_TAG = "26.05-ubuntu26.04"
"""Slurm 26.05 on Ubuntu 26.04: the tag the slurm chart 1.2.1 gives every Slurm image (its appVersion is
Slurm 26.05); the pyxis images are built from the same slurmd and login images
(SlinkyProject/containers ``schedmd/slurm/26.05/ubuntu26.04/Dockerfile.pyxis``)."""
SLURMD_PYXIS_IMAGE_REPOSITORY = "ghcr.io/slinkyproject/slurmd-pyxis"
"""slurmd with enroot and the pyxis SPANK plugin (``srun --container-image``)."""
LOGIN_PYXIS_IMAGE_REPOSITORY = "ghcr.io/slinkyproject/login-pyxis"
"""The login image with the same pyxis plugin, so ``srun --container-*`` options parse on the login pod."""


# --- Observability ---------------------------------------------------------------------------
# kube-prometheus-stack (prometheus-community/helm-charts), the embedded metrics path for any cluster, with
# the Prometheus Operator CRDs from their own chart at the same operator version (v0.93.1): CRD templates,
# so they upgrade with their release, and a release of their own kept when the stack is removed.
KUBE_PROMETHEUS_STACK = ChartPin(
    chart="kube-prometheus-stack",
    version="88.5.3",
    repo="https://prometheus-community.github.io/helm-charts",
    namespace="monitoring",
)
PROMETHEUS_OPERATOR_CRDS = ChartPin(
    chart="prometheus-operator-crds",
    version="31.0.1",
    repo="https://prometheus-community.github.io/helm-charts",
    namespace="monitoring",
)
# node-problem-detector (kubernetes/node-problem-detector) on the GPU nodes: the library's GPU health checks.
# The project publishes no chart; its README points to this one (deliveryhero/helm-charts
# ``stable/node-problem-detector``, tests/upstream/charts/node-problem-detector-2.4.1). The image is the chart's
# appVersion, pinned here so a chart bump cannot move it silently.
NODE_PROBLEM_DETECTOR = ChartPin(
    chart="node-problem-detector",
    version="2.4.1",
    repo="https://charts.deliveryhero.io/",
    namespace="kube-system",
)
NODE_PROBLEM_DETECTOR_IMAGE_REPOSITORY = "registry.k8s.io/node-problem-detector/node-problem-detector"
NODE_PROBLEM_DETECTOR_IMAGE_TAG = "v1.35.1"
# NVIDIA's DCGM dashboard and the exporter's default counters, shipped as upstream has them. The GPU Operator
# v26.7.0 runs dcgm-exporter 4.6.0-4.8.3; these come from 4.5.3-4.8.2 (tests/upstream/dcgm-exporter/SOURCE.yaml
# says why and what differs).
DCGM_EXPORTER_DASHBOARD = UpstreamFile(
    repo="NVIDIA/dcgm-exporter",
    commit="691c92762eb551313c825f6efe4ceeee20982801",
    path="grafana/dcgm-exporter-dashboard.json",
    file="dcgm-exporter-dashboard.json",
    sha256="7c2172e582524efb70d9f585502366f7fec22b2464c3b89f75418ca648353e71",
)
DCGM_EXPORTER_DEFAULT_COUNTERS = UpstreamFile(
    repo="NVIDIA/dcgm-exporter",
    commit="691c92762eb551313c825f6efe4ceeee20982801",
    path="etc/default-counters.csv",
    file="dcgm-exporter-default-counters.csv",
    sha256="13d8c92cffa649f17c4c0938bb16707daf27260e845c77eacf89dbb68a46eaf9",
)

# --- LLM serving: the inference gateway and autoscaling (addons/serving/gateway.py, autoscaling.py) ----------
# The Gateway implementation KServe v0.20.0 installs for LLMInferenceService (kserve/kserve
# ``hack/setup/quick-install/llmisvc-dependency-install.sh``: ENVOY_GATEWAY_VERSION=v1.8.1,
# ENVOY_AI_GATEWAY_VERSION=v1.0.0, GATEWAY_API_VERSION=v1.5.1, GIE_VERSION=v1.5.0). Envoy Gateway v1.8.1's go.mod
# requires sigs.k8s.io/gateway-api v1.5.1, the version KServe v0.20.0's go.mod requires, so its CRD chart is the one
# release holding the Gateway API CRDs (standard channel); Envoy AI Gateway is Envoy Gateway's extension server that
# routes to InferencePools. GKE uses its managed Gateway instead (no chart).
GATEWAY_API_VERSION = "v1.5.1"
INFERENCE_EXTENSION_VERSION = "v1.5.0"
"""Gateway API Inference Extension (``inference.networking.k8s.io/v1`` InferencePool): the CRD comes with KServe's
``kserve-llmisvc-resources`` chart (``createGIECRDs``), the endpoint picker with KServe's scheduler preset."""
ENVOY_GATEWAY_CRDS = ChartPin(
    chart="oci://docker.io/envoyproxy/gateway-crds-helm",
    version="v1.8.1",
    repo=None,
    namespace="envoy-gateway-system",
)
ENVOY_GATEWAY = ChartPin(
    chart="oci://docker.io/envoyproxy/gateway-helm",
    version="v1.8.1",
    repo=None,
    namespace="envoy-gateway-system",
)
ENVOY_AI_GATEWAY_CRDS = ChartPin(
    chart="oci://docker.io/envoyproxy/ai-gateway-crds-helm",
    version="v1.0.0",
    repo=None,
    namespace="envoy-ai-gateway-system",
)
ENVOY_AI_GATEWAY = ChartPin(
    chart="oci://docker.io/envoyproxy/ai-gateway-helm",
    version="v1.0.0",
    repo=None,
    namespace="envoy-ai-gateway-system",
)
# KEDA (kedacore/charts ``keda`` 2.20.2, app 2.20.2): ScaledObjects on vLLM's queue and KV-cache metrics. KServe
# v0.20.0 tests KEDA 2.18.0 (``hack/setup/quick-install/keda-dependency-install.sh``); the ScaledObject API
# (``keda.sh/v1alpha1``) is the same, and 2.20 is the release line for the Kubernetes minors the library runs.
KEDA = ChartPin(
    chart="keda",
    version="2.20.2",
    repo="https://kedacore.github.io/charts",
    namespace="keda",
)


@dataclass(frozen=True)
class OlmPin:
    """An operator from an OLM catalog, pinned by channel and (where it is one name on every cluster) the CSV
    it starts at (OpenShift: NVIDIA cloud-native docs, "Installing the NVIDIA GPU Operator on OpenShift")."""

    package: str
    channel: str
    source: str
    namespace: str
    starting_csv: str | None = None
    """``None``: the CSV follows the cluster's OpenShift minor (Red Hat's NFD), so only the channel is pinned."""
    source_namespace: str = "openshift-marketplace"
    approval: str = "Manual"
    """``Manual``: OLM never upgrades past ``starting_csv`` by itself (the first InstallPlan is approved once)."""


OPENSHIFT_NFD = OlmPin(
    package="nfd",
    channel="stable",
    source="redhat-operators",
    namespace="openshift-nfd",
    approval="Automatic",
)
OPENSHIFT_GPU_OPERATOR = OlmPin(
    package="gpu-operator-certified",
    channel="v26.7",
    source="certified-operators",
    namespace="nvidia-gpu-operator",
    starting_csv="gpu-operator-certified.v26.7.0",
)
"""The same release as the Helm ``GPU_OPERATOR`` pin (v26.7.0). The certified catalog publishes bundle 26.7.0
(CSV ``gpu-operator-certified.v26.7.0``) in channels ``stable`` and ``v26.7`` for OpenShift 4.18-4.22
(redhat-openshift-ecosystem/certified-operators, ``operators/gpu-operator-certified/26.7.0/release-config.yaml``
at 274dbde)."""


# --- Single GPU hosts (GpuDockerHost) -------------------------------------------------------------------
# The NVIDIA Container Toolkit from NVIDIA's apt repository (Container Toolkit install guide, "Installing
# with Apt"): the four packages at one version, the toolkit release the GPU Operator v26.7.0 matrix ships
# (NVIDIA/cloud-native-docs ``gpu-operator/life-cycle-policy.rst``), so a host and a cluster of the same library release run the same toolkit.
NVIDIA_CONTAINER_TOOLKIT_VERSION = "1.20.0"
NVIDIA_CONTAINER_TOOLKIT_APT_VERSION = f"{NVIDIA_CONTAINER_TOOLKIT_VERSION}-1"
NVIDIA_CONTAINER_TOOLKIT_PACKAGES = (
    "nvidia-container-toolkit",
    "nvidia-container-toolkit-base",
    "libnvidia-container-tools",
    "libnvidia-container1",
)
NVIDIA_CONTAINER_TOOLKIT_GPGKEY_URL = "https://nvidia.github.io/libnvidia-container/gpgkey"
NVIDIA_CONTAINER_TOOLKIT_APT_SOURCE = "https://nvidia.github.io/libnvidia-container/stable/deb/$(ARCH) /"
"""The line of NVIDIA's ``stable/deb/nvidia-container-toolkit.list`` (apt expands ``$(ARCH)`` itself)."""
UBUNTU_SERVER_DRIVER_BRANCH = "580"
"""NVIDIA server driver branch installed where the cloud's image has no driver (Azure): Canonical's signed,
precompiled ``nvidia:<branch>-server`` modules via ``ubuntu-drivers install --gpgpu`` (Ubuntu Server docs,
"NVIDIA drivers installation"), so Secure Boot (Azure Trusted Launch) accepts them. 580 is a production
branch and runs CUDA up to 13.0."""


def __getattr__(name: str) -> object:
    # ``ALL_CHARTS`` is derived from the release table now (``gpu_platform.releases``); it resolves, with a warning.
    from gpu_platform._moved import moved_attribute

    return moved_attribute(__name__, name)
