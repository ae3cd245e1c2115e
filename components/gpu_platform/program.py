"""The deployable program: config in, platform out. ``stacks/__main__.py`` and examples call it.

It reads ``gpu-platform:`` config once, checks all of it before registering anything, then builds
the cluster and GPU pools, the GPU Operator, Kueue and KServe, each from the same ``PlatformSpec``.
"""

from __future__ import annotations

import json
from typing import Any

import pulumi

from gpu_platform.config import NAMESPACE, PlatformSpec, load_platform
from gpu_platform.config.stack import StackConfig


def read_stack_config() -> dict[str, Any]:
    """Every ``gpu-platform:<key>`` the stack sets, objects parsed from JSON (unknown keys included,
    so they are reported rather than ignored)."""
    from pulumi.runtime import config as runtime_config

    cfg = pulumi.Config(NAMESPACE)
    raw: dict[str, Any] = {}
    known = {f.alias or name for name, f in StackConfig.model_fields.items()}
    present = set(runtime_config.CONFIG.get()) | set(runtime_config.get_config_env())
    all_keys = [k.split(":", 1)[1] for k in present if k.startswith(f"{NAMESPACE}:")]
    for key in sorted(set(all_keys) | known):
        text = cfg.get(key)
        if text is None:
            continue
        try:
            value = json.loads(text)
        except ValueError:
            value = text
        # Scalars stay strings ("12.8" is a CUDA version, not a float).
        raw[key] = value if isinstance(value, (dict, list)) else text
    return raw


def deploy(spec: PlatformSpec) -> dict[str, Any]:
    """Create everything for the spec; return the stack outputs."""
    from gpu_platform.clouds import deploy_infrastructure

    infra = deploy_infrastructure(spec)
    k8s_opts = pulumi.ResourceOptions(provider=infra.k8s_provider)
    cfg = spec.config
    outputs: dict[str, Any] = {
        "cloud": spec.cloud,
        "clusterName": infra.cluster_name,
        "kubeconfig": infra.kubeconfig,
        "gpuPools": {p.name: p.gpu.key for p in spec.pools},
    }
    operator = None
    if cfg.gpu_operator.enabled:
        from gpu_platform.operators.gpu_operator import GpuOperator, gpu_operator_args_from_spec

        operator = GpuOperator("gpu-operator", gpu_operator_args_from_spec(spec), opts=k8s_opts)
        outputs["gpuOperatorStatus"] = operator.status
    kueue = None
    if cfg.kueue.enabled:
        from gpu_platform.operators.kueue import Kueue, kueue_args_from_spec

        kueue = Kueue("kueue", kueue_args_from_spec(spec), opts=k8s_opts)
        outputs["clusterQueues"] = kueue.cluster_queue_names
    if cfg.kserve.enabled:
        from gpu_platform.operators.kserve import deploy_kserve

        # After the operator (GPU pods need the device plugin) and Kueue (team namespaces, queues).
        outputs.update(
            deploy_kserve(spec, k8s_opts, depends_on=[r for r in (operator, kueue) if r is not None])
        )
    return outputs


def main() -> None:
    spec = load_platform(read_stack_config())
    for key, value in deploy(spec).items():
        pulumi.export(key, value)
