"""What the platform runs itself: the namespaces it owns, its own monitoring (OpenShift's), the cloud's managed
Prometheus and node repair, and whether privileged pods need an SCC.

A part of ``CloudProfile`` (``gpu_platform.cloud_facts.profile``); a cloud's profile overrides what differs."""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

from gpu_platform.cloud_facts.parts.base import ProfileBase


class PlatformFacts(ProfileBase):
    """The platform's namespaces, monitoring and node repair."""

    privileged_pods_need_scc: ClassVar[bool] = False
    """A privileged pod runs only once its ServiceAccount is granted an SCC that allows it (OpenShift): the GPU
    health checks (node-problem-detector reads ``/dev/kmsg``) are then off unless asked for."""
    platform_monitoring_namespace: ClassVar[str | None] = None
    """The platform runs its own Prometheus Operator and owns its CRDs (``monitoring.coreos.com``: OpenShift's
    cluster monitoring), which Helm cannot adopt: metrics go through it (ServiceMonitors and rules only), never
    a kube-prometheus-stack the library installs. The library's rules go in this namespace, created with
    ``platform_monitoring_labels`` so the platform's Prometheus reads them. ``None``: no such platform."""
    platform_monitoring_labels: ClassVar[Mapping[str, str]] = {}
    """The labels that make the platform's monitoring read a namespace's ServiceMonitors and rules."""
    platform_prometheus_namespace: ClassVar[str | None] = None
    """Where the platform's Prometheus (service account ``prometheus-k8s``) runs: what Kueue's metrics Role binds."""
    gpu_operator_namespace: ClassVar[str | None] = None
    """Where the GPU Operator runs when the platform installs it another way (OLM on OpenShift); ``None``: the
    Helm release's namespace."""
    platform_namespaces: ClassVar[Mapping[str, str]] = {}
    """Namespaces the platform itself owns or installs into (OpenShift's ``openshift-nfd``), with their owner:
    never a team's, a service's or Slurm's."""
    reserved_namespace_prefixes: ClassVar[tuple[str, ...]] = ("kube-",)
    """Namespace prefixes the platform keeps for itself: Kubernetes ``kube-`` ("Namespaces": avoid the prefix,
    it is reserved for Kubernetes system namespaces), OpenShift also ``openshift-``."""

    @classmethod
    def namespace_owner(cls, name: str) -> str | None:
        """Who owns namespace ``name`` on this platform, for messages (``None``: a team or service may use it): its
        own namespaces, those it installs the library's operators or monitoring into, and its reserved prefixes."""
        owned = {
            **{ns: f"{cls.display}'s {what}" for ns, what in cls.platform_namespaces.items()},
            **{
                ns: f"the namespace of {what} on {cls.display}"
                for ns, what in (
                    (cls.gpu_operator_namespace, "the GPU Operator"),
                    (cls.platform_prometheus_namespace, "the platform's Prometheus"),
                    (cls.platform_monitoring_namespace, "the library's GPU monitoring rules"),
                )
                if ns
            },
        }
        if name in owned:
            return owned[name]
        prefix = next((x for x in cls.reserved_namespace_prefixes if name.startswith(x)), None)
        return f"in the '{prefix}*' namespaces reserved on {cls.display}" if prefix else None

    node_repair: ClassVar[str | None] = "the library creates none of this cluster's nodes, so it repairs none"
    """Why ``observability.node_auto_repair`` does nothing here (``false`` is refused, naming it); ``None`` where it
    is the cloud's node-repair setting, which the stack turns on (EKS)."""
    managed_prometheus: ClassVar[str | None] = None
    """The cloud's managed Prometheus (its ``observability.backend`` value), or ``None`` where there is none."""
