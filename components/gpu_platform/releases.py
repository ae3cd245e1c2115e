"""Every Helm release the library installs, one entry each: the only list of them.

An entry says what the rest of the library would otherwise spell out per add-on: the chart pin
(``versions``), the release name and namespace, whether removing the release loses CRDs (and with them
every object of those kinds), the Kueue integrations its workloads use, which namespaces teams may not
take, whether it is a gang scheduler that owns pools, and where its chart's values name each image (so
the mirror rewrites them and ``gpu-platform mirror`` lists them). Resolve, plans, stack, the offline diff
and the docs read it; ``docs/adding-an-addon.md`` says what else a new add-on needs.
"""

from __future__ import annotations

from dataclasses import dataclass

from gpu_platform import versions
from gpu_platform.chart_images import Condition, ImageSlot, nvidia, on, repo, split
from gpu_platform.chart_images import Path as ValuesPath
from gpu_platform.versions import ChartPin


@dataclass(frozen=True)
class Addon:
    """One Helm release the library installs, and what the rest of the library needs to know about it."""

    key: str
    """Stable identifier; for a workload controller its ``Controller`` value (``installed_elsewhere``)."""
    display: str
    """How messages name it."""
    pin: ChartPin
    release_name: str
    """Fixed: charts name their services and webhooks after the release."""
    component_name: str
    """Resource name of the stack's component that installs it."""
    images: tuple[ImageSlot, ...]
    """Where the chart's values name each image it runs, and which image each is at the pin (``()`` for a
    CRD-only chart; required, so a new release says which images it runs). The mirror (``plans.mirror``)
    rewrites those keys, ``gpu-platform mirror`` and the ``mirror-required`` policy list them
    (``CHART_IMAGES``); ``tests/test_chart_images.py`` checks each against the vendored chart's values.yaml."""
    release_holds_crds: bool = False
    """The release renders CRDs that go when it is uninstalled (templates without a keep policy, or a
    CRD-only chart): removing it deletes every object of those kinds, so the diff calls it stateful and
    the component keeps the release."""
    kueue_frameworks: tuple[str, ...] = ()
    """Kueue integrations (chart 0.19.2 ``integrations.frameworks`` names) its workloads use."""
    reserves_namespace: bool = False
    """No team and no inference service may use its namespace."""
    namespace_owner: str = ""
    """What a refusal calls its namespace ("Kueue's namespace")."""
    gang_scheduler: bool = False
    """A scheduler that owns pools (Kueue, Volcano or Slurm; a pool belongs to one of them). Slurm's pools are
    its own outright: no Kueue or Volcano quota counts them (``addons.kueue.checks.without_exclusive``)."""
    section_key: str | None = None
    """Its key in the stack file's ``workloads`` section (snake_case), for the workload controllers."""
    volcano_gang: bool = False
    """Can be gang-scheduled by Volcano (a cluster-wide setting of the controller)."""
    toleration_paths: tuple[tuple[str, ...], ...] = ()
    """Where its chart takes its controller pods' tolerations (refused if they tolerate GPU nodes)."""
    runs_on: tuple[str, ...] = ()
    """Add-ons whose CRDs and webhooks it needs (Trainer runs each TrainJob as a JobSet): created first."""

    @property
    def namespace(self) -> str:
        """The default namespace (the pin's)."""
        return self.pin.namespace

    @property
    def chart_name(self) -> str:
        """The chart's last path segment, as the offline diff and the policy see it."""
        return chart_name(self.pin.chart)


def chart_name(chart: str) -> str:
    """``oci://registry.k8s.io/kueue/charts/kueue`` -> ``kueue``."""
    return chart.rstrip("/").rsplit("/", 1)[-1]


_NV = "nvcr.io/nvidia"
_NVCN = "nvcr.io/nvidia/cloud-native"
_OS_SUFFIX = "tag suffixed with the node's OS (-ubuntu22.04, -ubuntu24.04, -rhel9.6, ...) by the operator"
_SANDBOX = on("sandboxWorkloads", "enabled", default=False)
GPU_OPERATOR = Addon(
    "gpuOperator",
    "the GPU Operator",
    versions.GPU_OPERATOR,
    "gpu-operator",
    "gpu-operator",
    reserves_namespace=True,
    namespace_owner="the GPU Operator's namespace",
    images=(
        # NVIDIA/gpu-operator deployments/gpu-operator/values.yaml at v26.7.0; operator and validator default
        # to the chart's appVersion, NFD to its subchart's (v0.19.0). ``vgpuManager`` has no default image
        # (NVIDIA's vGPU driver is built by its user), so it is not here.
        nvidia(("operator",), f"{_NV}/gpu-operator:v26.7.0"),
        nvidia(("validator",), f"{_NV}/gpu-operator:v26.7.0"),
        nvidia(("driver",), f"{_NV}/driver:595.91.07", on("driver", "enabled"), note=_OS_SUFFIX),
        nvidia(("driver", "manager"), f"{_NVCN}/k8s-driver-manager:v0.12.0", on("driver", "enabled")),
        nvidia(("toolkit",), f"{_NV}/k8s/container-toolkit:v1.20.0", on("toolkit", "enabled")),
        nvidia(("devicePlugin",), f"{_NV}/k8s-device-plugin:v0.20.0", on("devicePlugin", "enabled")),
        nvidia(("dcgm",), f"{_NVCN}/dcgm:4.6.0-1-ubuntu24.04", on("dcgm", "enabled", default=False)),
        nvidia(
            ("dcgmExporter",),
            f"{_NV}/k8s/dcgm-exporter:4.6.0-4.8.3-distroless",
            on("dcgmExporter", "enabled"),
        ),
        nvidia(("gfd",), f"{_NV}/k8s-device-plugin:v0.20.0", on("gfd", "enabled")),
        nvidia(("migManager",), f"{_NVCN}/k8s-mig-manager:v0.15.0", on("migManager", "enabled")),
        nvidia(
            ("nodeStatusExporter",),
            f"{_NV}/gpu-operator:v26.7.0",
            on("nodeStatusExporter", "enabled", default=False),
        ),
        nvidia(("gds",), f"{_NVCN}/nvidia-fs:2.29.4", on("gds", "enabled", default=False), note=_OS_SUFFIX),
        nvidia(
            ("gdrcopy",), f"{_NVCN}/gdrdrv:v2.6", on("gdrcopy", "enabled", default=False), note=_OS_SUFFIX
        ),
        nvidia(("vgpuManager", "driverManager"), f"{_NVCN}/k8s-driver-manager:v0.12.0", _SANDBOX),
        nvidia(("vgpuDeviceManager",), f"{_NVCN}/vgpu-device-manager:v0.5.0", _SANDBOX),
        nvidia(("vfioManager",), f"{_NVCN}/k8s-driver-manager:v0.12.0", _SANDBOX),
        nvidia(("vfioManager", "driverManager"), f"{_NVCN}/k8s-driver-manager:v0.12.0", _SANDBOX),
        nvidia(("sandboxDevicePlugin",), f"{_NV}/kubevirt-gpu-device-plugin:v1.6.0", _SANDBOX),
        nvidia(("kataSandboxDevicePlugin",), f"{_NVCN}/nvidia-sandbox-device-plugin:v0.0.5", _SANDBOX),
        nvidia(("ccManager",), f"{_NVCN}/k8s-cc-manager:v0.4.3", on("ccManager", "enabled")),
        nvidia(
            ("draDriver",), f"{_NV}/dra-driver-nvidia-gpu:v0.5.0", on("draDriver", "enabled", default=False)
        ),
        repo(
            ("node-feature-discovery", "image"),
            "registry.k8s.io/nfd/node-feature-discovery:v0.19.0",
            on("nfd", "enabled"),
        ),
    ),
)
_STAGING = "us-central1-docker.pkg.dev/k8s-staging-images"
KUEUE = Addon(
    "kueue",
    "Kueue",
    versions.KUEUE,
    "kueue",
    "kueue",
    release_holds_crds=True,
    reserves_namespace=True,
    namespace_owner="Kueue's namespace",
    gang_scheduler=True,
    images=(
        repo(("controllerManager", "manager", "image"), f"{_STAGING}/kueue/kueue:release-0.19"),
        repo(
            ("kueueViz", "backend", "image"),
            f"{_STAGING}/kueue/kueueviz-backend:release-0.19",
            on("enableKueueViz", default=False),
        ),
        repo(
            ("kueueViz", "frontend", "image"),
            f"{_STAGING}/kueue/kueueviz-frontend:release-0.19",
            on("enableKueueViz", default=False),
        ),
    ),
)
_JETSTACK = "quay.io/jetstack/cert-manager"
CERT_MANAGER = Addon(
    "certManager",
    "cert-manager",
    versions.CERT_MANAGER,
    "cert-manager",
    "cert-manager",
    release_holds_crds=True,
    reserves_namespace=True,
    namespace_owner="cert-manager's namespace",
    images=tuple(
        # cert-manager/cert-manager deploy/charts/cert-manager/values.yaml at v1.21.1: ``image.repository``
        # wins over ``imageRegistry``/``imageNamespace``/``image.name``; tags default to the appVersion.
        repo(at, f"{_JETSTACK}-{name}:v1.21.1", *when)
        for at, name, when in (
            (("image",), "controller", ()),
            (("webhook", "image"), "webhook", ()),
            (("cainjector", "image"), "cainjector", (on("cainjector", "enabled"),)),
            (("acmesolver", "image"), "acmesolver", ()),
            (("startupapicheck", "image"), "startupapicheck", (on("startupapicheck", "enabled"),)),
        )
    ),
)
HAMI = Addon(
    "hami",
    "HAMi",
    versions.HAMI,
    "hami",
    "hami",
    reserves_namespace=True,
    namespace_owner="HAMi's namespace",
    images=(
        # Project-HAMi/HAMi charts/hami/values.yaml at v2.10.0: ``registry`` + ``repository`` + ``tag``; an
        # empty tag is ``global.imageTag`` for HAMi's own images and the cluster's version for kube-scheduler
        # (the library pins both: ``addons.hami.plan``).
        split(
            ("scheduler", "kubeScheduler", "image"),
            "registry.cn-hangzhou.aliyuncs.com/google_containers/kube-scheduler",
        ),
        split(("scheduler", "extender", "image"), "docker.io/projecthami/hami"),
        split(
            ("scheduler", "patch", "image"),
            "docker.io/jettech/kube-webhook-certgen:v1.5.2",
            on("scheduler", "patch", "enabled"),
        ),
        split(
            ("scheduler", "patch", "imageNew"),
            "docker.io/liangjw/kube-webhook-certgen:v1.1.1",
            on("scheduler", "patch", "enabled"),
        ),
        split(("devicePlugin", "image"), "docker.io/projecthami/hami", on("devicePlugin", "enabled")),
        split(
            ("devicePlugin", "monitor", "image"),
            "docker.io/projecthami/hami",
            on("devicePlugin", "enabled"),
        ),
        split(
            ("mockDevicePlugin", "image"),
            "docker.io/projecthami/mock-device-plugin:1.0.1",
            on("mockDevicePlugin", "enabled", default=False),
        ),
    ),
)
KSERVE_CRD = Addon(
    "kserveCrd",
    "KServe's CRDs",
    versions.KSERVE_CRD,
    "kserve-crd",
    "kserve",
    release_holds_crds=True,
    images=(),
)


def _kserve(at: ValuesPath, image: str, *when: Condition) -> ImageSlot:
    """KServe's ``image`` (a Docker Hub name) + ``tag`` (default ``kserve.version``)."""
    return ImageSlot(at, f"{image}:v0.20.0", repository="image", when=when)


_LOCALMODEL = on("kserve", "localmodel", "enabled", default=False)
KSERVE_RESOURCES = Addon(
    "kserve",
    "KServe",
    versions.KSERVE_RESOURCES,
    "kserve-resources",
    "kserve",
    reserves_namespace=True,
    namespace_owner="KServe's namespace",
    images=(
        # kserve/kserve charts/kserve-resources/values.yaml at v0.20.0.
        _kserve(("kserve", "controller"), "kserve/kserve-controller"),
        ImageSlot(
            ("kserve", "controller"),
            "quay.io/brancz/kube-rbac-proxy:v0.18.0",
            repository="rbacProxyImage",
            tag=None,
            whole=True,
        ),
        _kserve(("kserve", "agent"), "kserve/agent"),
        _kserve(("kserve", "router"), "kserve/router"),
        _kserve(("kserve", "storage"), "kserve/storage-initializer"),
        ImageSlot(
            ("kserve", "servingruntime", "art"),
            "kserve/art-explainer:v0.20.0",
            repository="image",
            tag="defaultVersion",
        ),
        _kserve(("kserve", "localmodel", "controller"), "kserve/kserve-localmodel-controller", _LOCALMODEL),
        _kserve(("kserve", "localmodel", "agent"), "kserve/kserve-localmodelnode-agent", _LOCALMODEL),
        ImageSlot(
            ("kserve", "localmodel"),
            "kserve/storage-initializer:v0.20.0",
            repository="defaultJobImage",
            tag="defaultJobTag",
            when=(_LOCALMODEL,),
        ),
    ),
)
KSERVE_RUNTIME_CONFIGS = Addon(
    "kserveRuntimeConfigs",
    "KServe's serving runtimes",
    versions.KSERVE_RUNTIME_CONFIGS,
    "kserve-runtime-configs",
    "kserve",
    images=tuple(
        # kserve/kserve charts/kserve-runtime-configs/values.yaml at v0.20.0: an empty tag is
        # ``kserve.version``; the multi-node Hugging Face runtime runs ``huggingfaceserver`` with the tag
        # suffixed ``-gpu``.
        ImageSlot(
            ("kserve", "servingruntime", runtime),
            f"{image}:{tag}",
            repository="image",
            when=(on("kserve", "servingruntime", "enabled", default=False),),
            note="also the tag suffixed -gpu (the multi-node runtime)"
            if runtime == "huggingfaceserver"
            else "",
        )
        for runtime, image, tag in (
            ("tensorflow", "tensorflow/serving", "2.6.2"),
            ("mlserver", "docker.io/seldonio/mlserver", "1.5.0"),
            ("sklearnserver", "kserve/sklearnserver", "v0.20.0"),
            ("xgbserver", "kserve/xgbserver", "v0.20.0"),
            ("huggingfaceserver", "kserve/huggingfaceserver", "v0.20.0"),
            ("tritonserver", "nvcr.io/nvidia/tritonserver", "23.05-py3"),
            ("pmmlserver", "kserve/pmmlserver", "v0.20.0"),
            ("predictiveserver", "kserve/predictiveserver", "v0.20.0"),
            ("paddleserver", "kserve/paddleserver", "v0.20.0"),
            ("lgbserver", "kserve/lgbserver", "v0.20.0"),
            ("autogluonserver", "kserve/autogluonserver", "v0.20.0"),
            ("torchserve", "pytorch/torchserve-kfs", "0.9.0"),
            ("vllmserver", "vllm/vllm-openai", "latest"),
            ("art", "kserve/art-explainer", "v0.20.0"),
        )
    ),
)
KSERVE_LLMISVC_CRD = Addon(
    "kserveLlmisvcCrd",
    "KServe's LLMInferenceService CRDs",
    versions.KSERVE_LLMISVC_CRD,
    "kserve-llmisvc-crd",
    "serving",
    release_holds_crds=True,
    images=(),
)
KSERVE_LLMISVC_RESOURCES = Addon(
    "kserveLlmisvc",
    "KServe's LLMInferenceService controller",
    versions.KSERVE_LLMISVC_RESOURCES,
    "kserve-llmisvc-resources",
    "serving",
    images=(
        # kserve/kserve charts/kserve-llmisvc-resources/values.yaml at v0.20.0: the controller's image + tag
        # (default ``kserve.version``); the agent, router and storage images there are the shared resources'
        # (kserve-resources).
        _kserve(("kserve", "llmisvc", "controller"), "kserve/llmisvc-controller"),
    ),
)
# The inference gateway off GKE (addons.serving.gateway) and KEDA for autoscaled models (addons.serving.autoscaling).
ENVOY_GATEWAY_CRDS = Addon(
    "envoyGatewayCrds",
    "Envoy Gateway's and the Gateway API's CRDs",
    versions.ENVOY_GATEWAY_CRDS,
    "eg-crds",
    "serving",
    release_holds_crds=True,
    namespace_owner="Envoy Gateway's namespace",
    images=(),
)
ENVOY_GATEWAY = Addon(
    "envoyGateway",
    "Envoy Gateway",
    versions.ENVOY_GATEWAY,
    "eg",
    "serving",
    namespace_owner="Envoy Gateway's namespace",
    images=(
        # envoyproxy/gateway charts/gateway-helm at v1.8.1, ``values.tmpl.yaml`` as its release publishes it
        # (``tools/make/helm.mk`` writes values.yaml; ``tests/support/helm.PUBLISHED_VALUES``). The controller
        # (and its certgen Job and the proxies' shutdown manager, ``eg.image``):
        # ``deployment.envoyGateway.image`` wins over ``global.images.envoyGateway``, an empty tag is the
        # appVersion. The Envoy proxy each Gateway runs and the rate limit service: whole references in
        # ``global.images``, written into the EnvoyGateway configuration
        # (``eg.default-envoy-gateway-config``); an empty proxy image leaves Envoy Gateway's built-in one
        # (``DefaultEnvoyProxyImage``/``DefaultRateLimitImage``, ``api/v1alpha1/shared_types.go`` at v1.8.1).
        # The rate limit service runs only when rate limiting is configured (the library configures none).
        repo(("deployment", "envoyGateway", "image"), "docker.io/envoyproxy/gateway:v1.8.1"),
        ImageSlot(
            ("global", "images", "envoyProxy"),
            "docker.io/envoyproxy/envoy:distroless-v1.38.1",
            repository="image",
            tag=None,
            whole=True,
        ),
        ImageSlot(
            ("global", "images", "ratelimit"),
            "docker.io/envoyproxy/ratelimit:ff287602",
            repository="image",
            tag=None,
            whole=True,
            when=(on("config", "envoyGateway", "rateLimit", default=False),),
        ),
    ),
)
ENVOY_AI_GATEWAY_CRDS = Addon(
    "envoyAiGatewayCrds",
    "Envoy AI Gateway's CRDs",
    versions.ENVOY_AI_GATEWAY_CRDS,
    "aieg-crd",
    "serving",
    release_holds_crds=True,
    namespace_owner="Envoy AI Gateway's namespace",
    images=(),
)
ENVOY_AI_GATEWAY = Addon(
    "envoyAiGateway",
    "Envoy AI Gateway",
    versions.ENVOY_AI_GATEWAY,
    "aieg",
    "serving",
    namespace_owner="Envoy AI Gateway's namespace",
    images=(
        # envoyproxy/ai-gateway manifests/charts/ai-gateway-helm at v1.0.0: an empty tag is the appVersion.
        repo(("controller", "image"), "docker.io/envoyproxy/ai-gateway-controller:v1.0.0"),
        repo(("extProc", "image"), "docker.io/envoyproxy/ai-gateway-extproc:v1.0.0"),
    ),
)
KEDA = Addon(
    "keda",
    "KEDA",
    versions.KEDA,
    "keda",
    "serving",
    release_holds_crds=True,
    reserves_namespace=True,
    namespace_owner="KEDA's namespace",
    images=(
        # kedacore/charts keda 2.20.2: registry + repository + tag (empty: the appVersion).
        split(("image", "keda"), "ghcr.io/kedacore/keda:2.20.2"),
        split(("image", "metricsApiServer"), "ghcr.io/kedacore/keda-metrics-apiserver:2.20.2"),
        split(("image", "webhooks"), "ghcr.io/kedacore/keda-admission-webhooks:2.20.2"),
    ),
)
CLUSTER_AUTOSCALER = Addon(
    "clusterAutoscaler",
    "the Cluster Autoscaler",
    versions.CLUSTER_AUTOSCALER,
    "cluster-autoscaler",
    "cluster-autoscaler",
    images=(repo(("image",), "registry.k8s.io/autoscaling/cluster-autoscaler:v1.35.0"),),
)
AWS_EFA_DEVICE_PLUGIN = Addon(
    "efaDevicePlugin",
    "the EFA device plugin",
    versions.AWS_EFA_DEVICE_PLUGIN,
    "aws-efa-k8s-device-plugin",
    "efa-device-plugin",
    images=(
        repo(
            ("image",), "602401143452.dkr.ecr.us-west-2.amazonaws.com/eks/aws-efa-k8s-device-plugin:v0.5.20"
        ),
    ),
)
_NVMLX = "nvcr.io/nvidia/mellanox"
NETWORK_OPERATOR = Addon(
    "networkOperator",
    "the NVIDIA Network Operator",
    versions.NETWORK_OPERATOR,
    "network-operator",
    "network-operator",
    namespace_owner="the NVIDIA Network Operator's namespace",
    images=(
        # Mellanox/network-operator deployment/network-operator/values.yaml at v26.4.1 (the operator's tag
        # defaults to the appVersion) and its subcharts at the same release.
        nvidia(("operator",), "nvcr.io/nvidia/cloud-native/network-operator:v26.4.1"),
        nvidia(
            ("operator", "ofedDriver", "initContainer"),
            f"{_NVMLX}/network-operator-init-container:network-operator-v26.4.1",
        ),
        repo(
            ("node-feature-discovery", "image"),
            f"{_NVMLX}/node-feature-discovery:network-operator-v26.4.1",
            on("nfd", "enabled"),
        ),
        ImageSlot(
            ("maintenance-operator-chart", "operator", "image"),
            f"{_NVMLX}/maintenance-operator:network-operator-v26.4.1",
            name="name",
            when=(on("maintenanceOperator", "enabled", default=False),),
        ),
        *(
            ImageSlot(
                ("sriov-network-operator", "images"),
                f"{source}:{tag}",
                repository=key,
                tag=None,
                whole=True,
                when=(on("sriovNetworkOperator", "enabled", default=False),),
            )
            for key, source, tag in (
                ("operator", f"{_NVMLX}/sriov-network-operator", "network-operator-v26.4.1"),
                (
                    "sriovConfigDaemon",
                    f"{_NVMLX}/sriov-network-operator-config-daemon",
                    "network-operator-v26.4.1",
                ),
                ("sriovCni", f"{_NVMLX}/sriov-cni", "network-operator-v26.4.1"),
                ("ibSriovCni", f"{_NVMLX}/ib-sriov-cni", "network-operator-v26.4.1"),
                ("ovsCni", f"{_NVMLX}/ovs-cni-plugin", "network-operator-v26.4.1"),
                ("rdmaCni", f"{_NVMLX}/rdma-cni", "network-operator-v26.4.1"),
                ("sriovDevicePlugin", f"{_NVMLX}/sriov-network-device-plugin", "network-operator-v26.4.1"),
                ("sriovDraDriver", f"{_NVMLX}/dra-driver-sriov", "network-operator-v26.4.1"),
                ("resourcesInjector", "ghcr.io/k8snetworkplumbingwg/network-resources-injector", "v1.7.0"),
                ("webhook", f"{_NVMLX}/sriov-network-operator-webhook", "network-operator-v26.4.1"),
            )
        ),
    ),
)
JOBSET = Addon(
    "jobset",
    "JobSet",
    versions.JOBSET,
    "jobset",
    "jobset",
    kueue_frameworks=("jobset.x-k8s.io/jobset",),
    namespace_owner="JobSet's namespace",
    section_key="jobset",
    toleration_paths=(("controller", "tolerations"),),
    images=(repo(("image",), f"{_STAGING}/jobset/jobset:main"),),
)
LEADER_WORKER_SET = Addon(
    "leaderWorkerSet",
    "LeaderWorkerSet",
    versions.LEADER_WORKER_SET,
    "lws",  # LWS's CRD expects ``lws-webhook-service``
    "lws",
    kueue_frameworks=("leaderworkerset.x-k8s.io/leaderworkerset",),
    namespace_owner="LeaderWorkerSet's namespace",
    section_key="leader_worker_set",
    volcano_gang=True,
    toleration_paths=(("tolerations",),),
    images=(repo(("image", "manager"), "registry.k8s.io/lws/lws:main"),),
)
_TRAINER = "ghcr.io/kubeflow/trainer"
TRAINER = Addon(
    "trainer",
    "Kubeflow Trainer",
    versions.KUBEFLOW_TRAINER,
    "kubeflow-trainer",
    "kubeflow-trainer",
    release_holds_crds=True,
    kueue_frameworks=("trainer.kubeflow.org/trainjob",),
    namespace_owner="Kubeflow Trainer's namespace",
    section_key="trainer",
    volcano_gang=True,
    toleration_paths=(("manager", "tolerations"),),
    runs_on=("jobset",),
    images=(
        # kubeflow/trainer charts/kubeflow-trainer/values.yaml at v2.3.0: tags default to ``v`` + the
        # appVersion.
        split(("image",), f"{_TRAINER}/trainer-controller-manager:v2.3.0"),
        split(
            ("dataCache", "cacheImage"),
            f"{_TRAINER}/data-cache:v2.3.0",
            on("dataCache", "enabled", default=False),
        ),
        split(
            ("runtimes", "installer", "image"),
            "docker.io/alpine:3.21",
            on("runtimes", "defaultEnabled", default=False),
        ),
        *(
            split(
                ("runtimes", key, "image"),
                f"{_TRAINER}/{name}:v2.3.0",
                on("runtimes", key, "enabled", default=False),
            )
            for key, name in (
                ("deepspeedDistributed", "deepspeed-runtime"),
                ("mlxDistributed", "mlx-runtime"),
                ("xgboostDistributed", "xgboost-runtime"),
                ("torchtuneDistributed", "torchtune-trainer"),
            )
        ),
    ),
)
KUBERAY = Addon(
    "kuberay",
    "KubeRay",
    versions.KUBERAY_OPERATOR,
    "kuberay-operator",
    "kuberay",
    kueue_frameworks=("ray.io/rayjob", "ray.io/raycluster", "ray.io/rayservice"),
    namespace_owner="KubeRay's namespace",
    section_key="kuberay",
    volcano_gang=True,
    toleration_paths=(("tolerations",),),
    images=(repo(("image",), "quay.io/kuberay/operator:v1.7.0"),),
)
VOLCANO = Addon(
    "volcano",
    "Volcano",
    versions.VOLCANO,
    "volcano",  # the chart names its scheduler ConfigMap and admission service after the release
    "volcano",
    release_holds_crds=True,
    namespace_owner="Volcano's own namespace (its webhooks skip it)",
    gang_scheduler=True,
    toleration_paths=(
        ("custom", "default_tolerations"),
        ("custom", "admission_tolerations"),
        ("custom", "controller_tolerations"),
        ("custom", "scheduler_tolerations"),
    ),
    images=tuple(
        # volcano-sh/helm-charts volcano 1.15.1 values.yaml: one ``basic.image_registry`` before every name.
        ImageSlot(
            ("basic",),
            f"docker.io/volcanosh/vc-{name}:v1.15.1",
            repository=f"{key}_image_name",
            registry="image_registry",
            tag="image_tag_version",
            when=(on("custom", enable, default=default),),
        )
        for key, name, enable, default in (
            ("controller", "controller-manager", "controller_enable", True),
            ("scheduler", "scheduler", "scheduler_enable", True),
            ("agent_scheduler", "agent-scheduler", "agent_scheduler_enable", False),
            ("admission", "webhook-manager", "admission_enable", True),
            ("agent", "agent", "colocation_enable", False),
        )
    ),
)
DRA_DRIVER = Addon(
    "draDriver",
    "the NVIDIA DRA driver",
    versions.DRA_DRIVER,
    "dra-driver-nvidia-gpu",
    "dra-driver",
    images=(repo(("image",), "registry.k8s.io/dra-driver-nvidia/dra-driver-nvidia-gpu:v0.4.1"),),
)
KARPENTER = Addon(
    "karpenter",
    "Karpenter",
    versions.KARPENTER,
    "karpenter",
    "karpenter",
    images=(
        repo(
            ("controller", "image"),
            "public.ecr.aws/karpenter/controller:1.13.0@sha256:ea731b0cd813add8b2947a76bfe861c38069d85922b01d0c1647d1466279b7fe",
            digest=True,
        ),
    ),
)
KARPENTER_CRD = Addon(
    "karpenterCrd",
    "Karpenter's CRDs",
    versions.KARPENTER_CRD,
    "karpenter-crd",
    "karpenter",
    release_holds_crds=True,
    images=(),
)
SLURM_OPERATOR_CRDS = Addon(
    "slurmOperatorCrds",
    "Slinky's CRDs",
    versions.SLURM_OPERATOR_CRDS,
    "slurm-operator-crds",
    "slurm",
    release_holds_crds=True,
    namespace_owner="the Slinky operator's namespace",
    images=(),
)
_SLINKY = "ghcr.io/slinkyproject"
_SLURM_TAG = "26.05-ubuntu26.04"
_ALPINE = "docker.io/library/alpine:latest"
SLURM_OPERATOR = Addon(
    "slurmOperator",
    "the Slinky slurm-operator",
    versions.SLURM_OPERATOR,
    "slurm-operator",
    "slurm",
    namespace_owner="the Slinky operator's namespace",
    images=(
        repo(("operator", "image"), f"{_SLINKY}/slurm-operator:1.2.1", digest=True),
        repo(
            ("webhook", "image"),
            f"{_SLINKY}/slurm-operator-webhook:1.2.1",
            on("webhook", "enabled"),
            digest=True,
        ),
    ),
)
SLURM = Addon(
    "slurm",
    "Slurm",
    versions.SLURM,
    "slurm",  # the chart names the Controller, NodeSets, LoginSets and services after the release
    "slurm",
    namespace_owner="the Slurm cluster's namespace",
    gang_scheduler=True,
    images=(
        # SlinkyProject/slurm-operator helm/slurm/values.yaml at v1.2.1; each NodeSet and LoginSet the values
        # add is laid over nodesetDefaults / loginsetDefaults.
        repo(("controller", "slurmctld", "image"), f"{_SLINKY}/slurmctld:{_SLURM_TAG}", digest=True),
        repo(("controller", "reconfigure", "image"), f"{_SLINKY}/slurmctld:{_SLURM_TAG}", digest=True),
        repo(("controller", "logfile", "image"), _ALPINE, digest=True),
        repo(("restapi", "slurmrestd", "image"), f"{_SLINKY}/slurmrestd:{_SLURM_TAG}", digest=True),
        repo(
            ("accounting", "slurmdbd", "image"),
            f"{_SLINKY}/slurmdbd:{_SLURM_TAG}",
            on("accounting", "enabled", default=False),
            digest=True,
        ),
        repo(("loginsetDefaults", "login", "image"), f"{_SLINKY}/login:{_SLURM_TAG}", digest=True),
        repo(("loginsetDefaults", "initconf", "image"), _ALPINE, digest=True),
        repo(("nodesetDefaults", "slurmd", "image"), f"{_SLINKY}/slurmd:{_SLURM_TAG}", digest=True),
        repo(("nodesetDefaults", "logfile", "image"), _ALPINE, digest=True),
        repo(("nodesets", "*", "slurmd", "image"), f"{_SLINKY}/slurmd:{_SLURM_TAG}", digest=True),
        repo(("nodesets", "*", "logfile", "image"), _ALPINE, digest=True),
        repo(("loginsets", "*", "login", "image"), f"{_SLINKY}/login:{_SLURM_TAG}", digest=True),
        repo(("loginsets", "*", "initconf", "image"), _ALPINE, digest=True),
    ),
)
PROMETHEUS_OPERATOR_CRDS = Addon(
    "prometheusOperatorCrds",
    "the Prometheus Operator CRDs",
    versions.PROMETHEUS_OPERATOR_CRDS,
    "prometheus-operator-crds",
    "observability",
    release_holds_crds=True,
    namespace_owner="the monitoring stack's namespace",
    images=(),
)
_KPS_ALERTMANAGER = on("alertmanager", "enabled")
_GRAFANA = on("grafana", "enabled")
KUBE_PROMETHEUS_STACK = Addon(
    "kubePrometheusStack",
    "kube-prometheus-stack",
    versions.KUBE_PROMETHEUS_STACK,
    "kube-prometheus-stack",  # the chart names Prometheus, its ServiceAccount and services after the release
    "observability",
    namespace_owner="the monitoring stack's namespace",
    images=(
        # prometheus-community/helm-charts kube-prometheus-stack 88.5.3 values.yaml (operator tags default to
        # its appVersion v0.93.1) and its subcharts grafana 12.11.1, kube-state-metrics 8.4.0,
        # prometheus-node-exporter 4.56.1 (tags default to each appVersion).
        split(("prometheusOperator", "image"), "quay.io/prometheus-operator/prometheus-operator:v0.93.1"),
        split(
            ("prometheusOperator", "prometheusConfigReloader", "image"),
            "quay.io/prometheus-operator/prometheus-config-reloader:v0.93.1",
        ),
        split(("prometheusOperator", "thanosImage"), "quay.io/thanos/thanos:v0.42.4"),
        split(
            ("prometheusOperator", "admissionWebhooks", "deployment", "image"),
            "quay.io/prometheus-operator/admission-webhook:v0.93.1",
            on("prometheusOperator", "admissionWebhooks", "deployment", "enabled", default=False),
        ),
        split(
            ("prometheusOperator", "admissionWebhooks", "patch", "image"),
            "ghcr.io/jkroepke/kube-webhook-certgen:1.8.7",
            on("prometheusOperator", "admissionWebhooks", "patch", "enabled"),
        ),
        split(
            ("prometheus", "prometheusSpec", "image"),
            "quay.io/prometheus/prometheus:v3.14.0-distroless",
            on("prometheus", "enabled"),
        ),
        split(
            ("alertmanager", "alertmanagerSpec", "image"),
            "quay.io/prometheus/alertmanager:v0.34.0",
            _KPS_ALERTMANAGER,
        ),
        split(
            ("thanosRuler", "thanosRulerSpec", "image"),
            "quay.io/thanos/thanos:v0.42.4",
            on("thanosRuler", "enabled", default=False),
        ),
        split(
            ("crds", "upgradeJob", "image", "busybox"),
            "docker.io/busybox:latest",
            on("crds", "upgradeJob", "enabled", default=False),
        ),
        split(
            ("crds", "upgradeJob", "image", "kubectl"),
            "registry.k8s.io/kubectl:v1.35.0",
            on("crds", "upgradeJob", "enabled", default=False),
            note="tag: the cluster's Kubernetes version",
        ),
        split(("grafana", "image"), "docker.io/grafana/grafana:13.2.0", _GRAFANA),
        split(("grafana", "sidecar", "image"), "quay.io/kiwigrid/k8s-sidecar:2.10.1", _GRAFANA),
        split(
            ("grafana", "testFramework", "image"),
            "docker.io/bats/bats:1.14.0",
            _GRAFANA,
            on("grafana", "testFramework", "enabled"),
        ),
        split(
            ("grafana", "initChownData", "image"),
            "docker.io/library/busybox:1.38.0",
            _GRAFANA,
            on("grafana", "initChownData", "enabled", default=False),
        ),
        split(
            ("grafana", "downloadDashboardsImage"),
            "docker.io/curlimages/curl:8.21.0",
            _GRAFANA,
            on("grafana", "downloadDashboards", "enabled", default=False),
        ),
        split(
            ("grafana", "imageRenderer", "image"),
            "docker.io/grafana/grafana-image-renderer:latest",
            _GRAFANA,
            on("grafana", "imageRenderer", "enabled", default=False),
        ),
        split(
            ("kube-state-metrics", "image"),
            "registry.k8s.io/kube-state-metrics/kube-state-metrics:v2.20.0",
            on("kubeStateMetrics", "enabled"),
        ),
        split(
            ("kube-state-metrics", "kubeRBACProxy", "image"),
            "quay.io/brancz/kube-rbac-proxy:v0.22.1",
            on("kubeStateMetrics", "enabled"),
            on("kube-state-metrics", "kubeRBACProxy", "enabled", default=False),
        ),
        split(
            ("prometheus-node-exporter", "image"),
            "quay.io/prometheus/node-exporter:v1.12.1-distroless",
            on("nodeExporter", "enabled"),
        ),
        split(
            ("prometheus-node-exporter", "kubeRBACProxy", "image"),
            "quay.io/brancz/kube-rbac-proxy:v0.22.1",
            on("nodeExporter", "enabled"),
            on("prometheus-node-exporter", "kubeRBACProxy", "enabled", default=False),
        ),
        split(
            ("prometheus-node-exporter", "permissionInitContainer", "image"),
            "quay.io/prometheus/busybox:latest",
            on("nodeExporter", "enabled"),
            on("prometheus-node-exporter", "permissionInitContainer", "enabled", default=False),
        ),
    ),
)
NODE_PROBLEM_DETECTOR = Addon(
    "nodeProblemDetector",
    "node-problem-detector",
    versions.NODE_PROBLEM_DETECTOR,
    "node-problem-detector",  # the chart names its DaemonSet, ConfigMap and ClusterRole after the release
    "observability",
    namespace_owner="Kubernetes' own namespace",
    images=(
        repo(("image",), "registry.k8s.io/node-problem-detector/node-problem-detector:v1.35.1", digest=True),
    ),
)

ADDONS: tuple[Addon, ...] = (
    GPU_OPERATOR,
    KUEUE,
    CERT_MANAGER,
    HAMI,
    KSERVE_CRD,
    KSERVE_RESOURCES,
    KSERVE_RUNTIME_CONFIGS,
    KSERVE_LLMISVC_CRD,
    KSERVE_LLMISVC_RESOURCES,
    ENVOY_GATEWAY_CRDS,
    ENVOY_GATEWAY,
    ENVOY_AI_GATEWAY_CRDS,
    ENVOY_AI_GATEWAY,
    KEDA,
    CLUSTER_AUTOSCALER,
    AWS_EFA_DEVICE_PLUGIN,
    NETWORK_OPERATOR,
    JOBSET,
    LEADER_WORKER_SET,
    TRAINER,
    KUBERAY,
    VOLCANO,
    DRA_DRIVER,
    KARPENTER,
    KARPENTER_CRD,
    SLURM_OPERATOR_CRDS,
    SLURM_OPERATOR,
    SLURM,
    PROMETHEUS_OPERATOR_CRDS,
    KUBE_PROMETHEUS_STACK,
    NODE_PROBLEM_DETECTOR,
)
"""Every Helm release the library installs, once: the add-ons' (``addons.registry``) and the clouds' own
operators' (``clouds.registry``); a test checks each belongs to exactly one of them."""
ALL_CHARTS: tuple[ChartPin, ...] = tuple(a.pin for a in ADDONS)
"""Every chart the library installs, once: the chart table, derived from the releases."""
BY_KEY: dict[str, Addon] = {a.key: a for a in ADDONS}
CHART_IMAGES: dict[str, tuple[ImageSlot, ...]] = {a.chart_name: a.images for a in ADDONS}
"""Chart name -> the images its values name (empty for CRD-only charts): every release's ``images``, keyed the
way a Helm release's ``chart`` names it (the mirror and the policy see charts, not entries)."""

WORKLOAD_CONTROLLERS: tuple[Addon, ...] = tuple(a for a in ADDONS if a.section_key is not None)
"""The controllers of the ``workloads`` section, in creation order (JobSet before Trainer)."""


def addon(key: str) -> Addon:
    return BY_KEY[key]


def reserved_namespaces() -> dict[str, str]:
    """Namespace -> its owner, for every add-on: no team and no inference service may use the namespace of a
    controller or driver the library installs (it would be labelled, queued and garbage-collected as a team's).
    Derived from the registry, so a new add-on reserves its namespace without a second list."""
    out: dict[str, str] = {}
    for a in sorted(ADDONS, key=lambda a: not a.reserves_namespace):
        out.setdefault(a.namespace, a.namespace_owner or f"{a.display}'s namespace")
    return out


def scheduling_namespaces() -> dict[str, str]:
    """Namespace -> its owner, for the gang schedulers and workload controllers (a subset of
    ``reserved_namespaces``): Volcano names them in its own refusal."""
    out: dict[str, str] = {}
    for a in ADDONS:
        if (a.kueue_frameworks or a.gang_scheduler) and not a.reserves_namespace:
            out.setdefault(a.namespace, a.namespace_owner)
    return out


def crd_charts() -> frozenset[str]:
    """Chart names whose release holds CRDs: removing the release removes the data."""
    return frozenset(a.chart_name for a in ADDONS if a.release_holds_crds)
