"""Serving in the stack: after KServe (its namespace, ConfigMap and certificate issuer) and the GPU Operator (the
pods need the device plugin), the LLMInferenceService controller and one service per model."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from gpu_platform.addons.requirement import Requirement, Sections, section_on
from gpu_platform.addons.serving.plan import serving_plan

if TYPE_CHECKING:
    from gpu_platform.addons.deployment import Deployment
    from gpu_platform.addons.platform_spec import PlatformSpec

COMPONENT_NAME = "serving"


def _models(s: Sections) -> bool:
    section = s.get("serving")
    return isinstance(section, Mapping) and bool(section.get("models"))


REQUIRES = (
    Requirement(
        ("serving", "models"),
        "kserve.enabled",
        met=lambda s, pool: section_on(s, "kserve", False),
        applies=lambda s, pool: _models(s),
        reason=lambda s, pool: (
            "needs {{kserve.enabled}}: the LLMInferenceService controller runs beside KServe's (its namespace, "
            "inferenceservice-config and cert-manager issuer); turn KServe on, or remove the serving section"
        ),
    ),
)
"""The LLMInferenceService controller is installed with ``createSharedResources: false``: KServe's release holds
the shared resources."""


def enabled(spec: PlatformSpec) -> bool:
    return spec.serving is not None


def deploy(d: Deployment) -> dict[str, Any]:
    from gpu_platform.addons.serving.component import LlmServing

    spec = d.spec.serving
    assert spec is not None
    plan = serving_plan(spec, existing_namespaces=frozenset(d.namespaces))
    # The scrape objects of autoscaled models are the Prometheus Operator's kinds: after its CRDs.
    metrics = d.after("observability") if spec.autoscaled else []
    namespaces = [d.namespaces[n] for n in spec.namespaces if n in d.namespaces]
    deps = [*d.after("gpu_operator", "kserve"), *metrics, *namespaces]
    component = LlmServing.from_plan(COMPONENT_NAME, plan, d.with_dependencies(deps))
    d.created["serving"] = component
    return {"llmServices": component.services}
