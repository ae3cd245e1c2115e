"""The presets' images the library names behind a mirror are the ones KServe v0.20.0's presets run, container by
container (the controller merges a service's containers into the presets' by name)."""

from __future__ import annotations

from typing import Any

from gpu_platform.addons.serving import preset_images as pi
from gpu_platform.mirror import Mirror
from tests.addons.serving.test_gateway import preset


def _images(containers: list[dict[str, str]]) -> dict[str, str]:
    return {c["name"]: c["image"] for c in containers}


def test_the_images_are_the_presets_own() -> None:
    template = preset("kserve-config-llm-template")["spec"]["template"]["containers"]
    scheduler = preset("kserve-config-llm-scheduler")["spec"]["router"]["scheduler"]["template"]["containers"]
    assert _images(template) == pi.SERVER_CONTAINERS == {"main": "ghcr.io/llm-d/llm-d-cuda:v0.8.0"}
    assert _images(scheduler) == pi.SCHEDULER_CONTAINERS


def test_a_mirror_names_each_preset_container_s_image_and_keeps_the_rest() -> None:
    spec: dict[str, Any] = {
        "template": {
            "containers": [{"name": "main", "env": [{"name": "A", "value": "1"}]}],
            "nodeSelector": {},
        },
        "router": {"route": {}, "scheduler": {}},
    }
    out = pi.with_mirrored_presets(spec, Mirror(images="registry.acme/mirror"))
    assert out["template"] == {
        "containers": [
            {
                "name": "main",
                "env": [{"name": "A", "value": "1"}],
                "image": "registry.acme/mirror/llm-d/llm-d-cuda:v0.8.0",
            }
        ],
        "nodeSelector": {},
    }
    assert out["router"] == {
        "route": {},
        "scheduler": {
            "template": {
                "containers": [
                    {
                        "name": "main",
                        "image": "registry.acme/mirror/llm-d/llm-d-router-endpoint-picker:v0.9.0",
                    },
                    {
                        "name": "tokenizer",
                        "image": "registry.acme/mirror/llm-d/llm-d-uds-tokenizer:vllm-v0.19.1",
                    },
                ]
            }
        },
    }
    assert spec["router"]["scheduler"] == {}  # the input is not changed


def test_without_an_image_mirror_the_spec_is_unchanged() -> None:
    spec = {"template": {"containers": [{"name": "main"}]}, "router": {"scheduler": {}}}
    assert pi.with_mirrored_presets(spec, None) is spec
    assert pi.with_mirrored_presets(spec, Mirror(charts="oci://registry.acme/helm")) is spec
