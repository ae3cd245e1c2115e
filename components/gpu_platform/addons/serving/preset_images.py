"""The images KServe's LLMInferenceService presets run, and how a mirror reaches them.

KServe v0.20.0 writes these images into the presets themselves (``charts/kserve-runtime-configs/files/
llmisvcconfigs/resources.yaml``, included whole by ``templates/llmisvcconfigs/resources.yaml``): neither that chart
nor ``kserve-llmisvc-resources`` has a value for them, so a chart mirror cannot rewrite them. The controller merges
every service over its presets as a strategic merge patch of the ``LLMInferenceServiceSpec`` (``MergeSpecs``,
``pkg/controller/v1alpha2/llmisvc/config_merge.go``), which merges pod containers by name: a container of the
service's own ``spec.template`` or ``spec.router.scheduler.template`` that names only an ``image`` replaces the
preset's image and keeps the rest. So with an image mirror each service names the mirrored images of the
containers its presets run (``kserve-config-llm-template`` for the model server, ``kserve-config-llm-scheduler``
for the endpoint picker, which the controller applies because the router has a scheduler and no pool reference);
without one the service names none and the presets' own apply.
"""

from __future__ import annotations

from typing import Any

from gpu_platform.mirror import Mirror

VLLM_IMAGE = "ghcr.io/llm-d/llm-d-cuda:v0.8.0"
"""``kserve-config-llm-template``'s container ``main``: vLLM (llm-d's CUDA build)."""
ENDPOINT_PICKER_IMAGE = "ghcr.io/llm-d/llm-d-router-endpoint-picker:v0.9.0"
"""``kserve-config-llm-scheduler``'s container ``main``: the endpoint picker (EPP)."""
TOKENIZER_IMAGE = "ghcr.io/llm-d/llm-d-uds-tokenizer:vllm-v0.19.1"
"""``kserve-config-llm-scheduler``'s container ``tokenizer``: the picker's tokenizer for prefix-cache scoring."""

DISAGG_SIDECAR_IMAGE = "ghcr.io/llm-d/llm-d-router-disagg-sidecar:v0.9.0"
"""``kserve-config-llm-decode-template``'s init container ``llm-d-routing-sidecar`` (prefill/decode)."""

SERVER_CONTAINERS = {"main": VLLM_IMAGE}
"""Containers of ``spec.template`` (the preset ``kserve-config-llm-template``) -> the image each runs; also
``spec.prefill.template``'s (``kserve-config-llm-prefill-template``)."""
DECODE_INIT_CONTAINERS = {"llm-d-routing-sidecar": DISAGG_SIDECAR_IMAGE}
"""Init containers of ``spec.template`` when the service has ``spec.prefill`` (``kserve-config-llm-decode-template``)."""
SCHEDULER_CONTAINERS = {"main": ENDPOINT_PICKER_IMAGE, "tokenizer": TOKENIZER_IMAGE}
"""Containers of ``spec.router.scheduler.template`` (the preset ``kserve-config-llm-scheduler``) -> image."""


def with_mirrored_presets(spec: dict[str, Any], mirror: Mirror | None) -> dict[str, Any]:
    """``spec`` (an ``LLMInferenceService``'s) naming the mirrored image of every preset container it runs; ``spec``
    itself without an image mirror."""
    if mirror is None or mirror.images is None:
        return spec
    out = dict(spec)
    template = dict(out["template"])
    template["containers"] = _with_images(template.get("containers", []), SERVER_CONTAINERS, mirror)
    if isinstance(out.get("prefill"), dict):
        # Prefill/decode: the decode preset's routing sidecar, and the prefill preset's vLLM.
        template["initContainers"] = _with_images(
            template.get("initContainers", []), DECODE_INIT_CONTAINERS, mirror
        )
        prefill = dict(out["prefill"])
        prefill_template = dict(prefill["template"])
        prefill_template["containers"] = _with_images(
            prefill_template.get("containers", []), SERVER_CONTAINERS, mirror
        )
        prefill["template"] = prefill_template
        out["prefill"] = prefill
    out["template"] = template
    # A replica spanning nodes: the pipeline preset's workers run vLLM too.
    if isinstance(out.get("worker"), dict):
        worker = dict(out["worker"])
        worker["containers"] = _with_images(worker.get("containers", []), SERVER_CONTAINERS, mirror)
        out["worker"] = worker
    router = out.get("router")
    if isinstance(router, dict) and isinstance(router.get("scheduler"), dict):
        scheduler = dict(router["scheduler"])
        scheduler_template = dict(scheduler.get("template") or {})
        scheduler_template["containers"] = _with_images(
            scheduler_template.get("containers", []), SCHEDULER_CONTAINERS, mirror
        )
        scheduler["template"] = scheduler_template
        out["router"] = {**router, "scheduler": scheduler}
    return out


def _with_images(
    containers: list[dict[str, Any]], images: dict[str, str], mirror: Mirror
) -> list[dict[str, Any]]:
    """``containers`` with each preset container's mirrored image, added by name where the service has none."""
    by_name = {c["name"]: dict(c) for c in containers}
    for name, image in images.items():
        by_name.setdefault(name, {"name": name})["image"] = mirror.image(image)
    return list(by_name.values())
