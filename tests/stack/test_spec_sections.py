"""The ``gpuOperator`` and ``dra`` sections come out of the stack file typed, with their defaults applied,
and the stack and the components build the same plan from the same settings."""

from __future__ import annotations

from gpu_platform import versions
from gpu_platform.addons.dra.args_checks import resolve_dra_driver
from gpu_platform.addons.dra.checks import DraSpec, ResolvedDra
from gpu_platform.addons.dra.plan import dra_plan
from gpu_platform.addons.dra.settings import DEFAULT_CLAIM_NAMESPACES
from gpu_platform.addons.gpu_operator.checks import GpuOperatorSpec, ResolvedGpuOperator, resolve_gpu_operator
from gpu_platform.addons.gpu_operator.plan import gpu_operator_plan
from gpu_platform.stack import load_platform
from tests.support.stacks import existing


def test_defaults_of_an_empty_section() -> None:
    operator = GpuOperatorSpec.from_settings({})
    assert (operator.enabled, operator.version, operator.dcgm_exporter, operator.service_monitor) == (
        True,
        versions.GPU_OPERATOR.version,
        True,
        False,
    )
    dra = DraSpec.from_settings({})
    assert (dra.enabled, dra.version, dra.compute_domains) == (False, versions.DRA_DRIVER.version, False)
    assert dra.claim_namespaces == DEFAULT_CLAIM_NAMESPACES


def test_stack_sections_are_typed() -> None:
    operator = {"driver": {"owner": "operator"}, "dcgmExporter": {"enabled": False}}
    spec = load_platform(existing(gpuOperator=operator, observability={"enabled": False}))
    assert spec.gpu_operator == GpuOperatorSpec(driver={"owner": "operator"}, dcgm_exporter=False)
    assert spec.dra == DraSpec(enabled=True, claim_namespaces=("ml",))


def test_stack_and_component_make_the_same_plans() -> None:
    spec = load_platform(existing())
    assert spec.gpu_operator is not None and spec.dra is not None
    pools = [
        {
            "name": "h100",
            "gpu": "h100-80gb",
            "gpus_per_node": 8,
            "cpus_per_node": 192,
            "memory_gib_per_node": 2048,
            "max_nodes": 2,
            "allocation": "dra",
        },
        {
            "name": "l40s",
            "gpu": "l40s",
            "gpus_per_node": 4,
            "cpus_per_node": 64,
            "memory_gib_per_node": 512,
            "max_nodes": 2,
            "sharing": {"mode": "time-slicing", "replicas": 2},
        },
    ]
    driver = {"owner": "operator"}
    component = gpu_operator_plan(
        resolve_gpu_operator({"cloud": "existing", "pools": pools, "driver": driver})
    )
    stack = gpu_operator_plan(
        ResolvedGpuOperator(
            spec.cloud, spec.pools, spec.driver, spec.gpu_operator, versions.GPU_OPERATOR.namespace
        )
    )
    assert component.values == stack.values
    args = {"cloud": "existing", "pools": pools, "driver": driver, "kubernetes_version": "1.34.2"}
    dra = dra_plan(resolve_dra_driver({**args, "claim_namespaces": ["ml"]}))  # type: ignore[arg-type]
    kubernetes = spec.cluster.kubernetes_version
    assert kubernetes is not None
    resolved = ResolvedDra(
        spec.cloud, spec.pools, spec.driver, kubernetes, spec.dra, versions.DRA_DRIVER.namespace
    )
    assert dra == dra_plan(resolved)
