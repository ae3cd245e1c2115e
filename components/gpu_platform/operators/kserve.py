"""KServe from its pinned OCI charts, in ``Standard`` mode by default: no Knative, no Istio.

Three ``helm.v3.Release``s, in order: ``kserve-crd`` (the CRDs), ``kserve-resources`` (controller,
webhooks, ``inferenceservice-config``), and ``kserve-runtime-configs`` (the ClusterServingRuntimes,
e.g. ``kserve-huggingfaceserver``, which the webhooks of the second release validate). The
controller's webhook certificate comes from cert-manager, so the resources release waits for
whatever the component was told to depend on (``deploy_kserve`` passes the ``CertManager``).

Deployment modes (GPU_PLATFORM_FACTS.md section 7):

- ``Standard`` (default; formerly ``RawDeployment``): a Deployment, Service and HPA per predictor.
  Needs cert-manager and, for traffic from outside the cluster, an Ingress controller or a Gateway
  API implementation. Without ``ingress_class_name`` the library turns Ingress creation off, since
  the chart's default class (``istio``) would only make Ingresses nothing serves; predictors are
  then reached in-cluster through their Services. Scale-from-zero on HTTP is not available.
- ``Knative`` (formerly ``Serverless``): scale to zero and revisions. Needs Knative Serving and a
  networking layer (Istio, or Kourier/Contour with ``kserve.controller.gateway.disableIstioVirtualHost``
  set through ``values``), installed outside this library. GPU predictors carry ``nodeSelector`` and
  ``tolerations``, which Knative refuses unless its ``config-features`` ConfigMap enables
  ``kubernetes.podspec-nodeselector``, ``kubernetes.podspec-tolerations`` (and
  ``kubernetes.podspec-affinity`` for affinity); without them no GPU predictor can be placed.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, NotRequired, TypedDict

import pulumi
import pulumi_kubernetes as k8s

from gpu_platform import versions
from gpu_platform.config import ConfigError
from gpu_platform.operators.cert_manager import CertManager, dependencies
from gpu_platform.operators.helm import deep_merge

if TYPE_CHECKING:
    from gpu_platform.config import PlatformSpec

DEPLOYMENT_MODES = ("Standard", "Knative")
DEFAULT_DEPLOYMENT_MODE = "Standard"
"""The chart's own default is ``Knative``; the library installs ``Standard`` unless told otherwise."""

KSERVE_NAMESPACE_LABELS = {"control-plane": "kserve-controller-manager", "controller-tools.k8s.io": "1.0"}
"""KServe's pod-mutating webhook skips namespaces labelled ``control-plane`` (its own, upstream
``config/default`` namespace labels), so the controller's pods never wait on the controller."""

RESERVED_NAMESPACES = frozenset({"default", "kube-system", "kube-public", "kube-node-lease"})
"""Namespaces every cluster already has: ``deploy_kserve`` never creates them."""


class KServeArgs(TypedDict):
    deployment_mode: NotRequired[str]
    """``Standard`` (default; no Knative or Istio) or ``Knative`` (see the module docstring)."""
    namespace: NotRequired[str]
    """Namespace of the releases (default ``versions.KSERVE_RESOURCES.namespace``, ``kserve``)."""
    ingress_class_name: NotRequired[str]
    """Standard mode: IngressClass for predictor Ingresses (``nginx``, ``gce``, ``alb`` ...). When not
    set, Ingress creation is turned off and predictors are reached through their in-cluster Services."""
    ingress_domain: NotRequired[str]
    """Domain in predictor URLs (chart default ``example.com``)."""
    runtimes: NotRequired[bool]
    """Install ``kserve-runtime-configs`` (the ClusterServingRuntimes) too. Default ``True``: without
    them an InferenceService with ``modelFormat: huggingface`` finds no runtime."""
    values: NotRequired[Mapping[str, Any]]
    """Extra ``kserve-resources`` chart values (upstream ``values.yaml`` keys); typed args win."""
    runtime_values: NotRequired[Mapping[str, Any]]
    """Extra ``kserve-runtime-configs`` chart values; ``kserve.servingruntime.enabled`` stays on."""


def kserve_values(
    deployment_mode: str = DEFAULT_DEPLOYMENT_MODE,
    ingress_class_name: str | None = None,
    ingress_domain: str | None = None,
    extra: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """``kserve-resources`` chart values; every key exists in the chart's upstream ``values.yaml``."""
    gateway: dict[str, Any] = {}
    if deployment_mode == "Standard":
        if ingress_class_name:
            gateway["ingressGateway"] = {"className": ingress_class_name}
            gateway["disableIngressCreation"] = False
        else:
            gateway["disableIngressCreation"] = True
    if ingress_domain:
        gateway["domain"] = ingress_domain
    controller: dict[str, Any] = {"deploymentMode": deployment_mode}
    if gateway:
        controller["gateway"] = gateway
    return deep_merge(dict(extra or {}), {"kserve": {"controller": controller}})


def runtime_values(extra: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """``kserve-runtime-configs`` values: the chart renders no runtime unless this switch is on."""
    return deep_merge(dict(extra or {}), {"kserve": {"servingruntime": {"enabled": True}}})


def _check(args: KServeArgs) -> None:
    problems: list[tuple[str, str]] = []
    mode = args.get("deployment_mode", DEFAULT_DEPLOYMENT_MODE)
    if mode not in DEPLOYMENT_MODES:
        legacy = {"RawDeployment": "Standard", "Serverless": "Knative"}.get(str(mode))
        hint = f" ('{mode}' is the deprecated name of '{legacy}')" if legacy else ""
        valid = ", ".join(DEPLOYMENT_MODES)
        problems.append(("deployment_mode", f"{mode!r} is not valid{hint}; valid: {valid}"))
    if args.get("ingress_class_name") and mode == "Knative":
        problems.append(
            ("ingress_class_name", "Standard mode only; Knative routes through its own network layer")
        )
    if problems:
        raise ConfigError(problems)


class KServe(pulumi.ComponentResource):
    """KServe CRDs, controller and serving runtimes from the pinned charts."""

    status: pulumi.Output[Any]
    """Status of the ``kserve-resources`` release."""
    deployment_mode: pulumi.Output[str]

    def __init__(self, name: str, args: KServeArgs | None = None, opts: pulumi.ResourceOptions | None = None):
        args = args or {}
        _check(args)
        super().__init__("gpu-platform:index:KServe", name, None, opts)
        mode = args.get("deployment_mode", DEFAULT_DEPLOYMENT_MODE)
        namespace = args.get("namespace", versions.KSERVE_RESOURCES.namespace)
        deps = dependencies(opts)
        ns = k8s.core.v1.Namespace(
            f"{name}-namespace",
            metadata={"name": namespace, "labels": dict(KSERVE_NAMESPACE_LABELS)},
            opts=pulumi.ResourceOptions(parent=self),
        )
        crds = k8s.helm.v3.Release(
            f"{name}-crd",
            name="kserve-crd",
            chart=versions.KSERVE_CRD.chart,
            version=versions.KSERVE_CRD.version,
            namespace=namespace,
            create_namespace=False,
            opts=pulumi.ResourceOptions(parent=self, depends_on=[ns]),
        )
        resources = k8s.helm.v3.Release(
            f"{name}-helm",
            name="kserve-resources",
            chart=versions.KSERVE_RESOURCES.chart,
            version=versions.KSERVE_RESOURCES.version,
            namespace=namespace,
            create_namespace=False,
            values=kserve_values(
                mode, args.get("ingress_class_name"), args.get("ingress_domain"), args.get("values")
            ),
            opts=pulumi.ResourceOptions(parent=self, depends_on=[ns, crds, *deps]),
        )
        if args.get("runtimes", True):
            pin = versions.KSERVE_RUNTIME_CONFIGS
            k8s.helm.v3.Release(
                f"{name}-runtimes",
                name="kserve-runtime-configs",
                chart=pin.chart,
                version=pin.version,
                namespace=namespace,
                create_namespace=False,
                values=runtime_values(args.get("runtime_values")),
                # The ClusterServingRuntime webhook lives in the resources release.
                opts=pulumi.ResourceOptions(parent=self, depends_on=[crds, resources]),
            )
        self.status = resources.status
        self.deployment_mode = pulumi.Output.from_input(mode)
        self.register_outputs({"status": self.status, "deployment_mode": self.deployment_mode})


def kserve_args_from_spec(spec: PlatformSpec) -> KServeArgs:
    cfg = spec.config.kserve
    args: KServeArgs = {"deployment_mode": cfg.deployment_mode, "values": dict(cfg.values)}
    if cfg.ingress_class_name:
        args["ingress_class_name"] = cfg.ingress_class_name
    if cfg.ingress_domain:
        args["ingress_domain"] = cfg.ingress_domain
    return args


def kueue_namespaces(spec: PlatformSpec) -> set[str]:
    """Namespaces the Kueue component creates for its teams (never created twice)."""
    from gpu_platform.operators.kueue_objects import team_namespace_name

    kueue = spec.config.kueue
    if not kueue.enabled:
        return set()
    return {team_namespace_name(t) for t in kueue.teams}


def deploy_kserve(spec: PlatformSpec, opts: pulumi.ResourceOptions, depends_on: list[Any]) -> dict[str, Any]:
    """cert-manager, KServe and one ``GpuInferenceService`` per configured service; stack outputs.

    ``depends_on`` (the GPU Operator, and Kueue when it creates the services' namespaces and
    queues) orders the inference services after what their pods need on the nodes.
    """
    from gpu_platform.args import pool_config_to_args
    from gpu_platform.inference import GpuInferenceService

    cfg = spec.config.kserve
    # An existing cluster may already run cert-manager; a second install would fight over its CRDs.
    before = [CertManager("cert-manager", {}, opts=opts)] if cfg.install_cert_manager else []
    kserve = KServe(
        "kserve",
        kserve_args_from_spec(spec),
        opts=pulumi.ResourceOptions.merge(opts, pulumi.ResourceOptions(depends_on=before)),
    )
    pools = {p.name: p for p in spec.pools}
    managed_elsewhere = kueue_namespaces(spec) | RESERVED_NAMESPACES | {versions.KSERVE_RESOURCES.namespace}
    namespaces: dict[str, k8s.core.v1.Namespace] = {}
    for svc in cfg.services:
        if svc.namespace not in managed_elsewhere and svc.namespace not in namespaces:
            namespaces[svc.namespace] = k8s.core.v1.Namespace(
                f"kserve-namespace-{svc.namespace}", metadata={"name": svc.namespace}, opts=opts
            )
    integrations = set(spec.config.kueue.integrations) if spec.config.kueue.enabled else set()
    services: dict[str, Any] = {}
    for svc in cfg.services:
        pool = pools[svc.pool]
        if svc.queue and not {"pod", "deployment"} <= integrations:
            pulumi.log.warn(
                f"kserve service '{svc.name}' sets queue '{svc.queue}', but Kueue manages predictor pods "
                "only with the 'pod' and 'deployment' integrations enabled (gpu-platform:kueue.integrations)"
            )
        args: dict[str, Any] = {
            "name": svc.name,
            "namespace": svc.namespace,
            "pool": pool_config_to_args(spec.config.gpu_pools[pool.index]),
            "cloud": spec.cloud,
            "model_format": svc.model_format,
            "gpus": svc.gpus,
            "min_replicas": svc.min_replicas,
            "max_replicas": svc.max_replicas,
            "cpu": svc.cpu,
            "memory": svc.memory,
            "deployment_mode": cfg.deployment_mode,
        }
        for key in ("storage_uri", "runtime", "mig_profile", "queue", "priority_class"):
            value = getattr(svc, key)
            if value is not None:
                args[key] = value
        if svc.args:
            args["args"] = list(svc.args)
        deps = [kserve, *depends_on]
        if svc.namespace in namespaces:
            deps.append(namespaces[svc.namespace])
        # Namespaces and service names never contain '.', so "<namespace>.<name>" cannot collide.
        isvc = GpuInferenceService(
            f"{svc.namespace}.{svc.name}",
            args,  # type: ignore[arg-type]
            opts=pulumi.ResourceOptions.merge(opts, pulumi.ResourceOptions(depends_on=deps)),
        )
        services[f"{svc.namespace}/{svc.name}"] = {
            "pool": pool.name,
            "resource": isvc.gpu_resource,
            "units": isvc.gpu_units,
        }
    outputs: dict[str, Any] = {"certManagerStatus": before[0].status} if before else {}
    return {
        **outputs,
        "kserveStatus": kserve.status,
        "kserveDeploymentMode": cfg.deployment_mode,
        "inferenceServices": services,
    }
