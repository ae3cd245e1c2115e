"""A cloud stack's program with the cloud's half given: what ``pulumi up`` runs against a local control plane
(``tests/control_plane/test_pulumi_up_cloud.py``) and what ``tests/stack/test_program.py`` compares with the
full program under mocks."""

from __future__ import annotations

KUBECONFIG_KEY = "local:kubeconfig"
"""Outside ``gpu-platform:``: the cluster's output the tests give, read by ``kubernetes_half`` only."""


def kubernetes_half() -> None:
    """The stack program with the cloud's half given: ``stack.program.main`` from ``load_platform`` on, its
    ``deploy_infrastructure`` replaced by the cluster's outputs (a provider of the given kubeconfig)."""
    import pulumi

    from gpu_platform.clouds.cluster_provider import cluster_provider
    from gpu_platform.clouds.infrastructure import Infrastructure
    from gpu_platform.errors import NAMESPACE
    from gpu_platform.stack.program import deploy_on_cluster
    from gpu_platform.stack.read import config_keys, read_stack_config, secret_sections
    from gpu_platform.stack.secret_settings import mark_secret_inputs, secret_values
    from gpu_platform.stack.spec import load_platform

    others = [k for k in config_keys() if not k.startswith(f"{NAMESPACE}:")]
    raw, secret = read_stack_config(), secret_sections()
    spec = load_platform(raw, others, secret)
    mark_secret_inputs(secret_values(raw, secret))
    kubeconfig = pulumi.Config("local").require_secret("kubeconfig")
    provider = cluster_provider(f"{spec.cluster.name}-k8s", kubeconfig, None)
    for key, value in deploy_on_cluster(
        spec, Infrastructure(provider, kubeconfig, spec.cluster.name)
    ).items():
        pulumi.export(key, value)
