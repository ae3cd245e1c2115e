"""What every cloud's stack wiring returns and shares: the cluster (or an attachment to one), its Kubernetes
provider and its tainted GPU pools.

Each cloud's ``deploy(spec, opts)`` is ``gpu_platform/clouds/<cloud>/stack.py``: it builds the component plans
straight from the resolved ``PlatformSpec`` (no argument dicts) and imports its cloud SDK only when called.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import pulumi

from gpu_platform.clouds.cluster_provider import cluster_provider

if TYPE_CHECKING:
    from pulumi_kubernetes.provider import Provider as KubernetesProvider

    from gpu_platform.addons.platform_spec import PlatformSpec
    from gpu_platform.pools import GpuPool


@dataclass
class Infrastructure:
    k8s_provider: KubernetesProvider
    """Kubernetes provider for the cluster; every add-on is created through it."""
    kubeconfig: pulumi.Output[str]
    """Secret."""
    cluster_name: pulumi.Output[str] | str
    node_pools: Mapping[str, pulumi.Resource] = field(default_factory=dict)
    """GPU pool components by pool name (empty for existing clusters)."""
    cluster: pulumi.Resource | None = None


def kubeconfig_provider(
    spec: PlatformSpec, opts: pulumi.ResourceOptions | None
) -> tuple[KubernetesProvider, pulumi.Output[str]]:
    """A Kubernetes provider for a cluster made elsewhere, from secret config or another stack's output."""
    c = spec.cluster
    kubeconfig: pulumi.Output[str]
    if c.kubeconfig_stack is not None:
        ref = pulumi.StackReference(f"{c.name}-infra", stack_name=c.kubeconfig_stack, opts=opts)
        kubeconfig = pulumi.Output.secret(ref.require_output(c.kubeconfig_output).apply(str))
    else:
        kubeconfig = pulumi.Output.secret(c.kubeconfig if c.kubeconfig is not None else "")
    return cluster_provider(f"{c.name}-k8s", kubeconfig, opts), kubeconfig


def planned_pools(
    spec: PlatformSpec,
    component: Any,
    build: Callable[..., Any],
    inputs: dict[str, Any],
    opts: Any,
    only: Callable[[GpuPool], bool] | None = None,
) -> dict[str, Any]:
    """One pool component per GPU pool of the spec (or those ``only`` keeps), each from
    ``build(pool, driver, inputs)``."""
    return {
        p.name: planned_pool(spec, component, build, p, inputs, opts)
        for p in spec.pools
        if only is None or only(p)
    }


def planned_pool(
    spec: PlatformSpec,
    component: Any,
    build: Callable[..., Any],
    pool: GpuPool,
    inputs: dict[str, Any],
    opts: Any,
) -> Any:
    """The pool component of one GPU pool, from ``build(pool, driver, inputs)``: for a cloud whose pools differ
    in their inputs (one call per pool, so the stack stays linear in pools)."""
    inputs = {**inputs, "protect": not spec.cluster.disposable}
    return component.from_plan(pool.name, build(pool, spec.driver, inputs), opts)
