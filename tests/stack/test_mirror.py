"""Behind a mirror, nothing a stack installs comes from anywhere else.

Stacks with every add-on on, across the clouds (an existing cluster with every add-on; EKS with the Cluster
Autoscaler, EFA and Trainer; EKS with Karpenter behind an HTTP chart repository; GKE A3 Mega (TCPXO) and A4X
(RDMA, Arm, DRA) with Google's driver installer; AKS ND H100 with the Network Operator; EKS serving language models
through Envoy Gateway, one scaled by KEDA), are planned with the
``mirror`` setting. Every release's chart must come from the chart mirror, and no image reference may point
anywhere but the image mirror: not in any release's values, not in any object the library creates, and not in
any object the real charts (vendored at their pins) render from those values: Deployments, DaemonSets, Jobs, the
operators' custom resources (ClusterPolicy, Prometheus, Slinky's NodeSets, KServe's runtimes) and the images
operators are told on their command lines or in their ConfigMaps.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

import pytest

from gpu_platform.mirror import Mirror
from gpu_platform.offline import Plan, run_plan
from tests.conftest import REPO
from tests.support.mirror import MIRROR, RELEASE, Reference, outside, references, rendered_objects

FIXTURE = REPO / "tests" / "fixtures" / "mirror"
OVERLAY = FIXTURE / "mirror.yaml"
TOPOLOGY = REPO / "examples" / "topology-aware-training"
HTTP_MIRROR = Mirror("https://charts.acme/gpu", "registry.acme:5000/mirror")
"""The Karpenter stack's mirror (its stack file): one Helm repository, a registry on a port."""

CASES: dict[str, tuple[Path, str, Path | None, Mirror]] = {
    "existing-everything": (FIXTURE, "everything", None, MIRROR),
    "eks-prod": (REPO, "prod", OVERLAY, MIRROR),
    "eks-karpenter-http": (FIXTURE, "karpenter", None, HTTP_MIRROR),
    "gke-a3-mega": (TOPOLOGY, "gke-a3-mega", OVERLAY, MIRROR),
    "gke-a4x": (TOPOLOGY, "gke-a4x", OVERLAY, MIRROR),
    "aks-nd-h100": (TOPOLOGY, "aks-nd-h100", OVERLAY, MIRROR),
    "eks-serving": (FIXTURE, "serving", None, MIRROR),
}
"""Case -> (project, stack, the mirror laid over its stack file, the mirror it is planned with)."""
LLMISVC = "kubernetes:serving.kserve.io/v1alpha2:LLMInferenceService"
PRESET_KIND = "LLMInferenceServiceConfig"
"""KServe's presets (the ``kserve-runtime-configs`` chart's files): images in templates the controller merges each
service over, where the service's own container images win; checked against the services below."""


@functools.cache
def mirrored(case: str) -> Plan:
    project, stack, overlay, _ = CASES[case]
    return run_plan(project, stack, config_file=overlay)


def _leaks(objects: Any, mirror: Mirror, where: str) -> list[Reference]:
    return [r for r in references(objects, where) if outside(r, mirror)]


@pytest.mark.parametrize("case", sorted(CASES))
def test_every_chart_comes_from_the_chart_mirror(case: str) -> None:
    mirror = CASES[case][3]
    releases = mirrored(case).by_type(RELEASE)
    assert releases
    for release in releases:
        chart, repo = release.inputs["chart"], (release.inputs.get("repositoryOpts") or {}).get("repo")
        if mirror.oci_charts:
            assert chart.startswith(f"{mirror.charts}/") and repo is None, (release.name, chart, repo)
        else:
            assert repo == mirror.charts and "/" not in chart, (release.name, chart, repo)


@pytest.mark.parametrize("case", sorted(CASES))
def test_no_planned_value_or_object_names_an_image_outside_the_mirror(case: str) -> None:
    plan, mirror = mirrored(case), CASES[case][3]
    leaks: list[Reference] = []
    for r in plan.resources:
        if r.type == RELEASE:
            leaks += _leaks(r.inputs.get("values") or {}, mirror, f"{r.name}.values")
        elif r.type.startswith("kubernetes:"):
            leaks += _leaks(r.inputs, mirror, r.name)
    assert leaks == []


@pytest.mark.parametrize("case", sorted(CASES))
def test_no_rendered_object_pulls_an_image_from_outside_the_mirror(case: str) -> None:
    plan, mirror = mirrored(case), CASES[case][3]
    leaks: list[Reference] = []
    kinds: set[str] = set()
    for release in plan.by_type(RELEASE):
        for obj in rendered_objects(release):
            kinds.add(obj["kind"])
            if obj["kind"] == PRESET_KIND:
                continue  # templates, not pods: test_the_presets_the_services_run_are_overridden_from_the_mirror
            leaks += _leaks(obj, mirror, f"{release.name}/{obj['kind']}/{obj['metadata'].get('name')}")
    assert leaks == []
    assert {"Deployment", "DaemonSet"} <= kinds  # the charts did render their workloads


def test_the_walk_finds_what_a_mirror_must_replace() -> None:
    """The same stack without its mirror: the checks above would have caught every upstream place."""
    plan = run_plan(FIXTURE, "everything", without=("gpu-platform:mirror",))
    found = {
        r.value
        for release in plan.by_type(RELEASE)
        for obj in rendered_objects(release)
        for r in references(obj)
        if outside(r)
    }
    for upstream in (
        "nvcr.io/nvidia/gpu-operator:v26.7.0",  # the operator's Deployment
        "nvcr.io/nvidia/k8s",  # ClusterPolicy: toolkit, DCGM exporter
        "registry.k8s.io/nfd/node-feature-discovery:v0.19.0",
        "quay.io/prometheus-operator/prometheus-config-reloader:v0.93.1",  # on the operator's command line
        "kserve/storage-initializer:v0.20.0",  # inferenceservice-config (JSON in a ConfigMap)
        "ghcr.io/slinkyproject/slurmd-pyxis:26.05-ubuntu26.04",  # a Slinky NodeSet
        "docker.io/volcanosh/vc-scheduler:v1.15.1",  # Volcano's one registry before each name
    ):
        assert upstream in found, upstream


def test_the_mirror_changes_where_things_come_from_and_nothing_else() -> None:
    plain = run_plan(FIXTURE, "everything", without=("gpu-platform:mirror",))
    behind = mirrored("existing-everything")
    assert [r.urn for r in plain.resources] == [r.urn for r in behind.resources]
    changed = {
        path
        for a, b in zip(plain.resources, behind.resources, strict=True)
        for path in _differences(a.inputs, b.inputs, a.name)
    }
    # Only where charts and images come from: the chart and its repository, and image keys of the values and
    # objects (repository, registry, image, ``defaultJobImage``, Volcano's ``*_image_name`` ...).
    keys = [p.rsplit(".", 1)[-1].split("[")[0] for p in changed]
    where = ("repository", "registry", "chart", "repo")
    assert changed and all(k in where or "image" in k.lower() for k in keys), sorted(changed)


def _differences(a: Any, b: Any, path: str) -> list[str]:
    """Leaf paths whose values differ (a mapping only one side has counts as empty on the other)."""
    if isinstance(a, dict) or isinstance(b, dict):
        a, b = a if isinstance(a, dict) else {}, b if isinstance(b, dict) else {}
        return [p for k in sorted({*a, *b}) for p in _differences(a.get(k), b.get(k), f"{path}.{k}")]
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        return [
            p for i, (x, y) in enumerate(zip(a, b, strict=True)) for p in _differences(x, y, f"{path}[{i}]")
        ]
    return [] if a == b else [path]


def test_gpudirect_pods_are_told_the_mirrored_receive_data_path_daemon() -> None:
    pods = mirrored("gke-a3-mega").outputs["gpudirectPods"]
    sidecars = [c for pod in pods.values() for c in pod["sidecars"]]
    assert sidecars and all(MIRROR.owns(c["image"]) for c in sidecars)
    daemon = "registry.acme/mirror/gce-ai-infra/gpudirect-tcpxo/tcpgpudmarxd-dev:v1.0.21"
    assert {c["image"] for c in sidecars} == {daemon}


def test_google_s_preloaded_driver_installer_image_is_kept() -> None:
    """COS nodes hold ``cos-nvidia-installer:fixed`` already (pull policy Never): there is nothing to mirror."""
    plan = mirrored("gke-a3-mega")
    (installer,) = [r for r in plan.by_type("kubernetes:apps/v1:DaemonSet") if "driver-installer" in r.name]
    init = installer.inputs["spec"]["template"]["spec"]["initContainers"]
    assert (init[0]["image"], init[0].get("imagePullPolicy")) == ("cos-nvidia-installer:fixed", "Never")
    assert all(MIRROR.owns(c["image"]) for c in init[1:])


def test_served_models_run_the_presets_images_from_the_mirror() -> None:
    """KServe's presets name vLLM's and the endpoint picker's images in their files, not in chart values: each
    LLMInferenceService names the mirrored ones for the containers the presets merge it into (by name)."""
    services = mirrored("eks-serving").by_type(LLMISVC)
    assert len(services) == 3
    for service in services:
        spec = service.inputs["spec"]
        (main,) = spec["template"]["containers"]
        assert (main["name"], main["image"]) == ("main", "registry.acme/mirror/llm-d/llm-d-cuda:v0.8.0")
        assert spec["router"]["scheduler"]["template"]["containers"] == [
            {"name": "main", "image": "registry.acme/mirror/llm-d/llm-d-router-endpoint-picker:v0.9.0"},
            {"name": "tokenizer", "image": "registry.acme/mirror/llm-d/llm-d-uds-tokenizer:vllm-v0.19.1"},
        ]


def test_without_a_mirror_served_models_leave_the_images_to_the_presets() -> None:
    plain = run_plan(FIXTURE, "serving", without=("gpu-platform:mirror",))
    services = plain.by_type(LLMISVC)
    assert len(services) == 3
    for service in services:
        spec = service.inputs["spec"]
        assert "image" not in spec["template"]["containers"][0]
        assert spec["router"]["scheduler"] == {}


def test_envoy_gateway_and_the_proxies_it_runs_come_from_the_mirror() -> None:
    (release,) = [r for r in mirrored("eks-serving").by_type(RELEASE) if r.inputs["name"] == "eg"]
    values = release.inputs["values"]
    assert (
        values["deployment"]["envoyGateway"]["image"]["repository"]
        == "registry.acme/mirror/envoyproxy/gateway"
    )
    # The Envoy proxy of every Gateway: set, so the EnvoyGateway configuration names it instead of the built-in one.
    assert values["global"]["images"]["envoyProxy"]["image"] == (
        "registry.acme/mirror/envoyproxy/envoy:distroless-v1.38.1"
    )
    rendered = {(o["kind"], o["metadata"]["name"]): o for o in rendered_objects(release)}
    config = rendered[("ConfigMap", "envoy-gateway-config")]["data"]["envoy-gateway.yaml"]
    assert "image: registry.acme/mirror/envoyproxy/envoy:distroless-v1.38.1" in config
    assert "image: registry.acme/mirror/envoyproxy/ratelimit:ff287602" in config
    (controller,) = rendered[("Deployment", "envoy-gateway")]["spec"]["template"]["spec"]["containers"]
    assert controller["image"] == "registry.acme/mirror/envoyproxy/gateway:v1.8.1"


def test_the_presets_the_services_run_are_overridden_from_the_mirror() -> None:
    """The presets' images stay upstream in the chart's files; each one a service runs (the model server's template
    and the scheduler) is named, mirrored, by every service, and the presets it does not run are the
    prefill/decode, multi-node and latency-predictor variants the library plans no service for."""
    plan = mirrored("eks-serving")
    (presets,) = [r for r in plan.by_type(RELEASE) if r.inputs["name"] == "kserve-llmisvc-configs"]
    upstream = {
        obj["metadata"]["name"]: found
        for obj in rendered_objects(presets)
        if obj["kind"] == PRESET_KIND and (found := {r.value for r in references(obj) if outside(r, MIRROR)})
    }
    run = upstream.pop("kserve-config-llm-template") | upstream.pop("kserve-config-llm-scheduler")
    assert run == {
        "ghcr.io/llm-d/llm-d-cuda:v0.8.0",
        "ghcr.io/llm-d/llm-d-router-endpoint-picker:v0.9.0",
        "ghcr.io/llm-d/llm-d-uds-tokenizer:vllm-v0.19.1",
    }
    for service in plan.by_type(LLMISVC):
        named = {r.value for r in references(service.inputs)}
        assert {MIRROR.image(image) for image in run} <= named, service.name
        assert "baseRefs" not in service.inputs["spec"]  # only the presets the controller picks itself
    assert all(("decode" in n or "prefill" in n or "worker" in n or "latency" in n) for n in upstream), (
        upstream
    )
