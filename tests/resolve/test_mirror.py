"""The ``mirror`` setting checked once (``resolve.mirror``), for the stack file and every component."""

from __future__ import annotations

from typing import Any

import pytest

from gpu_platform.errors import Problems
from gpu_platform.mirror import Mirror
from gpu_platform.resolve.mirror import resolve_mirror


def _resolve(raw: Any) -> tuple[Mirror | None, dict[str, str]]:
    p = Problems()
    mirror = resolve_mirror(raw, p.at("mirror"))
    return mirror, {".".join(map(str, loc)): reason for loc, reason in p.items}


def test_a_mirror_is_given_as_an_oci_or_http_chart_location_and_a_registry() -> None:
    assert _resolve({"charts": "oci://registry.acme/helm/", "images": "registry.acme/mirror/"}) == (
        Mirror("oci://registry.acme/helm", "registry.acme/mirror"),
        {},
    )
    assert _resolve({"charts": "https://charts.acme/gpu"})[0] == Mirror("https://charts.acme/gpu")
    assert _resolve({"images": "localhost:5000"})[0] == Mirror(images="localhost:5000")
    assert _resolve({}) == (None, {}) and _resolve(None) == (None, {})


@pytest.mark.parametrize(
    ("raw", "key", "said"),
    [
        ({"images": "https://registry.acme/mirror"}, "mirror.images", "is a URL"),
        ({"images": "mirror/gpu"}, "mirror.images", "registry host"),
        ({"images": "registry.acme/Mirror"}, "mirror.images", "lowercase"),
        ({"images": "registry.acme/mirror:v1"}, "mirror.images", "without tag"),
        ({"charts": "registry.acme/helm"}, "mirror.charts", "oci://registry.acme/helm"),
        ({"charts": "s3://bucket/charts"}, "mirror.charts", "HTTP(S) Helm repository"),
    ],
)
def test_a_bad_mirror_is_refused_naming_its_key(raw: dict[str, str], key: str, said: str) -> None:
    mirror, problems = _resolve(raw)
    assert mirror is None or key not in problems
    assert key in problems and said in problems[key], problems
