"""The component provider adjusts two internals of pulumi's Python component provider, so it runs only on
the pulumi SDK releases those adjustments are tested on: ``pyproject.toml`` allows exactly
``gpu_platform.provider.TESTED_PULUMI``, the installed SDK must be one of them, and the provider refuses to
start, naming the reason and the upstream issues, on an SDK that is untested or built otherwise."""

from __future__ import annotations

import re
import tomllib
from importlib.metadata import version

import pulumi.provider.experimental.host as host_module
import pytest
from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet
from packaging.version import Version

from gpu_platform import provider
from gpu_platform.provider import (
    TESTED_PULUMI,
    UPSTREAM_ISSUES,
    UntestedPulumiSdkError,
    component_provider,
    sdk_problems,
)
from tests.conftest import REPO

TESTED = SpecifierSet(f">={TESTED_PULUMI[0]},<{TESTED_PULUMI[1]}")


def pulumi_requirement() -> Requirement:
    doc = tomllib.loads((REPO / "pyproject.toml").read_text())
    [req] = [Requirement(r) for r in doc["project"]["dependencies"] if Requirement(r).name == "pulumi"]
    return req


def test_pyproject_allows_exactly_the_tested_sdk_releases() -> None:
    assert pulumi_requirement().specifier == TESTED


def test_the_floor_is_the_one_ci_installs() -> None:
    floors = (REPO / "ci" / "constraints-floor.txt").read_text().split()
    assert f"pulumi=={TESTED_PULUMI[0]}" in floors


def test_the_installed_sdk_is_a_tested_one() -> None:
    """Fails on an SDK outside the tested range: raise TESTED_PULUMI (and pyproject) only once it passes."""
    installed = version("pulumi")
    assert Version(installed) in TESTED, f"pulumi {installed} is not in the tested range {TESTED}"
    assert sdk_problems() == []


@pytest.mark.parametrize(
    ("installed", "tested"),
    [
        (TESTED_PULUMI[0], True),
        (version("pulumi"), True),
        (f"{TESTED_PULUMI[1]}.0", False),
        ("3.236.0", False),
        ("4.0.0", False),
    ],
)
def test_the_range_check(installed: str, tested: bool) -> None:
    version_problems = [p for p in sdk_problems(installed) if "is not a tested SDK" in p]
    assert (version_problems == []) is tested
    assert (Version(installed) in TESTED) is tested  # the code's range and pyproject's agree


def test_an_untested_sdk_is_refused_with_the_reason_and_the_upstream_issues(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(
        provider, "sdk_problems", lambda: ["pulumi 3.300.0 is not a tested SDK (>=3.237.0,<3.273)"]
    )
    with pytest.raises(UntestedPulumiSdkError) as err:
        component_provider()
    message = str(err.value)
    assert "pulumi 3.300.0 is not a tested SDK" in message
    assert all(issue in message for issue in UPSTREAM_ISSUES)


def test_an_sdk_built_otherwise_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    """If the host stopped building the provider by its module-global name, the swap would do nothing."""

    class Elsewhere:
        pass

    monkeypatch.setattr(host_module, "ComponentProvider", Elsewhere)
    assert sdk_problems() == ["pulumi.provider.experimental.host no longer uses component.ComponentProvider"]
    with pytest.raises(UntestedPulumiSdkError, match=re.escape("no longer uses component.ComponentProvider")):
        component_provider()
