"""The deployable program: config in, platform out. ``stacks/__main__.py`` and examples call ``main``.

It reads ``gpu-platform:`` config once, checks all of it before registering anything
(``load_platform``), then builds the cluster and GPU pools, the GPU Operator, Kueue and KServe, each
from a plan made from the same ``PlatformSpec``. Data flows one way: config -> spec -> plans -> resources.
"""

from __future__ import annotations

from typing import Any

import pulumi

from gpu_platform.errors import NAMESPACE
from gpu_platform.stack import addons
from gpu_platform.stack.infrastructure import Infrastructure, cloud_addons, deploy_infrastructure
from gpu_platform.stack.namespaces import create_namespaces
from gpu_platform.stack.read import config_keys, read_stack_config, secret_sections
from gpu_platform.stack.spec import PlatformSpec, load_platform
from gpu_platform.stack.workloads import deploy_workloads


def deploy(spec: PlatformSpec, opts: pulumi.ResourceOptions | None = None) -> dict[str, Any]:
    """Create everything for the spec; return the stack outputs. ``opts`` are given to every top-level
    resource: ``GpuPlatform`` passes ``parent=self``, the stack program nothing."""
    return deploy_platform(spec, opts)[1]


def deploy_platform(
    spec: PlatformSpec, opts: pulumi.ResourceOptions | None = None
) -> tuple[Infrastructure, dict[str, Any]]:
    """``deploy``, also returning the cluster, its provider and its pools."""
    infra = deploy_infrastructure(spec, opts)
    k8s_opts = pulumi.ResourceOptions.merge(opts, pulumi.ResourceOptions(provider=infra.k8s_provider))
    outputs: dict[str, Any] = {
        "cloud": spec.cloud,
        "clusterName": infra.cluster_name,
        "kubeconfig": infra.kubeconfig,
        "gpuPools": {p.name: p.gpu.key for p in spec.pools},
    }
    outputs.update(cloud_addons(spec, infra, k8s_opts))
    namespaces = create_namespaces(spec, k8s_opts)
    operator = kueue = None
    kueue_opts = k8s_opts
    if spec.observability is not None:
        observability = addons.observability(spec, k8s_opts, infra)
        outputs["observabilityBackend"] = observability.backend
        if addons.managed_metrics(spec):  # where the metrics went
            outputs["observabilityWorkspace"] = observability.workspace
        if crds := observability.monitor_crds:  # Kueue's chart renders a ServiceMonitor
            kueue_opts = pulumi.ResourceOptions.merge(k8s_opts, pulumi.ResourceOptions(depends_on=crds))
    if spec.gpu_operator is not None:
        operator = addons.gpu_operator(spec, k8s_opts)
        outputs["gpuOperatorStatus"] = operator.status
    if spec.kueue is not None:
        kueue = addons.kueue(spec, kueue_opts, namespaces)
        outputs["clusterQueues"] = kueue.cluster_queue_names
    # Workload layer: Volcano and the controllers behind Kueue's integrations.
    outputs.update(deploy_workloads(spec, k8s_opts, namespaces))
    if spec.dra is not None:  # DRA: after the operator and Kueue's release; each claim after its namespace
        after = [r for r in (operator, kueue.release if kueue is not None else None) if r is not None]
        dra = addons.dra(spec, k8s_opts, after, namespaces)
        outputs["draDeviceClasses"] = dra.device_classes
        outputs["draClaimTemplates"] = dra.claim_templates
    # cert-manager once, for KServe's webhook and Slinky's.
    certs = addons.install_cert_manager(k8s_opts) if addons.needs_cert_manager(spec) else None
    if certs is not None:
        outputs["certManagerStatus"] = certs.status
    if spec.slurm is not None:
        # After cert-manager (the operator's webhook certificates) and the operator (slurmd's GPUs).
        after = [r for r in (certs, operator) if r is not None]
        slurm = addons.slurm(spec, k8s_opts, after)
        outputs["slurmNodeSets"] = slurm.nodesets
        outputs["slurmNamespace"] = slurm.namespace
    if spec.kserve is not None:
        # After the operator (GPU pods need the device plugin) and each service's own Kueue queue.
        deps = [operator] if operator is not None else []
        outputs.update(addons.kserve(spec, k8s_opts, deps, namespaces, kueue, certs))
    return infra, outputs


def main() -> None:
    """Read the stack's config, check all of it, then create the platform and export its outputs."""
    others = [k for k in config_keys() if not k.startswith(f"{NAMESPACE}:")]
    spec = load_platform(read_stack_config(), others, secret_sections())
    for key, value in deploy(spec).items():
        pulumi.export(key, value)
