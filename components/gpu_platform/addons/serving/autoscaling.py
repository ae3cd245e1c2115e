"""Autoscaling each model on vLLM's own load signals with KEDA, from the Prometheus the observability add-on plans.

Why KEDA and not the ``LLMInferenceService``'s ``spec.scaling``: at KServe v0.20.0 ``spec.scaling`` requires
``wva`` (CRD rule "wva is required when scaling is configured"), the llm-d Workload Variant Autoscaler, which
the library does not install. KEDA reads any Prometheus, including the clouds' managed ones.

What scales: the ``LLMInferenceService`` has no ``scale`` subresource (its CRD declares only ``status``), so the
``ScaledObject`` targets the Deployment KServe creates for the model, ``<name>-kserve`` (``mainDeploymentName``,
kserve/kserve v0.20.0 ``pkg/controller/v1alpha2/llmisvc/workload_single_node.go``). KServe leaves that
Deployment's replicas alone only while the service's ``spec.replicas`` is unset (``PreserveDeploymentReplicas``,
``workload.go``): an autoscaled model must not set it.

On what: the two signals the endpoint picker itself routes on (gateway-api-inference-extension v1.5.0
``pkg/epp/server/options.go``): ``vllm:num_requests_waiting`` (requests queued in vLLM's scheduler) and
``vllm:kv_cache_usage_perc`` (the share of the KV cache in use, 0-1; the name vLLM's V1 engine exports, earlier
``vllm:gpu_cache_usage_perc``). Each is summed over the model's pods and divided by a per-replica target, so the
replica count is ``max(ceil(waiting / 5), ceil(kv / 0.8))``: 5 and 0.8 are the endpoint picker's own saturation
thresholds (``DefaultQueueDepthThreshold``, ``DefaultKVCacheUtilThreshold``,
``pkg/epp/framework/plugins/flowcontrol/saturationdetector/utilization/config.go``), so capacity is added before
the picker counts every replica saturated.

Scale to zero: not on these signals. A model at zero replicas has no pod exporting them, so nothing would ever
scale it back, and KServe's Standard mode has no scale-from-zero on HTTP (KServe docs, "Kubernetes deployment").
So ``min_replicas: 0`` is refused unless the model has ``ServingHours``: a KEDA ``cron`` trigger keeps
``ServingHours.replicas`` up inside the window, and outside it the model goes to zero (and, where its pool's
``min_nodes`` is 0, the autoscaler removes the GPU nodes). Any cloud allows it; requests outside the window fail.

Where the metrics are read (``prometheus_source``, one per ``observability.backend``):

- ``kube-prometheus-stack`` and ``amazon-managed-prometheus`` (which runs the same Prometheus in the cluster and
  remote-writes to the workspace): the in-cluster Prometheus, ``http://kube-prometheus-stack-prometheus.<ns>:9090``;
- ``prometheus-operator``: the cluster's own Prometheus, whose URL the caller gives;
- ``gke-managed-prometheus``: Managed Service for Prometheus' query API,
  ``https://monitoring.googleapis.com/v1/projects/<project>/location/global/prometheus``, with KEDA's ``gcp`` pod
  identity (KEDA docs, Prometheus scaler, "Google Managed Prometheus");
- ``azure-managed-prometheus``: the Azure Monitor workspace's query endpoint with KEDA's ``azure-workload`` pod
  identity (KEDA docs, Prometheus scaler, "Azure Monitor Managed Service for Prometheus").

For the managed backends KEDA's operator needs read access as a cloud identity. Where the cloud's profile
describes its reader (``CloudProfile.metrics_reader``: GKE's), ``reader_source`` plans all of it: the query URL,
the ``TriggerAuthentication``'s pod identity provider, the KEDA chart values that bind the operator's service account
(``keda-operator`` in KEDA's namespace) to the cloud identity, and the grant (``ReaderGrant``) the cloud's stack
creates where it creates the cluster; on a cluster made elsewhere the grant is in ``requires`` as the cloud's
commands. ``prometheus_source`` plans a managed backend's query and pod identity only, its grant in ``requires``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from gpu_platform import versions
from gpu_platform.addons.serving.gateway import MODEL_SERVER_PORT, SELECTOR_LABELS, ReleasePlan, kserve_names
from gpu_platform.addons.workloads.plan import Placement, controller_placement
from gpu_platform.cloud_facts.profile import MetricsReader
from gpu_platform.plans.helm import deep_merge
from gpu_platform.releases import KUBE_PROMETHEUS_STACK

KEDA_API = "keda.sh/v1alpha1"
KEDA_RELEASE_NAME = "keda"
WAITING_METRIC = "vllm:num_requests_waiting"
KV_CACHE_METRIC = "vllm:kv_cache_usage_perc"
QUEUE_PER_REPLICA = 5
"""Waiting requests per replica before another is added: the endpoint picker's ``DefaultQueueDepthThreshold``."""
KV_CACHE_TARGET = 0.8
"""KV-cache use per replica before another is added: the endpoint picker's ``DefaultKVCacheUtilThreshold``."""
POLLING_SECONDS = 15
SCALE_DOWN_WINDOW_SECONDS = 600
"""How long the load must stay low before a replica goes: a GPU replica takes minutes to come back (weights load,
CUDA graphs), so the HPA's default 300 s is doubled."""
PROMETHEUS_PORT = 9090
METRICS_PATH = "/metrics"
WORKLOAD_PORT_NAME = "http"
"""The port name of KServe's ``<name>-kserve-workload-svc`` (``https`` with KServe's LLM TLS on; ``workload.go``)."""

KEDA_OPERATOR_ACCOUNT = "keda-operator"
"""The operator's service account (kedacore/charts v2.20.2 ``keda/values.yaml`` ``serviceAccount.operator.name``):
the scalers, and so the pod identity, run in the operator."""

IN_CLUSTER = ("kube-prometheus-stack", "amazon-managed-prometheus")
BACKENDS = (*IN_CLUSTER, "prometheus-operator", "gke-managed-prometheus", "azure-managed-prometheus")


@dataclass(frozen=True)
class ReaderGrant:
    """The cloud identity KEDA's operator reads a managed Prometheus as, and what it is granted: the cloud's stack
    creates it where it creates the cluster (``clouds/<cloud>/metrics_reader.py``)."""

    account: str
    """The identity's name (a Google service account's ID)."""
    identity: str
    """Its full name (the service account's email)."""
    role: str
    """The role granted on ``project``."""
    project: str
    """Where the metrics are (the Google Cloud project)."""
    namespace: str
    """KEDA's namespace, where its operator's service account is."""
    service_account: str = KEDA_OPERATOR_ACCOUNT


@dataclass(frozen=True)
class PrometheusSource:
    """Where KEDA reads the model servers' metrics, and how it authenticates there."""

    backend: str
    server_address: str
    pod_identity: dict[str, Any] | None = None
    """A ``TriggerAuthentication``'s ``spec.podIdentity`` (managed backends), else ``None``."""
    requires: tuple[str, ...] = ()
    keda_values: Mapping[str, Any] = field(default_factory=dict)
    """KEDA chart values that give its operator the cloud identity (``podIdentity.*``); empty in-cluster."""
    grant: ReaderGrant | None = None
    """The identity and role the cloud's stack creates (a cluster it creates); ``None``: nothing to create."""

    @property
    def deferred(self) -> bool:
        """The query URL (and the identity the chart values name) are known only once the cloud's stack has
        created the workspace and the identity: ``resolved_source`` fills them in at deploy time."""
        return not self.server_address


@dataclass(frozen=True)
class ServingHours:
    """When a model that may scale to zero is kept up: a KEDA ``cron`` trigger (``start``/``end`` are cron
    expressions in ``timezone``, an IANA name)."""

    timezone: str
    start: str
    end: str
    replicas: int = 1


@dataclass(frozen=True)
class ModelAutoscaling:
    """One model's autoscaling: what scrapes it, how KEDA authenticates, and its ScaledObject."""

    scaled_object: dict[str, Any]
    scrape: dict[str, Any]
    """The model's ``ServiceMonitor`` (Prometheus Operator or the AKS add-on's group) or ``PodMonitoring`` (GKE)."""
    trigger_authentication: dict[str, Any] | None = None

    @property
    def objects(self) -> tuple[dict[str, Any], ...]:
        """In creation order: the scrape, the authentication, the ScaledObject."""
        auth = (self.trigger_authentication,) if self.trigger_authentication else ()
        return (self.scrape, *auth, self.scaled_object)


def keda_release(
    cloud: str, placement: Placement | None = None, identity: Mapping[str, Any] | None = None
) -> ReleasePlan:
    """KEDA's chart: its operator, metrics server and webhooks off the GPU nodes; its CRDs are chart templates.
    ``identity``: values binding the operator to a cloud identity (``PrometheusSource.keda_values``)."""
    placement = placement if placement is not None else controller_placement(cloud)
    values: dict[str, Any] = {"image": {"pullPolicy": "IfNotPresent"}, **placement.pod_values()}
    if identity:
        values = deep_merge(values, dict(identity))
    return ReleasePlan(
        "keda",
        versions.KEDA,
        KEDA_RELEASE_NAME,
        versions.KEDA.namespace,
        values,
        holds_crds=True,
    )


def reader_source(
    reader: MetricsReader,
    project: str | None,
    *,
    cluster_created: bool,
    cluster_name: str = "",
    resource_group: str = "",
) -> PrometheusSource:
    """KEDA reading the cloud's managed Prometheus (``reader.backend``) as the cloud identity ``reader`` describes:
    the query URL, the pod identity provider, the chart values binding the operator to the identity, and the grant,
    created by the cloud's stack when ``cluster_created`` (or where the reader says the identity is created for an
    attached cluster too), else required as the cloud's commands. ``project``: where the metrics are (the
    reader's ``scope_setting``). A URL or identity known only once the workspace or identity exists is left for
    the stack (``deferred``, ``resolved``)."""
    names = {
        "project": project or "",
        "account": reader.account,
        "role": reader.role,
        "namespace": versions.KEDA.namespace,
        "service_account": KEDA_OPERATOR_ACCOUNT,
        "cluster": cluster_name,
        "resource_group": resource_group,
    }
    account = reader.account.format(**names)
    names["account"] = account
    identity = reader.identity.format(**names) if reader.identity is not None else ""
    names["identity"] = identity
    created = cluster_created or reader.created_on_attached
    grant = ReaderGrant(account, identity, reader.role, project or "", versions.KEDA.namespace)
    requires: tuple[str, ...] = ()
    if not created:
        requires = (
            f"KEDA's operator ({versions.KEDA.namespace}/{KEDA_OPERATOR_ACCOUNT}) bound to {identity} holding "
            f"{reader.role} on {project}, which the stack creates only on a cluster it creates: "
            + "; ".join(c.format(**names) for c in reader.grant_commands),
        )
    if not cluster_created:
        requires += tuple(r.format(**names) for r in reader.attached_requires)
    return PrometheusSource(
        reader.backend,
        reader.query_url.format(**names) if reader.query_url is not None else "",
        {"provider": reader.pod_identity},
        requires,
        reader.keda_values(identity) if reader.identity is not None else {},
        grant if created else None,
    )


def resolved_source(
    source: PrometheusSource, reader: MetricsReader, facts: Mapping[str, Any]
) -> PrometheusSource:
    """``source`` with what the cloud's stack knows once the workspace and identity exist (``facts``:
    ``server_address``, the query URL, and ``identity``, what ``reader.keda_values`` takes; values may be
    Outputs)."""
    return replace(
        source,
        server_address=facts["server_address"],
        keda_values=reader.keda_values(facts["identity"]),
    )


def in_cluster_prometheus(monitoring_namespace: str) -> str:
    """kube-prometheus-stack's Prometheus Service (``<release>-prometheus``, port 9090) in the monitoring namespace."""
    return (
        f"http://{KUBE_PROMETHEUS_STACK.release_name}-prometheus.{monitoring_namespace}.svc:{PROMETHEUS_PORT}"
    )


def prometheus_source(
    backend: str,
    *,
    monitoring_namespace: str = "monitoring",
    server_address: str | None = None,
    gcp_project: str | None = None,
    azure_query_endpoint: str | None = None,
) -> PrometheusSource:
    """Where KEDA queries for ``backend`` (``observability.backend``); ``server_address`` overrides it (required for
    ``prometheus-operator``), ``gcp_project`` is required for GKE's, ``azure_query_endpoint`` (the Azure Monitor
    workspace's Prometheus query endpoint) for Azure's."""
    if backend not in BACKENDS:
        raise ValueError(f"observability backend {backend!r} is not one of {', '.join(BACKENDS)}")
    if backend in IN_CLUSTER:
        return PrometheusSource(backend, server_address or in_cluster_prometheus(monitoring_namespace))
    if backend == "prometheus-operator":
        if not server_address:
            raise ValueError(
                "autoscaling with observability backend 'prometheus-operator' needs the cluster's Prometheus URL "
                "(the library does not install that Prometheus)"
            )
        return PrometheusSource(backend, server_address)
    if backend == "gke-managed-prometheus":
        if not (server_address or gcp_project):
            raise ValueError(
                "autoscaling on gke-managed-prometheus needs the Google Cloud project the metrics are in"
            )
        return PrometheusSource(
            backend,
            server_address
            or f"https://monitoring.googleapis.com/v1/projects/{gcp_project}/location/global/prometheus",
            {"provider": "gcp"},
            (
                "KEDA's operator service account bound to a Google service account with roles/monitoring.viewer "
                "(Workload Identity)",
            ),
        )
    if not (server_address or azure_query_endpoint):
        raise ValueError(
            "autoscaling on azure-managed-prometheus needs the Azure Monitor workspace's query endpoint"
        )
    return PrometheusSource(
        backend,
        str(server_address or azure_query_endpoint),
        {"provider": "azure-workload"},
        (
            "KEDA's operator with an Azure workload identity (chart podIdentity.azureWorkload) holding Monitoring "
            "Data Reader on the Azure Monitor workspace",
        ),
    )


def pod_selector(name: str) -> str:
    """PromQL label matchers for the pods of ``<name>-kserve`` only: ReplicaSet pods are ``<deployment>-<hash>-
    <suffix>``, so the EPP (``-kserve-router-scheduler-``) and prefill (``-kserve-prefill-``) pods do not match."""
    return f'pod=~"{kserve_names(name)["deployment"]}-[a-z0-9]+-[a-z0-9]+"'


def queries(name: str, namespace: str) -> dict[str, str]:
    """The two PromQL queries: each a single sample, summed over the model's pods."""
    where = f'namespace="{namespace}",{pod_selector(name)}'
    return {
        "queue": f"sum({WAITING_METRIC}{{{where}}})",
        "kv-cache": f"sum({KV_CACHE_METRIC}{{{where}}})",
    }


def scrape(name: str, namespace: str, backend: str) -> dict[str, Any]:
    """What collects vLLM's ``/metrics`` from the model's pods: a ``ServiceMonitor`` on KServe's workload Service
    (Prometheus Operator; on AKS the metrics add-on's ``azmonitoring.coreos.com`` group), a ``PodMonitoring`` on the
    pods on GKE's managed collection (which has no ServiceMonitor)."""
    labels = {
        "app.kubernetes.io/name": name,
        "app.kubernetes.io/part-of": SELECTOR_LABELS["app.kubernetes.io/part-of"],
    }
    meta = {"name": f"{name}-vllm", "namespace": namespace}
    if backend == "gke-managed-prometheus":
        return {
            "apiVersion": "monitoring.googleapis.com/v1",
            "kind": "PodMonitoring",
            "metadata": meta,
            "spec": {
                "selector": {"matchLabels": {**labels, **SELECTOR_LABELS}},
                "endpoints": [
                    {"port": MODEL_SERVER_PORT, "path": METRICS_PATH, "interval": f"{POLLING_SECONDS}s"}
                ],
            },
        }
    group = (
        "azmonitoring.coreos.com/v1" if backend == "azure-managed-prometheus" else "monitoring.coreos.com/v1"
    )
    return {
        "apiVersion": group,
        "kind": "ServiceMonitor",
        "metadata": meta,
        "spec": {
            "selector": {"matchLabels": labels},
            "endpoints": [
                {"port": WORKLOAD_PORT_NAME, "path": METRICS_PATH, "interval": f"{POLLING_SECONDS}s"}
            ],
        },
    }


def _prometheus_trigger(
    name: str, query: str, threshold: str, source: PrometheusSource, auth: str | None
) -> dict[str, Any]:
    trigger: dict[str, Any] = {
        "type": "prometheus",
        "name": name,
        "metadata": {"serverAddress": source.server_address, "query": query, "threshold": threshold},
    }
    if auth:
        trigger["authenticationRef"] = {"name": auth}
    return trigger


def _check_bounds(
    name: str,
    min_replicas: int,
    max_replicas: int,
    queue_per_replica: int,
    kv_cache_target: float,
    serving_hours: ServingHours | None,
) -> None:
    """``ValueError`` naming what is wrong with model ``name``'s replica bounds, serving hours or targets."""
    if min_replicas < 0 or max_replicas < 1 or min_replicas > max_replicas:
        raise ValueError(
            f"model {name!r}: min_replicas {min_replicas} and max_replicas {max_replicas} must satisfy "
            "0 <= min_replicas <= max_replicas, max_replicas >= 1"
        )
    if min_replicas == 0 and serving_hours is None:
        raise ValueError(
            f"model {name!r}: min_replicas 0 needs serving hours: at zero replicas no vLLM pod exports the queue and "
            "KV-cache metrics that would scale it back up, and KServe has no scale-from-zero on requests"
        )
    if serving_hours is not None and not 1 <= serving_hours.replicas <= max_replicas:
        raise ValueError(
            f"model {name!r}: serving hours keep {serving_hours.replicas} replicas, not within 1..{max_replicas}"
        )
    if queue_per_replica < 1 or not 0 < kv_cache_target <= 1:
        raise ValueError(
            f"model {name!r}: queue per replica must be >= 1 and the KV-cache target within (0, 1]"
        )


def _triggers(
    name: str,
    namespace: str,
    prometheus: PrometheusSource,
    auth_name: str | None,
    queue_per_replica: int,
    kv_cache_target: float,
    serving_hours: ServingHours | None,
) -> list[dict[str, Any]]:
    """The queue and KV-cache Prometheus triggers, and the serving-hours cron trigger when there is one."""
    q = queries(name, namespace)
    triggers = [
        _prometheus_trigger("queue", q["queue"], str(queue_per_replica), prometheus, auth_name),
        _prometheus_trigger("kv-cache", q["kv-cache"], str(kv_cache_target), prometheus, auth_name),
    ]
    if serving_hours is not None:
        triggers.append(
            {
                "type": "cron",
                "name": "serving-hours",
                "metadata": {
                    "timezone": serving_hours.timezone,
                    "start": serving_hours.start,
                    "end": serving_hours.end,
                    "desiredReplicas": str(serving_hours.replicas),
                },
            }
        )
    return triggers


def _scaled_object_spec(
    name: str, min_replicas: int, max_replicas: int, triggers: list[dict[str, Any]]
) -> dict[str, Any]:
    """The ScaledObject ``spec``: the model's KServe Deployment, its bounds, polling and scale-down window."""
    spec: dict[str, Any] = {
        "scaleTargetRef": {
            "apiVersion": "apps/v1",
            "kind": "Deployment",
            "name": kserve_names(name)["deployment"],
        },
        "minReplicaCount": min_replicas,
        "maxReplicaCount": max_replicas,
        "pollingInterval": POLLING_SECONDS,
        "advanced": {
            "horizontalPodAutoscalerConfig": {
                "behavior": {"scaleDown": {"stabilizationWindowSeconds": SCALE_DOWN_WINDOW_SECONDS}}
            }
        },
        "triggers": triggers,
    }
    if min_replicas == 0:
        spec["cooldownPeriod"] = SCALE_DOWN_WINDOW_SECONDS
    return spec


def model_autoscaling(
    name: str,
    namespace: str,
    *,
    min_replicas: int,
    max_replicas: int,
    prometheus: PrometheusSource,
    queue_per_replica: int = QUEUE_PER_REPLICA,
    kv_cache_target: float = KV_CACHE_TARGET,
    serving_hours: ServingHours | None = None,
) -> ModelAutoscaling:
    """The ScaledObject for ``LLMInferenceService`` ``name`` in ``namespace``, its scrape object and (managed
    Prometheus) its TriggerAuthentication. ``ValueError`` names what is wrong with the bounds."""
    _check_bounds(name, min_replicas, max_replicas, queue_per_replica, kv_cache_target, serving_hours)
    auth_name = f"{name}-prometheus" if prometheus.pod_identity else None
    triggers = _triggers(
        name, namespace, prometheus, auth_name, queue_per_replica, kv_cache_target, serving_hours
    )
    auth = None
    if prometheus.pod_identity and auth_name:
        auth = {
            "apiVersion": KEDA_API,
            "kind": "TriggerAuthentication",
            "metadata": {"name": auth_name, "namespace": namespace},
            "spec": {"podIdentity": dict(prometheus.pod_identity)},
        }
    return ModelAutoscaling(
        scaled_object={
            "apiVersion": KEDA_API,
            "kind": "ScaledObject",
            "metadata": {"name": name, "namespace": namespace},
            "spec": _scaled_object_spec(name, min_replicas, max_replicas, triggers),
        },
        scrape=scrape(name, namespace, prometheus.backend),
        trigger_authentication=auth,
    )
