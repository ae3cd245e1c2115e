"""Where each chart the library installs names its images in its values, and which image each is at the pin.

Read from each chart's ``values.yaml`` (and ``Chart.yaml`` ``appVersion`` where a tag defaults to it) at the
version pinned in ``versions``; ``tests/test_chart_images.py`` checks every entry against the vendored chart, and
``tests/stack/test_mirror.py`` renders every release with a mirror set, so an image left out fails. The mirror
(``plans.mirror``) rewrites the repository (and registry) keys named here; the ``gpu-platform mirror`` listing
reads the images from the same table.
"""

from __future__ import annotations

from dataclasses import dataclass

Path = tuple[str, ...]
Condition = tuple[Path, bool]
"""A values path that must be true for the chart to run an image, and the chart's default for it."""


@dataclass(frozen=True)
class ImageSlot:
    """One image a chart's values name."""

    at: Path
    """The values mapping that names the image; ``*`` stands for every key of a map (Slurm's NodeSets)."""
    source: str
    """The image when the values leave it to the chart, written as the chart composes it
    (``<registry>/<path>:<tag>``; the registry first when ``registry`` is set)."""
    repository: str = "repository"
    """Key of the repository, or with ``name`` the prefix the name is appended to (``nvcr.io/nvidia``); with
    ``registry``, the path inside the registry; with ``whole``, the whole reference, tag included."""
    tag: str | None = "tag"
    registry: str | None = None
    """Key of a registry the chart puts before the repository (``quay.io``)."""
    name: str | None = None
    """Key of an image name the chart appends to the repository (the GPU Operator's ``image``)."""
    digest: str | None = None
    whole: bool = False
    when: tuple[Condition, ...] = ()
    """Values that must all be true for the chart to run the image (the listing leaves it out otherwise)."""
    note: str = ""
    """What a mirror must hold besides the tag shown (tags the operator derives per node)."""


def nvidia(at: Path, source: str, *when: Condition, note: str = "") -> ImageSlot:
    """NVIDIA's operator charts: ``repository`` (registry and path) + ``image`` (name) + ``version`` (tag)."""
    return ImageSlot(at, source, name="image", tag="version", when=when, note=note)


def split(at: Path, source: str, *when: Condition, note: str = "") -> ImageSlot:
    """``registry`` + ``repository`` (path) + ``tag`` (kube-prometheus-stack and its subcharts, Trainer)."""
    return ImageSlot(at, source, registry="registry", when=when, note=note)


def repo(at: Path, source: str, *when: Condition, key: str = "repository", digest: bool = False) -> ImageSlot:
    """``repository`` (registry and path) + ``tag``."""
    return ImageSlot(at, source, repository=key, digest="digest" if digest else None, when=when)


def on(*path: str, default: bool = True) -> Condition:
    return (tuple(path), default)


_NV = "nvcr.io/nvidia"
_NVCN = "nvcr.io/nvidia/cloud-native"
_OS_SUFFIX = "tag suffixed with the node's OS (-ubuntu22.04, -ubuntu24.04, -rhel9.6, ...) by the operator"
_SANDBOX = on("sandboxWorkloads", "enabled", default=False)
GPU_OPERATOR_IMAGES = (
    # NVIDIA/gpu-operator deployments/gpu-operator/values.yaml at v26.7.0; operator and validator default to the
    # chart's appVersion, NFD to its subchart's (v0.19.0).
    nvidia(("operator",), f"{_NV}/gpu-operator:v26.7.0"),
    nvidia(("validator",), f"{_NV}/gpu-operator:v26.7.0"),
    nvidia(("driver",), f"{_NV}/driver:595.91.07", on("driver", "enabled"), note=_OS_SUFFIX),
    nvidia(("driver", "manager"), f"{_NVCN}/k8s-driver-manager:v0.12.0", on("driver", "enabled")),
    nvidia(("toolkit",), f"{_NV}/k8s/container-toolkit:v1.20.0", on("toolkit", "enabled")),
    nvidia(("devicePlugin",), f"{_NV}/k8s-device-plugin:v0.20.0", on("devicePlugin", "enabled")),
    nvidia(("dcgm",), f"{_NVCN}/dcgm:4.6.0-1-ubuntu24.04", on("dcgm", "enabled", default=False)),
    nvidia(
        ("dcgmExporter",), f"{_NV}/k8s/dcgm-exporter:4.6.0-4.8.3-distroless", on("dcgmExporter", "enabled")
    ),
    nvidia(("gfd",), f"{_NV}/k8s-device-plugin:v0.20.0", on("gfd", "enabled")),
    nvidia(("migManager",), f"{_NVCN}/k8s-mig-manager:v0.15.0", on("migManager", "enabled")),
    nvidia(
        ("nodeStatusExporter",),
        f"{_NV}/gpu-operator:v26.7.0",
        on("nodeStatusExporter", "enabled", default=False),
    ),
    nvidia(("gds",), f"{_NVCN}/nvidia-fs:2.29.4", on("gds", "enabled", default=False), note=_OS_SUFFIX),
    nvidia(("gdrcopy",), f"{_NVCN}/gdrdrv:v2.6", on("gdrcopy", "enabled", default=False), note=_OS_SUFFIX),
    nvidia(("vgpuManager", "driverManager"), f"{_NVCN}/k8s-driver-manager:v0.12.0", _SANDBOX),
    nvidia(("vgpuDeviceManager",), f"{_NVCN}/vgpu-device-manager:v0.5.0", _SANDBOX),
    nvidia(("vfioManager",), f"{_NVCN}/k8s-driver-manager:v0.12.0", _SANDBOX),
    nvidia(("vfioManager", "driverManager"), f"{_NVCN}/k8s-driver-manager:v0.12.0", _SANDBOX),
    nvidia(("sandboxDevicePlugin",), f"{_NV}/kubevirt-gpu-device-plugin:v1.6.0", _SANDBOX),
    nvidia(("kataSandboxDevicePlugin",), f"{_NVCN}/nvidia-sandbox-device-plugin:v0.0.5", _SANDBOX),
    nvidia(("ccManager",), f"{_NVCN}/k8s-cc-manager:v0.4.3", on("ccManager", "enabled")),
    nvidia(("draDriver",), f"{_NV}/dra-driver-nvidia-gpu:v0.5.0", on("draDriver", "enabled", default=False)),
    repo(
        ("node-feature-discovery", "image"),
        "registry.k8s.io/nfd/node-feature-discovery:v0.19.0",
        on("nfd", "enabled"),
    ),
)
"""``vgpuManager`` has no default image (NVIDIA's vGPU driver is built by its user), so it is not here."""

_JETSTACK = "quay.io/jetstack/cert-manager"
CERT_MANAGER_IMAGES = tuple(
    # cert-manager/cert-manager deploy/charts/cert-manager/values.yaml at v1.21.1: ``image.repository`` wins over
    # ``imageRegistry``/``imageNamespace``/``image.name``; tags default to the appVersion.
    repo(at, f"{_JETSTACK}-{name}:v1.21.1", *when)
    for at, name, when in (
        (("image",), "controller", ()),
        (("webhook", "image"), "webhook", ()),
        (("cainjector", "image"), "cainjector", (on("cainjector", "enabled"),)),
        (("acmesolver", "image"), "acmesolver", ()),
        (("startupapicheck", "image"), "startupapicheck", (on("startupapicheck", "enabled"),)),
    )
)

_STAGING = "us-central1-docker.pkg.dev/k8s-staging-images"
KUEUE_IMAGES = (
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
)


def _kserve(at: Path, image: str, *when: Condition) -> ImageSlot:
    """KServe's ``image`` (a Docker Hub name) + ``tag`` (default ``kserve.version``)."""
    return ImageSlot(at, f"{image}:v0.20.0", repository="image", when=when)


_LOCALMODEL = on("kserve", "localmodel", "enabled", default=False)
KSERVE_RESOURCES_IMAGES = (
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
)
KSERVE_RUNTIME_IMAGES = tuple(
    # kserve/kserve charts/kserve-runtime-configs/values.yaml at v0.20.0: an empty tag is ``kserve.version``;
    # the multi-node Hugging Face runtime runs ``huggingfaceserver`` with the tag suffixed ``-gpu``.
    ImageSlot(
        ("kserve", "servingruntime", runtime),
        f"{image}:{tag}",
        repository="image",
        when=(on("kserve", "servingruntime", "enabled", default=False),),
        note="also the tag suffixed -gpu (the multi-node runtime)" if runtime == "huggingfaceserver" else "",
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
)

_VOLCANO = tuple(
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
)

_SLINKY = "ghcr.io/slinkyproject"
_SLURM_TAG = "26.05-ubuntu26.04"
_ALPINE = "docker.io/library/alpine:latest"
SLURM_IMAGES = (
    # SlinkyProject/slurm-operator helm/slurm/values.yaml at v1.2.1; each NodeSet and LoginSet the values add is
    # laid over nodesetDefaults / loginsetDefaults.
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
)

_KPS_ALERTMANAGER = on("alertmanager", "enabled")
_GRAFANA = on("grafana", "enabled")
KUBE_PROMETHEUS_STACK_IMAGES = (
    # prometheus-community/helm-charts kube-prometheus-stack 88.5.3 values.yaml (operator tags default to its
    # appVersion v0.93.1) and its subcharts grafana 12.11.1, kube-state-metrics 8.4.0, prometheus-node-exporter
    # 4.56.1 (tags default to each appVersion).
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
)

_TRAINER = "ghcr.io/kubeflow/trainer"
TRAINER_IMAGES = (
    # kubeflow/trainer charts/kubeflow-trainer/values.yaml at v2.3.0: tags default to ``v`` + the appVersion.
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
)

_NVMLX = "nvcr.io/nvidia/mellanox"
NETWORK_OPERATOR_IMAGES = (
    # Mellanox/network-operator deployment/network-operator/values.yaml at v26.4.1 (the operator's tag defaults
    # to the appVersion) and its subcharts at the same release.
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
)

HAMI_IMAGES = (
    # Project-HAMi/HAMi charts/hami/values.yaml at v2.10.0: ``registry`` + ``repository`` + ``tag``; an empty tag
    # is ``global.imageTag`` for HAMi's own images and the cluster's version for kube-scheduler (the library pins
    # both: ``addons.hami.plan``).
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
)

CHART_IMAGES: dict[str, tuple[ImageSlot, ...]] = {
    "gpu-operator": GPU_OPERATOR_IMAGES,
    "kueue": KUEUE_IMAGES,
    "cert-manager": CERT_MANAGER_IMAGES,
    "hami": HAMI_IMAGES,
    "kserve-crd": (),
    "kserve-resources": KSERVE_RESOURCES_IMAGES,
    "kserve-runtime-configs": KSERVE_RUNTIME_IMAGES,
    # kserve/kserve charts/kserve-llmisvc-resources/values.yaml at v0.20.0: the controller's image + tag (default
    # ``kserve.version``); the agent, router and storage images there are the shared resources' (kserve-resources).
    "kserve-llmisvc-crd": (),
    "kserve-llmisvc-resources": (_kserve(("kserve", "llmisvc", "controller"), "kserve/llmisvc-controller"),),
    # envoyproxy/gateway charts/gateway-helm at v1.8.1, ``values.tmpl.yaml`` as its release publishes it
    # (``tools/make/helm.mk`` writes values.yaml; ``tests/support/helm.PUBLISHED_VALUES``). The controller (and its
    # certgen Job and the proxies' shutdown manager, ``eg.image``): ``deployment.envoyGateway.image`` wins over
    # ``global.images.envoyGateway``, an empty tag is the appVersion. The Envoy proxy each Gateway runs and the rate
    # limit service: whole references in ``global.images``, written into the EnvoyGateway configuration
    # (``eg.default-envoy-gateway-config``); an empty proxy image leaves Envoy Gateway's built-in one
    # (``DefaultEnvoyProxyImage``/``DefaultRateLimitImage``, ``api/v1alpha1/shared_types.go`` at v1.8.1). The rate
    # limit service runs only when rate limiting is configured (the library configures none).
    "gateway-crds-helm": (),
    "gateway-helm": (
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
    # envoyproxy/ai-gateway manifests/charts/ai-gateway-helm at v1.0.0: an empty tag is the appVersion.
    "ai-gateway-crds-helm": (),
    "ai-gateway-helm": (
        repo(("controller", "image"), "docker.io/envoyproxy/ai-gateway-controller:v1.0.0"),
        repo(("extProc", "image"), "docker.io/envoyproxy/ai-gateway-extproc:v1.0.0"),
    ),
    # kedacore/charts keda 2.20.2: registry + repository + tag (empty: the appVersion).
    "keda": (
        split(("image", "keda"), "ghcr.io/kedacore/keda:2.20.2"),
        split(("image", "metricsApiServer"), "ghcr.io/kedacore/keda-metrics-apiserver:2.20.2"),
        split(("image", "webhooks"), "ghcr.io/kedacore/keda-admission-webhooks:2.20.2"),
    ),
    "cluster-autoscaler": (repo(("image",), "registry.k8s.io/autoscaling/cluster-autoscaler:v1.35.0"),),
    "aws-efa-k8s-device-plugin": (
        repo(
            ("image",), "602401143452.dkr.ecr.us-west-2.amazonaws.com/eks/aws-efa-k8s-device-plugin:v0.5.20"
        ),
    ),
    "network-operator": NETWORK_OPERATOR_IMAGES,
    "jobset": (repo(("image",), f"{_STAGING}/jobset/jobset:main"),),
    "lws": (repo(("image", "manager"), "registry.k8s.io/lws/lws:main"),),
    "kubeflow-trainer": TRAINER_IMAGES,
    "kuberay-operator": (repo(("image",), "quay.io/kuberay/operator:v1.7.0"),),
    "volcano": _VOLCANO,
    "dra-driver-nvidia-gpu": (
        repo(("image",), "registry.k8s.io/dra-driver-nvidia/dra-driver-nvidia-gpu:v0.4.1"),
    ),
    "karpenter": (
        repo(
            ("controller", "image"),
            "public.ecr.aws/karpenter/controller:1.13.0@sha256:ea731b0cd813add8b2947a76bfe861c38069d85922b01d0c1647d1466279b7fe",
            digest=True,
        ),
    ),
    "karpenter-crd": (),
    "slurm-operator-crds": (),
    "slurm-operator": (
        repo(("operator", "image"), f"{_SLINKY}/slurm-operator:1.2.1", digest=True),
        repo(
            ("webhook", "image"),
            f"{_SLINKY}/slurm-operator-webhook:1.2.1",
            on("webhook", "enabled"),
            digest=True,
        ),
    ),
    "slurm": SLURM_IMAGES,
    "prometheus-operator-crds": (),
    "kube-prometheus-stack": KUBE_PROMETHEUS_STACK_IMAGES,
    "node-problem-detector": (
        repo(("image",), "registry.k8s.io/node-problem-detector/node-problem-detector:v1.35.1", digest=True),
    ),
}
"""Chart name -> the images its values name (empty for CRD-only charts). Every chart of ``releases.ADDONS``."""
