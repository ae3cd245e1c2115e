"""Config schema for KServe and the inference services placed on GPU pools."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from gpu_platform.config.model import ConfigModel


class InferenceServiceConfig(ConfigModel):
    name: str = Field(pattern=r"^[a-z]([-a-z0-9]{0,61}[a-z0-9])?$")
    namespace: str = "default"
    pool: str
    """GPU pool the predictor runs on."""
    model_format: str
    """KServe model format (``huggingface``, ``pytorch``, ``onnx``, ``triton`` ...)."""
    storage_uri: str | None = None
    runtime: str | None = None
    gpus: float = 1
    """Units of the pool's GPU resource (a time-slice replica, a MIG slice or a GPU). Whole numbers only."""
    mig_profile: str | None = None
    """MIG pools with several profiles: which slice to request."""
    args: list[str] = Field(default_factory=list)
    min_replicas: int = Field(default=1, ge=0)
    max_replicas: int = Field(default=1, ge=1)
    queue: str | None = None
    """Kueue LocalQueue name (label ``kueue.x-k8s.io/queue-name``)."""
    priority_class: str | None = None
    cpu: str = "2"
    memory: str = "8Gi"


class KServeConfig(ConfigModel):
    enabled: bool = False
    deployment_mode: Literal["Standard", "Knative"] = "Standard"
    """``Standard`` needs no Knative or Istio. ``Knative`` needs Knative Serving with the
    ``kubernetes.podspec-nodeselector`` and ``kubernetes.podspec-tolerations`` features on."""
    install_cert_manager: bool = True
    """Install cert-manager (KServe's webhooks need it); ``false`` when the cluster already runs it."""
    services: list[InferenceServiceConfig] = Field(default_factory=list)
    values: dict[str, Any] = Field(default_factory=dict)
    ingress_class_name: str | None = None
    """Standard mode: IngressClass for predictor Ingresses (``nginx``, ``gce`` ...). Unset: no Ingress is
    created and predictors are reached through their in-cluster Services."""
    ingress_domain: str | None = None
    """Domain of predictor URLs (chart default ``example.com``)."""
