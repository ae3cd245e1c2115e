"""The package as released: sdist and wheel built from this checkout, offline, with no deprecation warning.

The build runs ``python -m build --no-isolation`` on a copy of what the sdist is made of (so the checkout
gets no build/ or egg-info), with the setuptools and build of the [dev] extra: no network.
"""

import hashlib
import tarfile
import tomllib
import zipfile
from email.parser import Parser
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from tests.conftest import REPO

PACKAGE = REPO / "components" / "gpu_platform"
APACHE_2_SHA256 = "cfc7749b96f63bd31c3c42b5c471bf756814053e847c10f3eb003417bc523d30"
"""https://www.apache.org/licenses/LICENSE-2.0.txt"""
CLOUD_SDKS = {"pulumi-gcp", "pulumi-aws", "pulumi-azure-native"}


@pytest.fixture(scope="module")
def artifacts(dists: tuple[Path, Path, str]) -> tuple[Path, Path, str]:
    return dists


def test_build_has_no_deprecation_warning(artifacts: tuple[Path, Path, str]) -> None:
    output = artifacts[2]
    assert "deprecat" not in output.lower(), output


def test_wheel_has_every_module_the_package_data_and_the_license(artifacts: tuple[Path, Path, str]) -> None:
    with zipfile.ZipFile(artifacts[0]) as wheel:
        names = set(wheel.namelist())
        dist_info = next(n.split("/")[0] for n in names if n.endswith(".dist-info/METADATA"))
        entry_points = wheel.read(f"{dist_info}/entry_points.txt").decode()
    sources = {
        p.relative_to(PACKAGE.parent).as_posix()
        for p in PACKAGE.rglob("*")
        if p.is_file() and "__pycache__" not in p.parts
    }
    data = {s for s in sources if s.startswith("gpu_platform/data/")}
    assert data and all(s.endswith((".yaml", ".json", ".csv")) for s in data)
    assert sources <= names, sorted(sources - names)
    assert "gpu_platform/py.typed" in names
    assert f"{dist_info}/licenses/LICENSE" in names
    assert not [n for n in names if n.startswith(("tests/", "examples/", "stacks/"))]
    assert "gpu-platform = gpu_platform.cli:main" in entry_points


def test_metadata_has_the_spdx_license_and_no_cloud_sdk_outside_its_extra(
    artifacts: tuple[Path, Path, str],
) -> None:
    with zipfile.ZipFile(artifacts[0]) as wheel:
        text = wheel.read(next(n for n in wheel.namelist() if n.endswith(".dist-info/METADATA"))).decode()
    metadata = Parser().parsestr(text)
    assert metadata["License-Expression"] == "Apache-2.0"
    assert metadata.get_all("License-File") == ["LICENSE"]
    requirements = [Requirement(r) for r in metadata.get_all("Requires-Dist")]
    unconditional = {canonicalize_name(r.name) for r in requirements if r.marker is None}
    assert unconditional == {"pulumi", "pulumi-kubernetes", "pydantic", "pyyaml", "typing-extensions"}
    for r in requirements:
        if canonicalize_name(r.name) in CLOUD_SDKS:
            assert r.marker is not None and "extra" in str(r.marker)
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    assert metadata["Version"] == project["version"]


def test_sdist_has_the_license_and_the_package_data(artifacts: tuple[Path, Path, str]) -> None:
    with tarfile.open(artifacts[1]) as sdist:
        names = sdist.getnames()
    root = names[0].split("/")[0]
    assert f"{root}/LICENSE" in names
    assert any(n.startswith(f"{root}/components/gpu_platform/data/") and n.endswith(".yaml") for n in names)


def test_license_is_the_full_apache_2_text() -> None:
    text = (REPO / "LICENSE").read_bytes()
    assert hashlib.sha256(text).hexdigest() == APACHE_2_SHA256
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    assert project["license"] == "Apache-2.0" and project["license-files"] == ["LICENSE"]


def test_the_suite_refuses_the_network() -> None:
    """README: the suite is self-contained; conftest's no_network fixture makes that checkable."""
    import socket
    import urllib.request

    with pytest.raises(OSError, match="self-contained"):
        urllib.request.urlopen("https://pypi.org/simple/", timeout=5)
    with pytest.raises(OSError, match="self-contained"), socket.socket() as sock:
        sock.connect(("203.0.113.10", 443))
    assert "self-contained" in (REPO / "README.md").read_text()
