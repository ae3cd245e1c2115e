"""An existing cluster: no cloud resources, only a Kubernetes provider from a kubeconfig.

The kubeconfig comes from secret config (``cluster.kubeconfig``) or another stack's output
(``cluster.kubeconfigStackReference``); the pools' facts are declared in config so quotas,
operator config and selectors still derive from them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pulumi
import pulumi_kubernetes as k8s

from gpu_platform.clouds import Infrastructure

if TYPE_CHECKING:
    from gpu_platform.config import PlatformSpec


def deploy_infrastructure(spec: PlatformSpec, opts: pulumi.ResourceOptions | None = None) -> Infrastructure:
    cluster = spec.config.cluster
    if cluster.kubeconfig_stack_reference is not None:
        ref = pulumi.StackReference(
            f"{cluster.name}-infra", stack_name=cluster.kubeconfig_stack_reference.stack, opts=opts
        )
        kubeconfig = pulumi.Output.secret(ref.require_output(cluster.kubeconfig_stack_reference.output))
    elif cluster.kubeconfig is not None:
        kubeconfig = pulumi.Output.secret(cluster.kubeconfig)
    else:
        raise ValueError("existing cluster needs cluster.kubeconfig or cluster.kubeconfigStackReference")
    provider = k8s.Provider(
        f"{cluster.name}-k8s",
        kubeconfig=kubeconfig,
        enable_server_side_apply=True,
        opts=opts,
    )
    return Infrastructure(k8s_provider=provider, kubeconfig=kubeconfig, cluster_name=cluster.name)
