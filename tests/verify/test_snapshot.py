"""Helm releases read from their storage secrets: the newest revision of each, chart and version decoded."""

from __future__ import annotations

from gpu_platform.verify.snapshot import HelmRelease, decode_helm_secret, encode_helm_secret, latest_releases


def _release(revision: int, version: str, status: str = "deployed") -> HelmRelease:
    return HelmRelease(
        name="gpu-operator",
        namespace="gpu-operator",
        revision=revision,
        status=status,
        chart="gpu-operator",
        version=version,
    )


def test_a_helm_secret_decodes_to_its_release() -> None:
    secret = encode_helm_secret(_release(2, "v26.7.0"))
    assert secret["metadata"]["name"] == "sh.helm.release.v1.gpu-operator.v2"
    assert secret["type"] == "helm.sh/release.v1"
    assert decode_helm_secret(secret) == _release(2, "v26.7.0")


def test_an_unreadable_secret_is_skipped() -> None:
    assert decode_helm_secret({"data": {"release": "bm90IGJhc2U2NA=="}}) is None
    assert decode_helm_secret({"data": {}}) is None


def test_the_newest_revision_of_each_release_counts() -> None:
    older, newer = _release(1, "v25.10.1", "superseded"), _release(2, "v26.7.0")
    assert latest_releases([newer, older]) == [newer]
