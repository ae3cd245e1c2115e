"""The add-ons on the cluster, each from a plan built straight from the ``PlatformSpec``."""

from __future__ import annotations

from dataclasses import replace
from importlib import import_module
from typing import TYPE_CHECKING, Any

import pulumi

from gpu_platform import addons
from gpu_platform.clouds import profile_of
from gpu_platform.plans.gpu_operator import gpu_operator_plan
from gpu_platform.plans.helm import deep_merge
from gpu_platform.plans.inference import inference_service_plan
from gpu_platform.plans.kserve import cert_manager_plan, kserve_plan
from gpu_platform.plans.kueue import kueue_plan
from gpu_platform.plans.observability import dcgm_exporter_values, kueue_values, observability_plan
from gpu_platform.resolve.gpu_operator import ResolvedGpuOperator
from gpu_platform.stack.infrastructure import metrics_cluster

if TYPE_CHECKING:
    from gpu_platform.stack.infrastructure import Infrastructure
    from gpu_platform.stack.spec import PlatformSpec


def gpu_operator(spec: PlatformSpec, opts: pulumi.ResourceOptions) -> Any:
    from gpu_platform.operators.gpu_operator import GpuOperator

    assert spec.gpu_operator is not None
    target = ResolvedGpuOperator(
        spec.cloud, spec.pools, spec.driver, spec.gpu_operator, addons.GPU_OPERATOR.namespace
    )
    plan = replace(gpu_operator_plan(target), secret_values="gpu_operator" in spec.secret_sections)
    if spec.observability is not None:  # the exporter's counters and ServiceMonitor for the metrics path
        extra = dcgm_exporter_values(spec.observability)
        scraped = spec.observability.prometheus_operator or plan.service_monitor
        plan = replace(plan, values=deep_merge(plan.values, extra), service_monitor=scraped)
    if (installer := profile_of(spec.cloud).gpu_operator_installer) is not None:
        # OLM: the installer makes the counters ConfigMap the chart would template, and the ClusterPolicy names it.
        return import_module(installer).install(addons.GPU_OPERATOR.component_name, plan, opts)
    return GpuOperator.from_plan(addons.GPU_OPERATOR.component_name, plan, opts)


def kueue(spec: PlatformSpec, opts: pulumi.ResourceOptions, namespaces: dict[str, Any]) -> Any:
    """Kueue without team namespaces: the stack owns every namespace (``stack.namespaces``); each LocalQueue
    waits for its own namespace only. With a Prometheus Operator metrics path its chart renders a
    ServiceMonitor, so ``opts`` then carry the CRDs' release."""
    from gpu_platform.operators.kueue import Kueue

    assert spec.kueue is not None
    secret = "kueue" in spec.secret_sections
    plan = kueue_plan(
        spec.queue_pools, spec.kueue, addons.KUEUE.namespace, manage_namespaces=False, secret=secret
    )
    if spec.observability is not None and (extra := kueue_values(spec.observability)):
        plan = replace(plan, values=deep_merge(plan.values, extra))
    return Kueue.in_namespaces(addons.KUEUE.component_name, plan, namespaces, opts)


def managed_metrics(spec: PlatformSpec) -> bool:
    """The metrics go to the cloud's managed Prometheus, whose cloud side the stack creates (EKS, AKS)."""
    profile = profile_of(spec.cloud)
    return (
        spec.observability is not None
        and profile.managed_prometheus_installer is not None
        and spec.observability.backend == profile.managed_prometheus
    )


def observability(spec: PlatformSpec, opts: pulumi.ResourceOptions, infra: Infrastructure) -> Any:
    """The metrics path, dashboards and rules; created before the GPU Operator and Kueue, whose
    ServiceMonitors need the Prometheus Operator CRDs. A managed backend collects from ``infra``'s cluster."""
    from gpu_platform.operators.observability import GpuObservability

    assert spec.observability is not None
    secret = "observability" in spec.secret_sections
    target = spec.observability
    if managed_metrics(spec):
        target = replace(target, cluster=metrics_cluster(spec, infra))
    plan = observability_plan(target, secret=secret, pools=spec.pools)
    return GpuObservability.from_plan(addons.KUBE_PROMETHEUS_STACK.component_name, plan, opts)


def dra(
    spec: PlatformSpec, opts: pulumi.ResourceOptions, depends_on: list[Any], namespaces: dict[str, Any]
) -> Any:
    """The NVIDIA DRA driver, after ``depends_on``: the GPU Operator (NFD labels, driver, toolkit) and Kueue's
    release (not its every queue); each claim template after its own namespace (``stack.namespaces``)."""
    from gpu_platform.operators.dra import DraDriver
    from gpu_platform.plans.dra import dra_plan
    from gpu_platform.resolve.dra import ResolvedDra

    assert spec.dra is not None and spec.cluster.kubernetes_version is not None
    plan = dra_plan(
        ResolvedDra(
            spec.cloud,
            spec.pools,
            spec.driver,
            spec.cluster.kubernetes_version,
            spec.dra,
            addons.DRA_DRIVER.namespace,
        )
    )
    plan = replace(plan, secret_values="dra" in spec.secret_sections)
    merged = pulumi.ResourceOptions.merge(opts, pulumi.ResourceOptions(depends_on=depends_on))
    return DraDriver.in_namespaces(addons.DRA_DRIVER.component_name, plan, namespaces, merged)


def kserve(
    spec: PlatformSpec,
    opts: pulumi.ResourceOptions,
    depends_on: list[Any],
    namespaces: dict[str, Any] | None = None,
    kueue: Any = None,
    cert_manager: Any = None,
) -> dict[str, Any]:
    """cert-manager, KServe and one ``GpuInferenceService`` per service; returns the stack outputs.

    ``cert_manager``: the stack's, when Slurm needs it too (else it is created here).
    ``depends_on`` (the GPU Operator) orders the inference services after what their pods need on the
    nodes; of ``kueue``, each service waits for its own LocalQueue and priority class only
    (``Kueue.needed_by``); ``namespaces`` are the stack's (``stack.namespaces``).
    """
    from gpu_platform.inference import GpuInferenceService
    from gpu_platform.operators.kserve import KServe

    ks = spec.kserve
    assert ks is not None
    before = []
    if ks.install_cert_manager:
        before = [cert_manager if cert_manager is not None else install_cert_manager(opts)]
    merged = pulumi.ResourceOptions.merge(opts, pulumi.ResourceOptions(depends_on=before))
    plan = kserve_plan({**ks.settings, "secret_values": "kserve" in spec.secret_sections})
    server = KServe.from_plan(addons.KSERVE_RESOURCES.component_name, plan, merged)
    namespaces = namespaces or {}
    services: dict[str, Any] = {}
    mode = ks.settings.get("deployment_mode", "Standard")
    for svc, request in ks.services:
        deps = [
            server,
            *depends_on,
            *(kueue.needed_by(request.namespace, request.queue, request.priority_class) if kueue else []),
            *([namespaces[request.namespace]] if request.namespace in namespaces else []),
        ]
        # Namespaces and service names never contain '.', so "<namespace>.<name>" cannot collide.
        GpuInferenceService.from_plan(
            f"{request.namespace}.{request.name}",
            inference_service_plan(request, svc, mode),
            pulumi.ResourceOptions.merge(opts, pulumi.ResourceOptions(depends_on=deps)),
        )
        services[f"{request.namespace}/{request.name}"] = {
            "pool": request.pool.name,
            "resource": request.resource,
            "units": request.units,
        }
    outputs: dict[str, Any] = {"certManagerStatus": before[0].status} if before else {}
    return {
        **outputs,
        "kserveStatus": server.status,
        "kserveDeploymentMode": mode,
        "inferenceServices": services,
    }


def install_cert_manager(opts: pulumi.ResourceOptions) -> Any:
    """cert-manager, once per stack: KServe's and Slinky's webhooks both take their certificates from it."""
    from gpu_platform.operators.cert_manager import CertManager

    return CertManager.from_plan(
        addons.CERT_MANAGER.component_name, cert_manager_plan(addons.CERT_MANAGER.namespace), opts
    )


def needs_cert_manager(spec: PlatformSpec) -> bool:
    """The stack installs cert-manager: for KServe or for Slurm, each unless told the cluster runs it."""
    kserve = spec.kserve is not None and spec.kserve.install_cert_manager
    return kserve or (spec.slurm is not None and spec.slurm.install_cert_manager)


def slurm(spec: PlatformSpec, opts: pulumi.ResourceOptions, depends_on: list[Any]) -> Any:
    """Slinky and the Slurm cluster, after ``depends_on``: cert-manager and the GPU Operator (slurmd asks for
    ``nvidia.com/gpu``, which its device plugin advertises)."""
    from gpu_platform.operators.slurm import SlurmCluster
    from gpu_platform.plans.slurm import slurm_plan
    from gpu_platform.plans.workloads import controller_placement

    assert spec.slurm is not None
    placement = controller_placement(spec.cloud, spec.workloads.node_selector)
    # cert-manager is the stack's (``install_cert_manager``), never the component's own second copy.
    plan = slurm_plan(spec.slurm, placement, cert_manager=False, secret="slurm" in spec.secret_sections)
    merged = pulumi.ResourceOptions.merge(opts, pulumi.ResourceOptions(depends_on=depends_on))
    return SlurmCluster.from_plan(addons.SLURM.component_name, plan, merged)
