"""The deployable program: config in, platform out. ``stacks/__main__.py`` and examples call ``main``.

It reads ``gpu-platform:`` config once, checks all of it before registering anything
(``load_platform``), then builds the cluster and GPU pools (the cloud's wiring, ``clouds.registry``), the
cloud's own operators, the team namespaces, and every add-on the spec turns on, in the order of the add-on
registry (``addons.registry``), each from a plan made from the same ``PlatformSpec``. Data flows one way:
config -> spec -> plans -> resources.
"""

from __future__ import annotations

from typing import Any

import pulumi

from gpu_platform.addons.deployment import Deployment
from gpu_platform.addons.fleet.members import FLEET_WORKER_OUTPUT, worker_output
from gpu_platform.addons.registry import ADDONS
from gpu_platform.cloud_facts import profile_of
from gpu_platform.errors import NAMESPACE
from gpu_platform.plans.node_setup import node_setup_output
from gpu_platform.stack.fleet_manager import check_manager_stack, deploy_manager, is_manager_stack
from gpu_platform.stack.infrastructure import (
    Infrastructure,
    cloud_addons,
    cloud_installers,
    deploy_infrastructure,
    metrics_cluster,
    metrics_reader,
)
from gpu_platform.stack.namespaces import create_namespaces
from gpu_platform.stack.read import config_keys, read_stack_config, secret_sections
from gpu_platform.stack.secret_settings import mark_secret_inputs, secret_values
from gpu_platform.stack.spec import PlatformSpec, load_platform


def deploy(spec: PlatformSpec, opts: pulumi.ResourceOptions | None = None) -> dict[str, Any]:
    """Create everything for the spec; return the stack outputs. ``opts`` are given to every top-level
    resource: ``GpuPlatform`` passes ``parent=self``, the stack program nothing."""
    return deploy_platform(spec, opts)[1]


def deploy_platform(
    spec: PlatformSpec, opts: pulumi.ResourceOptions | None = None
) -> tuple[Infrastructure, dict[str, Any]]:
    """``deploy``, also returning the cluster, its provider and its pools."""
    infra = deploy_infrastructure(spec, opts)
    return infra, deploy_on_cluster(spec, infra, opts)


def deploy_on_cluster(
    spec: PlatformSpec, infra: Infrastructure, opts: pulumi.ResourceOptions | None = None
) -> dict[str, Any]:
    """The Kubernetes half of ``deploy`` on a cluster already there: the cloud's own operators, the team
    namespaces and every add-on, through ``infra``'s provider; returns the stack outputs. ``deploy_platform``
    runs it after the cloud's half; the ``pulumi up`` tests run it alone against a local control plane, with
    the cluster's outputs given (``Infrastructure`` of a kubeconfig), so a cloud stack's Kubernetes resources
    are created with the names and URNs its full program gives them."""
    k8s_opts = pulumi.ResourceOptions.merge(opts, pulumi.ResourceOptions(provider=infra.k8s_provider))
    outputs: dict[str, Any] = {
        "cloud": spec.cloud,
        "clusterName": infra.cluster_name,
        "kubeconfig": infra.kubeconfig,
        "gpuPools": {p.name: p.gpu.key for p in spec.pools},
        # What a manager stack's fleet reads of this cluster (docs/multi-cluster.md); no resource.
        FLEET_WORKER_OUTPUT: worker_output(spec),
    }
    if not profile_of(spec.cloud).creates_nodes:
        # Nodes made elsewhere: the labels and taints to put on them by hand (the plan prints the commands).
        outputs["nodeSetup"] = node_setup_output(spec.pools, spec.driver)
    outputs.update(cloud_addons(spec, infra, k8s_opts))
    namespaces = create_namespaces(spec, k8s_opts)
    outputs.update(deploy_addons(spec, infra, k8s_opts, namespaces))
    return outputs


def deploy_addons(
    spec: PlatformSpec, infra: Infrastructure, opts: pulumi.ResourceOptions, namespaces: dict[str, Any]
) -> dict[str, Any]:
    """Every add-on the spec turns on, in registry order, after their contributions to each other's plans are
    collected; returns their stack outputs."""
    on = [a for a in ADDONS if a.enabled is not None and a.deploy is not None and a.enabled(spec)]
    deployment = Deployment(
        spec,
        opts,
        namespaces,
        metrics_cluster=lambda: metrics_cluster(spec, infra),
        metrics_reader=lambda grant, workspace: metrics_reader(spec, infra, grant, workspace, opts),
        installers=cloud_installers(spec),
    )
    for contributor in on:
        if contributor.contributes is not None:
            deployment.contributions.update(contributor.contributes(spec))
    outputs: dict[str, Any] = {}
    for addon in on:
        assert addon.deploy is not None
        outputs.update(addon.deploy(deployment))
    return outputs


def main() -> None:
    """Read the stack's config, check all of it, then create the platform and export its outputs."""
    others = [k for k in config_keys() if not k.startswith(f"{NAMESPACE}:")]
    raw, secret = read_stack_config(), secret_sections()
    if is_manager_stack(raw):  # gpu-platform:fleet: a MultiKueue manager over worker stacks
        for key, value in deploy_manager(check_manager_stack(raw, secret)).items():
            pulumi.export(key, value)
        return
    spec = load_platform(raw, others, secret)
    mark_secret_inputs(secret_values(raw, secret))  # a secret stays secret in every input it reaches
    for key, value in deploy(spec).items():
        pulumi.export(key, value)
