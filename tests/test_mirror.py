"""The mirror mapping (``gpu_platform.mirror``): image references read as the runtimes read them, the registry
host replaced and everything else kept; charts at ``<oci mirror>/<chart>`` or by name from one Helm repository."""

from __future__ import annotations

import pytest

from gpu_platform.mirror import Mirror, parse_reference

MIRROR = Mirror("oci://registry.acme/helm", "registry.acme/mirror")
DIGEST = "sha256:880e63f94b145e46f1b1082bb71b85e21f16b99b180b9996407d61240ceb9830"


@pytest.mark.parametrize(
    ("upstream", "mirrored"),
    [
        ("nvcr.io/nvidia/gpu-operator:v26.7.0", "registry.acme/mirror/nvidia/gpu-operator:v26.7.0"),
        ("nvcr.io/nvidia/cloud-native", "registry.acme/mirror/nvidia/cloud-native"),  # a repository prefix
        ("registry.k8s.io/kubectl:v1.34.1", "registry.acme/mirror/kubectl:v1.34.1"),
        (f"gke.gcr.io/pause:3.8@{DIGEST}", f"registry.acme/mirror/pause:3.8@{DIGEST}"),
        (f"gcr.io/gke-release/nri@{DIGEST}", f"registry.acme/mirror/gke-release/nri@{DIGEST}"),
        ("localhost:5000/team/tool:1", "registry.acme/mirror/team/tool:1"),
        (
            "602401143452.dkr.ecr.us-west-2.amazonaws.com/eks/aws-efa-k8s-device-plugin:v0.5.20",
            "registry.acme/mirror/eks/aws-efa-k8s-device-plugin:v0.5.20",
        ),
        # Docker Hub: a first component without '.' or ':' is a namespace; one-component names are library/.
        ("kserve/agent:v0.20.0", "registry.acme/mirror/kserve/agent:v0.20.0"),
        ("ubuntu:24.04", "registry.acme/mirror/library/ubuntu:24.04"),
        ("busybox", "registry.acme/mirror/library/busybox"),
        ("docker.io/library/alpine:latest", "registry.acme/mirror/library/alpine:latest"),
        ("index.docker.io/seldonio/mlserver:1.5.0", "registry.acme/mirror/seldonio/mlserver:1.5.0"),
    ],
)
def test_an_image_keeps_its_path_tag_and_digest_under_the_mirror(upstream: str, mirrored: str) -> None:
    assert MIRROR.image(upstream) == mirrored
    assert MIRROR.image(mirrored) == mirrored  # already in the mirror: kept, never nested


def test_references_split_as_the_runtimes_read_them() -> None:
    ref = parse_reference(f"nvcr.io/nvidia/driver:595.91.07@{DIGEST}")
    assert (ref.registry, ref.path, ref.suffix) == ("nvcr.io", "nvidia/driver", f":595.91.07@{DIGEST}")
    assert str(parse_reference("busybox:1.38")) == "docker.io/library/busybox:1.38"
    assert parse_reference("registry.acme:5000/x").registry == "registry.acme:5000"


def test_without_an_image_mirror_every_reference_is_kept() -> None:
    assert Mirror("oci://registry.acme/helm").image("nvcr.io/nvidia/driver:1") == "nvcr.io/nvidia/driver:1"
    assert not Mirror() and Mirror(images="r.acme")


def test_charts_from_an_oci_mirror_or_one_helm_repository() -> None:
    assert MIRROR.chart("oci://registry.k8s.io/kueue/charts/kueue", None) == (
        "oci://registry.acme/helm/kueue",
        None,
    )
    assert MIRROR.chart("gpu-operator", "https://helm.ngc.nvidia.com/nvidia") == (
        "oci://registry.acme/helm/gpu-operator",
        None,
    )
    http = Mirror("https://charts.acme/gpu")
    assert http.chart("oci://ghcr.io/kserve/charts/kserve-crd", None) == (
        "kserve-crd",
        "https://charts.acme/gpu",
    )
    assert http.chart("volcano", "https://volcano-sh.github.io/helm-charts") == (
        "volcano",
        "https://charts.acme/gpu",
    )
    assert Mirror(images="r.acme").chart("volcano", "https://x") == ("volcano", "https://x")
