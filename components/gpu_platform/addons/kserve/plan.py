"""KServe plans: pinned charts and the values every key of which exists upstream.

Deployment modes (kserve/kserve v0.20.0 ``pkg/constants/constants.go``; https://kserve.github.io/website/
install guides):

- ``Standard`` (default; formerly ``RawDeployment``): a Deployment, Service and HPA per predictor. Needs
  cert-manager and, for traffic from outside the cluster, an Ingress controller or a Gateway API
  implementation. Without ``ingress_class_name`` Ingress creation is off, since the chart's default class
  (``istio``) would only make Ingresses nothing serves. Scale-from-zero on HTTP is not available.
- ``Knative`` (formerly ``Serverless``): needs Knative Serving and a networking layer installed outside
  this library, with ``kubernetes.podspec-nodeselector`` and ``kubernetes.podspec-tolerations`` enabled in
  ``config-features``; without them no GPU predictor can be placed.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from gpu_platform.addons.cert_manager.plan import CertManagerPlan as CertManagerPlan  # its old home
from gpu_platform.addons.cert_manager.plan import cert_manager_plan as cert_manager_plan
from gpu_platform.addons.cert_manager.plan import cert_manager_values as cert_manager_values
from gpu_platform.addons.kserve.checks import check_kserve_settings as check_kserve_settings  # its old home
from gpu_platform.args.operators import DEFAULT_DEPLOYMENT_MODE
from gpu_platform.mirror import Mirror
from gpu_platform.plans.helm import deep_merge
from gpu_platform.releases import KSERVE_RESOURCES

KSERVE_NAMESPACE_LABELS = {"control-plane": "kserve-controller-manager", "controller-tools.k8s.io": "1.0"}
"""KServe's pod-mutating webhook skips namespaces labelled ``control-plane`` (its own, upstream
``config/default`` namespace labels), so the controller's pods never wait on the controller."""


@dataclass(frozen=True)
class KServePlan:
    deployment_mode: str
    namespace: str
    values: dict[str, Any]
    """``kserve-resources`` chart values."""
    runtime_values: dict[str, Any] | None
    """``kserve-runtime-configs`` chart values, or ``None`` when the runtimes are not installed."""
    secret_values: bool = False
    """The user's values hold a secret: the values inputs are stored encrypted."""
    mirror: Mirror | None = None
    """Where the charts and their images come from instead of upstream."""


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


def kserve_plan(settings: Mapping[str, Any]) -> KServePlan:
    """The plan from checked settings (the stack layer's path; ``mirror`` is a resolved ``Mirror``)."""
    mode = settings.get("deployment_mode", DEFAULT_DEPLOYMENT_MODE)
    runtimes = runtime_values(settings.get("runtime_values")) if settings.get("runtimes", True) else None
    return KServePlan(
        deployment_mode=mode,
        namespace=settings.get("namespace", KSERVE_RESOURCES.namespace),
        values=kserve_values(
            mode, settings.get("ingress_class_name"), settings.get("ingress_domain"), settings.get("values")
        ),
        runtime_values=runtimes,
        secret_values=bool(settings.get("secret_values", False)),
        mirror=settings.get("mirror"),
    )
