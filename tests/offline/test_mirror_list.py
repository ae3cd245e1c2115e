"""``gpu-platform mirror``: what a mirror of a stack must hold, listed from the plan made without the mirror, with
each piece's place in the mirror. Every image the mirrored stack's charts really render (at the tag they render)
is in the list, so a team that copies the list has everything its cluster pulls."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from gpu_platform.cli import main
from gpu_platform.mirror import Mirror
from gpu_platform.offline import run_plan
from gpu_platform.offline.mirror_list import mirror_listing
from tests.conftest import REPO
from tests.support.mirror import MIRROR, RELEASE, references, rendered_objects

FIXTURE = REPO / "tests" / "fixtures" / "mirror"
SANDBOX = (
    "vgpuDeviceManager",
    "vfioManager",
    "sandboxDevicePlugin",
    "kataSandboxDevicePlugin",
    "kataManager",
)
"""ClusterPolicy sections for sandboxed (VM) workloads: the operator runs them only with sandboxWorkloads on."""


def _tagged(value: str) -> bool:
    last = value.rsplit("/", 1)[-1]
    return ":" in last or "@" in last


def _rendered_images(obj: dict[str, Any]) -> set[str]:
    """Whole image references an object makes a node pull (container images, the operators' custom resources,
    images on command lines), and the ClusterPolicy's enabled sections as ``repository/image:version``."""
    found = {r.value for r in references(obj) if r.kind == "image" and "/" in r.value and _tagged(r.value)}
    if obj["kind"] == "ClusterPolicy":
        spec = obj["spec"]
        sandbox = spec.get("sandboxWorkloads", {}).get("enabled", False)
        for key, section in spec.items():
            if (
                not isinstance(section, dict)
                or section.get("enabled") is False
                or (key in SANDBOX and not sandbox)
            ):
                continue
            for part in (section, section.get("manager") or {}):
                if part.get("repository") and part.get("image"):
                    found.add(f"{part['repository']}/{part['image']}:{part.get('version') or 'v26.7.0'}")
    return found


def test_every_image_the_mirrored_charts_render_is_listed_at_its_tag() -> None:
    listing = mirror_listing(FIXTURE, "everything")
    assert listing.mirror == MIRROR
    targets = {i.target: i for i in listing.images}
    assert all(i.target == MIRROR.image(i.source) for i in listing.images)
    plan = run_plan(FIXTURE, "everything")
    rendered = {
        img for r in plan.by_type(RELEASE) for obj in rendered_objects(r) for img in _rendered_images(obj)
    }
    assert len(rendered) > 40
    unlisted = sorted(
        image
        for image in rendered
        if image not in targets
        and not any(image.startswith(t) and i.note for t, i in targets.items() if t is not None)
    )
    assert unlisted == []
    driver = next(i for i in listing.images if "/driver:" in i.source)
    assert driver.source == "nvcr.io/nvidia/driver:595.91.07" and "OS" in driver.note  # the chart's default


def test_every_chart_is_listed_at_its_pin_with_its_place_in_the_mirror() -> None:
    listing = mirror_listing(FIXTURE, "everything")
    plan = run_plan(FIXTURE, "everything", without=("gpu-platform:mirror",))
    pinned = {(r.inputs["chart"], r.inputs["version"]) for r in plan.by_type(RELEASE)}
    assert {(c.chart, c.version) for c in listing.charts} == pinned
    for c in listing.charts:
        assert c.target == MIRROR.chart(c.chart, c.repository)
    gpu = next(c for c in listing.charts if c.chart == "gpu-operator")
    assert (gpu.repository, gpu.target) == (
        "https://helm.ngc.nvidia.com/nvidia",
        ("oci://registry.acme/helm/gpu-operator", None),
    )


def test_the_cli_lists_prints_json_and_a_script_to_fill_the_mirror(
    capsys: pytest.CaptureFixture[str],
) -> None:
    base = ["mirror", "--project", str(FIXTURE), "--stack", "everything"]
    assert main(base) == 0
    text = capsys.readouterr().out
    assert "charts (18), mirror: oci://registry.acme/helm" in text
    assert (
        "  nvcr.io/nvidia/gpu-operator:v26.7.0  ->  registry.acme/mirror/nvidia/gpu-operator:v26.7.0" in text
    )
    assert main([*base, "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["mirror"] == {"charts": "oci://registry.acme/helm", "images": "registry.acme/mirror"}
    assert {
        "source": "registry.k8s.io/kubectl:v1.34.1",
        "mirror": "registry.acme/mirror/kubectl:v1.34.1",
        "note": "",
    } in doc["images"]
    assert main([*base, "--format", "script"]) == 0
    script = capsys.readouterr().out.splitlines()
    assert "helm pull gpu-operator --repo https://helm.ngc.nvidia.com/nvidia --version v26.7.0" in script
    assert "helm push gpu-operator-v26.7.0.tgz oci://registry.acme/helm" in script
    assert "crane copy registry.k8s.io/kueue/kueue:v0.19.2 registry.acme/mirror/kueue/kueue:v0.19.2" in script
    assert any(line.startswith("# nvcr.io/nvidia/driver:595.91.07: tag suffixed") for line in script)
    # A tag and a digest: copied to the tag (the copy keeps the digest; a tag@digest target would drop the tag).
    pause = "gke.gcr.io/pause:3.8@sha256:880e63f94b145e46f1b1082bb71b85e21f16b99b180b9996407d61240ceb9830"
    assert (
        main(
            ["mirror", "--project", str(REPO), "--stack", "dev", "--images", "r.acme/m", "--format", "script"]
        )
        == 0
    )
    assert f"crane copy {pause} r.acme/m/pause:3.8" in capsys.readouterr().out.splitlines()


def test_the_cli_takes_a_mirror_of_its_own_and_refuses_a_bad_one(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["mirror", "--project", str(REPO), "--stack", "prod"]) == 0
    out = capsys.readouterr().out
    assert "mirror: none set (upstream)" in out and "->" not in out
    assert (
        main(["mirror", "--stack", "prod", "--project", str(REPO), "--images", "harbor.acme:8443/gpu"]) == 0
    )
    assert (
        "registry.k8s.io/kubectl:v1.34.1  ->  harbor.acme:8443/gpu/kubectl:v1.34.1" in capsys.readouterr().out
    )
    assert main(["mirror", "--stack", "prod", "--project", str(REPO), "--charts", "charts.acme"]) == 2
    assert "gpu-platform:mirror.charts: 'charts.acme' is not a chart mirror" in capsys.readouterr().err


def test_an_http_chart_mirror_is_filled_by_upload(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["mirror", "--project", str(FIXTURE), "--stack", "karpenter", "--format", "script"]) == 0
    script = capsys.readouterr().out
    assert (
        "# upload karpenter-1.14.1.tgz to https://charts.acme/gpu, then re-index it (helm repo index)"
        in script
    )
    listing = mirror_listing(FIXTURE, "karpenter")
    assert listing.mirror == Mirror("https://charts.acme/gpu", "registry.acme:5000/mirror")
    assert ("karpenter", "https://charts.acme/gpu") in {c.target for c in listing.charts}


def test_the_images_the_served_models_presets_run_are_listed_where_the_services_name_them() -> None:
    """Planned without the mirror, an LLMInferenceService names none of its presets' images; the listing still
    holds each, at the place the mirrored plan's services name it (``spec.template``, the scheduler's)."""
    listing = mirror_listing(FIXTURE, "serving")
    listed = {i.source: i.target for i in listing.images}
    plan = run_plan(FIXTURE, "serving")
    services = [r.inputs for r in plan.resources if r.inputs.get("kind") == "LLMInferenceService"]
    assert services
    named = {
        c["image"]
        for s in services
        for template in (s["spec"]["template"], s["spec"]["router"]["scheduler"]["template"])
        for c in template["containers"]
        if "image" in c
    }
    presets = {
        "ghcr.io/llm-d/llm-d-cuda:v0.8.0",
        "ghcr.io/llm-d/llm-d-router-endpoint-picker:v0.9.0",
        "ghcr.io/llm-d/llm-d-uds-tokenizer:vllm-v0.19.1",
    }
    assert {listed[image] for image in presets} <= named
    assert all(listed[image] == MIRROR.image(image) for image in presets)
