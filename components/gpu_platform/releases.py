"""Every Helm release the library installs, one entry each: the only list of them.

An entry says what the rest of the library would otherwise spell out per add-on: the chart pin
(``versions``), the release name and namespace, whether removing the release loses CRDs (and with them
every object of those kinds), the Kueue integrations its workloads use, which namespaces teams may not
take, and whether it is a gang scheduler that owns pools. Resolve, plans, stack, the offline diff and
the docs read it; ``docs/adding-an-addon.md`` says what else a new add-on needs.
"""

from __future__ import annotations

from dataclasses import dataclass

from gpu_platform import versions
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


GPU_OPERATOR = Addon(
    "gpuOperator",
    "the GPU Operator",
    versions.GPU_OPERATOR,
    "gpu-operator",
    "gpu-operator",
    reserves_namespace=True,
    namespace_owner="the GPU Operator's namespace",
)
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
)
CERT_MANAGER = Addon(
    "certManager",
    "cert-manager",
    versions.CERT_MANAGER,
    "cert-manager",
    "cert-manager",
    release_holds_crds=True,
    reserves_namespace=True,
    namespace_owner="cert-manager's namespace",
)
HAMI = Addon(
    "hami",
    "HAMi",
    versions.HAMI,
    "hami",
    "hami",
    reserves_namespace=True,
    namespace_owner="HAMi's namespace",
)
KSERVE_CRD = Addon(
    "kserveCrd", "KServe's CRDs", versions.KSERVE_CRD, "kserve-crd", "kserve", release_holds_crds=True
)
KSERVE_RESOURCES = Addon(
    "kserve",
    "KServe",
    versions.KSERVE_RESOURCES,
    "kserve-resources",
    "kserve",
    reserves_namespace=True,
    namespace_owner="KServe's namespace",
)
KSERVE_RUNTIME_CONFIGS = Addon(
    "kserveRuntimeConfigs",
    "KServe's serving runtimes",
    versions.KSERVE_RUNTIME_CONFIGS,
    "kserve-runtime-configs",
    "kserve",
)
KSERVE_LLMISVC_CRD = Addon(
    "kserveLlmisvcCrd",
    "KServe's LLMInferenceService CRDs",
    versions.KSERVE_LLMISVC_CRD,
    "kserve-llmisvc-crd",
    "serving",
    release_holds_crds=True,
)
KSERVE_LLMISVC_RESOURCES = Addon(
    "kserveLlmisvc",
    "KServe's LLMInferenceService controller",
    versions.KSERVE_LLMISVC_RESOURCES,
    "kserve-llmisvc-resources",
    "serving",
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
)
ENVOY_GATEWAY = Addon(
    "envoyGateway",
    "Envoy Gateway",
    versions.ENVOY_GATEWAY,
    "eg",
    "serving",
    namespace_owner="Envoy Gateway's namespace",
)
ENVOY_AI_GATEWAY_CRDS = Addon(
    "envoyAiGatewayCrds",
    "Envoy AI Gateway's CRDs",
    versions.ENVOY_AI_GATEWAY_CRDS,
    "aieg-crd",
    "serving",
    release_holds_crds=True,
    namespace_owner="Envoy AI Gateway's namespace",
)
ENVOY_AI_GATEWAY = Addon(
    "envoyAiGateway",
    "Envoy AI Gateway",
    versions.ENVOY_AI_GATEWAY,
    "aieg",
    "serving",
    namespace_owner="Envoy AI Gateway's namespace",
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
)
CLUSTER_AUTOSCALER = Addon(
    "clusterAutoscaler",
    "the Cluster Autoscaler",
    versions.CLUSTER_AUTOSCALER,
    "cluster-autoscaler",
    "cluster-autoscaler",
)
AWS_EFA_DEVICE_PLUGIN = Addon(
    "efaDevicePlugin",
    "the EFA device plugin",
    versions.AWS_EFA_DEVICE_PLUGIN,
    "aws-efa-k8s-device-plugin",
    "efa-device-plugin",
)
NETWORK_OPERATOR = Addon(
    "networkOperator",
    "the NVIDIA Network Operator",
    versions.NETWORK_OPERATOR,
    "network-operator",
    "network-operator",
    namespace_owner="the NVIDIA Network Operator's namespace",
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
)
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
)
DRA_DRIVER = Addon(
    "draDriver", "the NVIDIA DRA driver", versions.DRA_DRIVER, "dra-driver-nvidia-gpu", "dra-driver"
)
KARPENTER = Addon("karpenter", "Karpenter", versions.KARPENTER, "karpenter", "karpenter")
KARPENTER_CRD = Addon(
    "karpenterCrd",
    "Karpenter's CRDs",
    versions.KARPENTER_CRD,
    "karpenter-crd",
    "karpenter",
    release_holds_crds=True,
)
SLURM_OPERATOR_CRDS = Addon(
    "slurmOperatorCrds",
    "Slinky's CRDs",
    versions.SLURM_OPERATOR_CRDS,
    "slurm-operator-crds",
    "slurm",
    release_holds_crds=True,
    namespace_owner="the Slinky operator's namespace",
)
SLURM_OPERATOR = Addon(
    "slurmOperator",
    "the Slinky slurm-operator",
    versions.SLURM_OPERATOR,
    "slurm-operator",
    "slurm",
    namespace_owner="the Slinky operator's namespace",
)
SLURM = Addon(
    "slurm",
    "Slurm",
    versions.SLURM,
    "slurm",  # the chart names the Controller, NodeSets, LoginSets and services after the release
    "slurm",
    namespace_owner="the Slurm cluster's namespace",
    gang_scheduler=True,
)
PROMETHEUS_OPERATOR_CRDS = Addon(
    "prometheusOperatorCrds",
    "the Prometheus Operator CRDs",
    versions.PROMETHEUS_OPERATOR_CRDS,
    "prometheus-operator-crds",
    "observability",
    release_holds_crds=True,
    namespace_owner="the monitoring stack's namespace",
)
KUBE_PROMETHEUS_STACK = Addon(
    "kubePrometheusStack",
    "kube-prometheus-stack",
    versions.KUBE_PROMETHEUS_STACK,
    "kube-prometheus-stack",  # the chart names Prometheus, its ServiceAccount and services after the release
    "observability",
    namespace_owner="the monitoring stack's namespace",
)
NODE_PROBLEM_DETECTOR = Addon(
    "nodeProblemDetector",
    "node-problem-detector",
    versions.NODE_PROBLEM_DETECTOR,
    "node-problem-detector",  # the chart names its DaemonSet, ConfigMap and ClusterRole after the release
    "observability",
    namespace_owner="Kubernetes' own namespace",
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
