"""``GpuPlatform``: the stack file as one component, for programs that build the platform from code.

It takes the arguments a stack file holds, runs the same checks (``stack.spec.resolve_platform``, the path
``load_platform`` runs for ``Pulumi.<stack>.yaml``) and the same wiring (``stack.program.deploy``) with every
resource under the component. So the node pools, the GPU Operator's device-plugin configs, Kueue's quotas and
KServe's services come from one description of the pools and cannot disagree, which hand-composed components
can (the ``composition-agrees`` policy rule checks those).

The wiring names the add-ons as the stack does (``gpu-operator``, ``kueue``, ...), so a Pulumi program holds
one ``GpuPlatform``, as a stack holds one stack file; a second cluster is a second stack.
"""

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

import pulumi
from pulumi_kubernetes.provider import Provider as KubernetesProvider

from gpu_platform.args.validate import is_unknown
from gpu_platform.component import PlannedComponent
from gpu_platform.errors import Problems
from gpu_platform.stack.platform_args import GpuPlatformArgs
from gpu_platform.stack.program import deploy_platform
from gpu_platform.stack.spec import PlatformSpec, resolve_platform

_DEPLOY_TIME = "<known at deploy time>"
"""Stands in for an Output kubeconfig while the arguments are checked: only its presence is checked."""


def platform_spec_of_args(args: GpuPlatformArgs) -> PlatformSpec:
    """The ``PlatformSpec`` of component arguments: every stack-file check, problems spelled for Python
    (``gpu_pools[0].max_nodes``) and raised as one ``ArgumentsError``.

    Everything else decides which resources exist and must be a plain value, but ``cluster.kubeconfig`` may
    be an Output (``config.require_secret(...)``, another resource's kubeconfig): it only reaches the
    Kubernetes provider, as a secret."""
    cluster = args.get("cluster") if isinstance(args, Mapping) else None
    kubeconfig = cluster.get("kubeconfig") if isinstance(cluster, Mapping) else None
    deferred = is_unknown(kubeconfig)
    if deferred:
        assert isinstance(cluster, Mapping)
        args = {**args, "cluster": {**cluster, "kubeconfig": _DEPLOY_TIME}}
    p = Problems()
    spec = resolve_platform(args, p, camel=False)
    p.raise_for_arguments()
    assert spec is not None  # no problem means a spec
    if deferred:
        spec = replace(spec, cluster=replace(spec.cluster, kubeconfig=kubeconfig))
    return spec


class GpuPlatform(PlannedComponent[PlatformSpec]):
    """A whole GPU platform from one description of the GPU pools: the cluster (or an attachment to one),
    its tainted GPU node pools, the NVIDIA GPU Operator, Kueue, KServe and the workload controllers, made
    exactly as a stack file with the same keys makes them."""

    _type_token = "gpu-platform:index:GpuPlatform"

    cloud: pulumi.Output[str]
    """The cloud the platform runs on (``gke``, ``eks``, ``aks``, ``existing``, ``openshift``, ``yandex``)."""
    cluster_name: pulumi.Output[str]
    """The Kubernetes cluster's name."""
    kubeconfig: pulumi.Output[str]
    """Kubeconfig of the cluster (secret)."""
    gpu_pools: pulumi.Output[dict[str, str]]
    """GPU model of each pool, by pool name (``{"l4-spot": "l4"}``)."""
    cluster_queues: pulumi.Output[list[str]]
    """Kueue's ClusterQueues (empty when Kueue is off)."""
    kubernetes_provider: KubernetesProvider
    """The Kubernetes provider every add-on of the platform is created with (a ``pulumi_kubernetes.Provider``):
    pass it as ``opts.provider`` to Kubernetes resources of your own."""

    def __init__(self, name: str, args: GpuPlatformArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        """Check ``args`` as the stack file is checked (every problem at once, nothing registered on one),
        then create the platform, every resource a child of this component."""
        self._start(name, platform_spec_of_args(args), opts)

    def _create(self, name: str, plan: PlatformSpec) -> dict[str, Any]:
        infra, outputs = deploy_platform(plan, pulumi.ResourceOptions(parent=self))
        # What the stack program exports for the same settings, by output name (``gpuOperatorStatus``...).
        self.stack_outputs = outputs
        self.cloud = pulumi.Output.from_input(plan.cloud)
        self.cluster_name = pulumi.Output.from_input(outputs["clusterName"])
        self.kubeconfig = pulumi.Output.secret(outputs["kubeconfig"])
        self.gpu_pools = pulumi.Output.from_input(outputs["gpuPools"])
        self.cluster_queues = pulumi.Output.from_input(outputs.get("clusterQueues", []))
        self.kubernetes_provider = infra.k8s_provider
        return {
            "cloud": self.cloud,
            "cluster_name": self.cluster_name,
            "kubeconfig": self.kubeconfig,
            "gpu_pools": self.gpu_pools,
            "cluster_queues": self.cluster_queues,
            "kubernetes_provider": self.kubernetes_provider,
        }
