"""Releases and CI for adopters: the version scheme, the release workflow, the reusable plan workflow for
platform repositories, and Renovate's view of the pins (docs/releasing.md)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest

from gpu_platform import versions
from tests.conftest import REPO
from tests.support.scripts import load_script
from tests.support.workflows import load_workflow

WORKFLOWS = REPO / ".github" / "workflows"
CANONICAL = "https://github.com/gpu-platform/gpu-platform"
PROJECT = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]


check_release = load_script(REPO / "scripts" / "check_release.py", "check_release")


def steps(job: dict[str, Any]) -> list[dict[str, Any]]:
    return job["steps"]


def runs(job: dict[str, Any]) -> str:
    return "\n".join(s.get("run", "") for s in job["steps"])


def uses(job: dict[str, Any], action: str) -> dict[str, Any]:
    return next(s for s in job["steps"] if s.get("uses", "").startswith(f"{action}@"))


# ---------------------------------------------------------------------------------------------
# The version scheme and the canonical repository
# ---------------------------------------------------------------------------------------------


def test_the_version_is_pep_440_release_or_dev_and_the_repository_agrees() -> None:
    version = PROJECT["version"]
    assert check_release.VERSION.match(version), version
    assert check_release.problems(None) == []
    assert subprocess.run([sys.executable, "scripts/check_release.py"], cwd=REPO, check=False).returncode == 0


def test_a_tag_must_be_the_version_and_have_its_changelog_section(monkeypatch: pytest.MonkeyPatch) -> None:
    version = PROJECT["version"]
    release = check_release.VERSION.match(version)["base"]
    found = check_release.problems("v9.9.9")
    assert f"tag v9.9.9 is not v{release} (pyproject.toml version {version})" in found
    if version.endswith(tuple(f".dev{n}" for n in range(100))):
        assert any("is a development version" in p for p in found)
    # The release commit: the version without .devN, a dated CHANGELOG section, the pack at the version.
    changelog = "# Changelog\n\n## [Unreleased]\n\n## [1.2.0] - 2027-01-15\n\n### Added\n- x\n\n## [1.1.0] - 2026-12-01\n"
    monkeypatch.setattr(check_release, "project_version", lambda: "1.2.0")
    texts = {"CHANGELOG.md": changelog, "policy/PulumiPolicy.yaml": "x\nversion: 1.2.0\n"}
    real_read = Path.read_text

    def read_text(self: Path, *a: Any, **k: Any) -> str:
        rel = self.relative_to(REPO).as_posix() if self.is_relative_to(REPO) else ""
        if rel in texts:
            return texts[rel]
        text = real_read(self, *a, **k)
        return text.replace(f"@v{release}", "@v1.2.0").replace(f"]=={release}", "]==1.2.0")

    monkeypatch.setattr(Path, "read_text", read_text)
    assert check_release.problems("v1.2.0") == []
    assert check_release.changelog_section("1.2.0") == "### Added\n- x"
    assert check_release.problems("v1.2.1") == ["tag v1.2.1 is not v1.2.0 (pyproject.toml version 1.2.0)"]
    texts["CHANGELOG.md"] = changelog.replace("## [1.2.0] - 2027-01-15", "## [1.2.0]")
    assert check_release.problems("v1.2.0") == ["CHANGELOG.md: no '## [1.2.0] - YYYY-MM-DD' section"]


def test_release_candidates_are_tagged_in_semver() -> None:
    """`pulumi package add <repo>@<tag>` resolves semver tags; PEP 440 spells the same version apart."""
    assert check_release.semver("1.0.0rc1") == "1.0.0-rc.1"
    assert check_release.semver("0.3.0") == "0.3.0"


def test_every_repository_url_is_the_canonical_one() -> None:
    assert PROJECT["urls"]["Repository"] == CANONICAL
    assert set(PROJECT["urls"]) >= {"Homepage", "Repository", "Documentation", "Changelog", "Issues"}
    assert all(u.startswith(CANONICAL) for u in PROJECT["urls"].values())
    listed = subprocess.run(["git", "ls-files"], cwd=REPO, capture_output=True, text=True, check=True).stdout
    pattern = re.compile(r"github\.com/(?P<owner>[\w.-]+)/gpu-platform\b")
    owners: dict[str, set[str]] = {}
    for name in listed.splitlines():
        path = REPO / name
        if name.startswith("tests/upstream/") or path.suffix not in {
            ".md",
            ".py",
            ".yaml",
            ".yml",
            ".toml",
            ".txt",
            ".json",
        }:
            continue
        if not path.is_file():
            continue
        for m in pattern.finditer(path.read_text(errors="replace")):
            owners.setdefault(m["owner"], set()).add(name)
    assert set(owners) == {"gpu-platform"}, owners


def test_the_documented_pins_name_the_coming_release() -> None:
    release = check_release.VERSION.match(PROJECT["version"])["base"]
    for name, pattern in check_release.PINS.items():
        found = [m["v"] for m in pattern.finditer((REPO / name).read_text())]
        assert found and set(found) == {release}, (name, found)


# ---------------------------------------------------------------------------------------------
# release.yml
# ---------------------------------------------------------------------------------------------

RELEASE = load_workflow(WORKFLOWS / "release.yml")


def test_release_runs_on_version_tags_only() -> None:
    assert RELEASE["on"] == {"push": {"tags": ["v*"]}}
    assert RELEASE["permissions"] == {"contents": "read"}
    assert RELEASE["concurrency"]["cancel-in-progress"] is False


def test_release_builds_once_and_checks_the_distributions() -> None:
    build = RELEASE["jobs"]["build"]
    script = runs(build)
    assert "python scripts/check_release.py --tag" in script
    assert "python -m build --outdir dist ." in script
    assert "twine check --strict dist/*" in script and "check-wheel-contents dist/*.whl" in script
    tools = next(s["run"] for s in steps(build) if "pip install" in s.get("run", "") and "twine" in s["run"])
    assert (
        re.search(r"twine==\d", tools)
        and re.search(r"check-wheel-contents==\d", tools)
        and re.search(r"build==\d", tools)
    )
    assert script.index("check_release.py --tag") < script.index("python -m build")
    assert uses(build, "actions/checkout")["with"]["persist-credentials"] is False
    uploaded = {
        s["with"]["name"]: s["with"]["path"]
        for s in steps(build)
        if s.get("uses", "").startswith("actions/upload-artifact@")
    }
    assert uploaded == {"distributions": "dist/", "release-assets": "assets/"}
    assert "from gpu_platform.provider import schema" in script and "git archive" in script


def test_release_publishes_with_trusted_publishing_in_the_pypi_environment() -> None:
    pypi = RELEASE["jobs"]["pypi"]
    assert pypi["needs"] == "build"
    assert pypi["environment"]["name"] == "pypi"
    assert pypi["permissions"] == {"id-token": "write"}
    publish = uses(pypi, "pypa/gh-action-pypi-publish")
    assert re.fullmatch(r"pypa/gh-action-pypi-publish@[0-9a-f]{40}", publish["uses"])
    # Trusted publishing: no password, no token anywhere.
    assert set(publish.get("with", {})) <= {"packages-dir", "attestations", "print-hash", "verbose"}
    text = (WORKFLOWS / "release.yml").read_text()
    assert "password" not in text and "PYPI_API_TOKEN" not in text


def test_release_attaches_the_component_package_after_pypi() -> None:
    gh = RELEASE["jobs"]["github-release"]
    assert gh["needs"] == "pypi" and gh["permissions"] == {"contents": "write"}
    script = runs(gh)
    assert "gh release create" in script and "--verify-tag" in script
    for asset in ("artifacts/distributions/*", "-component.tar.gz", "-schema.json", "SHA256SUMS"):
        assert asset in script
    assert "--notes-file artifacts/release-assets/notes.md" in script


def test_changelog_notes_come_from_the_release_section(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(check_release, "project_version", lambda: "0.0.1")
    monkeypatch.setattr(
        check_release, "changelog_section", lambda v: "### Fixed\n- y" if v == "0.0.1" else None
    )
    assert check_release.main(["--notes"]) == 0
    assert capsys.readouterr().out == "### Fixed\n- y\n"


# ---------------------------------------------------------------------------------------------
# gpu-platform-plan.yml: the reusable workflow for platform repositories
# ---------------------------------------------------------------------------------------------

PLAN = load_workflow(WORKFLOWS / "gpu-platform-plan.yml")


def test_the_adopter_workflow_is_reusable_with_inputs() -> None:
    call = PLAN["on"]["workflow_call"]["inputs"]
    assert set(call) >= {
        "environments",
        "working-directory",
        "requirements",
        "python-version",
        "comment",
        "preview",
    }
    assert call["requirements"]["default"] == "requirements.txt"
    assert PLAN["permissions"] == {"contents": "read"}
    assert list(PLAN["on"]) == ["workflow_call"]


def test_the_adopter_workflow_assumes_nothing_of_this_repository() -> None:
    text = (WORKFLOWS / "gpu-platform-plan.yml").read_text()
    body = "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("#"))
    for assumption in ("make ", ".venv", "stacks/", "./.github/actions/", "components"):
        assert assumption not in body, assumption


def test_base_is_planned_with_its_own_pinned_library_and_head_with_its_own() -> None:
    job = PLAN["jobs"]["plan"]
    checkouts = [s for s in steps(job) if s.get("uses", "").startswith("actions/checkout@")]
    assert [c["with"]["path"] for c in checkouts] == ["head", "base"]
    assert "github.event.pull_request.base.sha" in checkouts[1]["with"]["ref"]
    install = next(s["run"] for s in steps(job) if "install()" in s.get("run", ""))
    assert 'req="$1/$WD/$REQUIREMENTS"' in install and '-r "$req"' in install
    assert "install head" in install and "install base" in install
    head = next(s for s in steps(job) if s.get("id") == "plan")
    assert '"$RUNNER_TEMP/head-venv/bin/gpu-platform" plan --project "head/$WD"' in head["run"]
    assert "--policy" in head["run"] and 'echo "status=$status" >> "$GITHUB_OUTPUT"' in head["run"]
    base = next(s["run"] for s in steps(job) if 'base-venv/bin/gpu-platform" plan' in s.get("run", ""))
    assert '--project "base/$WD"' in base and "--policy" not in base
    diff = next(s for s in steps(job) if s.get("id") == "diff")
    assert (
        '"$RUNNER_TEMP/plan/base" "$RUNNER_TEMP/plan/head"' in diff["run"]
        and "--format markdown" in diff["run"]
    )
    assert '[ "$status" != 3 ]' in diff["run"]
    assert steps(job)[-1]["if"] == "steps.plan.outputs.status != '0'"


def test_caches_are_keyed_on_each_sides_lock_file() -> None:
    job = PLAN["jobs"]["plan"]
    caches = {s["id"]: s["with"] for s in steps(job) if s.get("uses", "").startswith("actions/cache@")}
    for side in ("head", "base"):
        key = caches[f"{side}-cache"]["key"]
        assert (
            f"hashFiles(format('{side}/{{0}}/{{1}}', inputs.working-directory, inputs.requirements))" in key
        )
        assert "steps.python.outputs.python-version" in key
        assert caches[f"{side}-cache"]["path"] == f"${{{{ runner.temp }}}}/{side}-venv"


def test_one_sticky_comment_and_none_for_forks() -> None:
    comment = PLAN["jobs"]["comment"]
    assert comment["needs"] == "plan" and comment["permissions"] == {"pull-requests": "write"}
    assert "github.event.pull_request.head.repo.full_name == github.repository" in comment["if"]
    sticky = uses(comment, "marocchino/sticky-pull-request-comment")
    assert sticky["with"] == {"header": "gpu-platform-plan", "path": "comment.md"}
    assert "section.md" in runs(comment)


def test_preview_credentials_live_in_environments_and_never_reach_forks() -> None:
    preview = PLAN["jobs"]["preview"]
    assert preview["environment"] == "${{ matrix.environment }}"
    assert preview["permissions"]["id-token"] == "write"
    assert "inputs.preview" in preview["if"]
    assert "github.event.pull_request.head.repo.full_name == github.repository" in preview["if"]
    # The plan and comment jobs never get a token to exchange.
    assert "id-token" not in PLAN["jobs"]["plan"]["permissions"]
    assert "id-token" not in PLAN["jobs"]["comment"]["permissions"]
    logins = [
        s
        for s in steps(preview)
        if s.get("uses", "").split("@")[0]
        in {
            "google-github-actions/auth",
            "aws-actions/configure-aws-credentials",
            "azure/login",
            "pulumi/auth-actions",
        }
    ]
    assert len(logins) == 4 and all("steps.detect.outputs.configured == 'true'" in s["if"] for s in logins)
    pulumi = uses(preview, "pulumi/actions")
    assert (
        pulumi["with"]["command"] == "preview"
        and pulumi["with"]["work-dir"] == "${{ inputs.working-directory }}"
    )


def test_the_summary_shows_the_policy_line_of_a_clean_plan() -> None:
    summary = next(s["run"] for s in steps(PLAN["jobs"]["plan"]) if "GITHUB_STEP_SUMMARY" in s.get("run", ""))
    assert 'tail -n 1 "$REPORT/policy.txt"' in summary


# ---------------------------------------------------------------------------------------------
# Renovate
# ---------------------------------------------------------------------------------------------

RENOVATE = json.loads((REPO / "renovate.json").read_text())
VERSIONS_PY = (REPO / "components" / "gpu_platform" / "versions.py").read_text()


def _python_regex(js: str) -> re.Pattern[str]:
    return re.compile(js.replace("(?<", "(?P<"))


def _extracted() -> list[dict[str, str]]:
    out = []
    for manager in RENOVATE["customManagers"]:
        assert manager["customType"] == "regex"
        files = [re.compile(p.strip("/")) for p in manager["managerFilePatterns"]]
        assert any(f.search("components/gpu_platform/versions.py") for f in files)
        for js in manager["matchStrings"]:
            for m in _python_regex(js).finditer(VERSIONS_PY):
                dep = {k: v for k, v in m.groupdict().items() if v is not None}
                dep.setdefault("depName", manager.get("depNameTemplate", ""))
                dep["datasource"] = manager["datasourceTemplate"]
                out.append(dep)
    return out


def test_renovate_finds_every_chart_pin_with_its_version_and_repository() -> None:
    found = {(d["depName"], d["currentValue"], d.get("registryUrl")) for d in _extracted()}
    for pin in versions.ALL_CHARTS:
        if pin.repo is None:
            assert (pin.chart.removeprefix("oci://"), pin.version, None) in found, pin
        else:
            assert (pin.chart, pin.version, pin.repo) in found, pin


def test_renovate_finds_the_image_pins() -> None:
    found = {(d["depName"], d.get("currentValue"), d.get("currentDigest")) for d in _extracted()}
    assert (versions.KUEUE_IMAGE_REPOSITORY, versions.KUEUE_IMAGE_TAG, None) in found
    assert (versions.JOBSET_IMAGE_REPOSITORY, versions.JOBSET_IMAGE_TAG, None) in found
    assert (versions.LWS_IMAGE_REPOSITORY, versions.LWS_IMAGE_TAG, None) in found
    assert (
        versions.AWS_EFA_DEVICE_PLUGIN_IMAGE_REPOSITORY,
        versions.AWS_EFA_DEVICE_PLUGIN_IMAGE_TAG,
        None,
    ) in found
    assert (
        "public.ecr.aws/karpenter/controller",
        versions.KARPENTER_IMAGE_TAG,
        versions.KARPENTER_IMAGE_DIGEST,
    ) in found
    name, _, tag = versions.DRA_DRIVER_IMAGE.rpartition(":")
    assert (name, tag, None) in found
    autoscaler = {v for d, v, _ in found if d == versions.CLUSTER_AUTOSCALER_IMAGE_REPOSITORY}
    assert autoscaler == set(versions.CLUSTER_AUTOSCALER_IMAGE_TAGS.values())
    pause, digest = versions.GKE_DRIVER_INSTALLER_PAUSE_IMAGE.split("@")
    assert (pause.rsplit(":", 1)[0], pause.rsplit(":", 1)[1], digest) in found


def test_renovate_keeps_autoscaler_images_on_their_minor_and_actions_pinned() -> None:
    rules = RENOVATE["packageRules"]
    autoscaler = next(
        r for r in rules if r.get("matchPackageNames") == [versions.CLUSTER_AUTOSCALER_IMAGE_REPOSITORY]
    )
    assert autoscaler["matchUpdateTypes"] == ["major", "minor"] and autoscaler["enabled"] is False
    assert "helpers:pinGitHubActionDigests" in RENOVATE["extends"]
    assert RENOVATE["pep621"]["rangeStrategy"] == "widen"
