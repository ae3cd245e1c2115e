"""The vendored upstream data in tests/upstream: provenance files, checksums, and the refresh script.

Everything here runs offline. The refresh modes are exercised against a throwaway git repository and a fake
download function, never the network.
"""

from __future__ import annotations

import hashlib
import io
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.conftest import REPO, UPSTREAM
from tests.support.scripts import load_script

SCRIPT = REPO / "scripts" / "refresh_upstream.py"
SOURCES = sorted(UPSTREAM.rglob("SOURCE.yaml"))
# The licenses of the vendored repositories (SPDX ids), and a phrase their LICENSE file contains.
LICENSE_TEXT = {"Apache-2.0": "Apache License", "MIT": "MIT License"}


refresh_upstream = load_script(SCRIPT, "refresh_upstream")


def _id(source: Path) -> str:
    return source.parent.relative_to(UPSTREAM).as_posix()


def test_upstream_is_vendored_in_the_repository() -> None:
    assert UPSTREAM == REPO / "tests" / "upstream"
    assert {_id(s) for s in SOURCES} >= {
        "gpu-operator",
        "k8s-device-plugin",
        "mig-parted",
        "kueue",
        "kserve",
        "cert-manager",
        "charts/gpu-operator-v26.7.0",
        "charts/kueue-0.19.2",
        # the components of NEW_COMPONENTS_NOTES.md
        "jobset",
        "lws",
        "kubeflow-trainer",
        "kuberay",
        "volcano",
        "dra-driver-nvidia-gpu",
        "karpenter-aws",
        "karpenter-azure",
        "cluster-autoscaler",
        "aws-efa-k8s-device-plugin",
        "gke-computeclass",
        "charts/jobset-0.12.0",
        "charts/lws-0.10.0",
        "charts/kubeflow-trainer-2.3.0",
        "charts/kuberay-operator-1.7.0",
        "charts/volcano-1.15.1",
        "charts/dra-driver-nvidia-gpu-0.4.1",
        "charts/karpenter-aws-1.14.1",
        "charts/karpenter-crd-aws-1.14.1",
        "charts/karpenter-azure-1.14.2",
        "charts/cluster-autoscaler-9.59.0",
        "charts/aws-efa-k8s-device-plugin-v0.5.30",
    }


def test_readme_lists_every_directory() -> None:
    readme = (UPSTREAM / "README.md").read_text()
    assert [_id(s) for s in SOURCES if f"| `{_id(s)}/` |" not in readme] == []


@pytest.mark.parametrize("source", SOURCES, ids=_id)
def test_source_yaml_parses_and_names_a_pinned_commit(source: Path) -> None:
    data = yaml.safe_load(source.read_text())
    assert refresh_upstream.load_source(source)[1] == []
    assert re.fullmatch(r"[0-9a-f]{40}", data["commit"])
    assert data["license"] in LICENSE_TEXT
    assert data["files"]
    # The file is in the script's own layout, so a refresh rewrites only what changed.
    assert refresh_upstream.dump_source(data) == source.read_text()


@pytest.mark.parametrize("source", SOURCES, ids=_id)
def test_every_listed_file_is_present_with_its_sha256(source: Path) -> None:
    files: dict[str, Any] = yaml.safe_load(source.read_text())["files"]
    wrong = []
    for local, entry in files.items():
        path = source.parent / local
        if "symlink" in entry:  # kept as a link, as upstream (Volcano's chart: crd/v1 -> bases)
            if not path.is_symlink() or os.readlink(path) != entry["symlink"] or not path.exists():
                wrong.append(f"not a working symlink to {entry['symlink']}: {local}")
        elif path.is_symlink() or not path.is_file():
            wrong.append(f"missing: {local}")
        elif hashlib.sha256(path.read_bytes()).hexdigest() != entry["sha256"]:
            wrong.append(f"sha256 mismatch: {local}")
    assert wrong == []


def test_every_file_under_upstream_is_listed() -> None:
    listed = {s.parent / local for s in SOURCES for local in yaml.safe_load(s.read_text())["files"]}
    present = set(refresh_upstream.vendored_paths(UPSTREAM))  # files and symlinks
    own = {UPSTREAM / name for name in refresh_upstream.OWN_FILES}
    unlisted = present - listed - own - set(SOURCES)
    assert sorted(str(p.relative_to(UPSTREAM)) for p in unlisted) == []


def test_stamped_chart_yaml_carries_the_stamp() -> None:
    stamped = []
    for source in SOURCES:
        for local, entry in yaml.safe_load(source.read_text())["files"].items():
            if entry.get("stamp"):
                text = (source.parent / local).read_text()
                assert re.search(rf"^version: {re.escape(entry['stamp']['version'])}$", text, re.M)
                assert re.search(rf'^appVersion: "{re.escape(entry["stamp"]["appVersion"])}"$', text, re.M)
                stamped.append(_id(source))
    assert stamped == [
        "charts/ai-gateway-crds-helm-v1.0.0",
        "charts/ai-gateway-helm-v1.0.0",
        "charts/cert-manager-v1.21.1",
        "charts/gateway-crds-helm-v1.8.1",
        "charts/gateway-helm-v1.8.1",
        "charts/gpu-operator-v26.7.0",
    ]


def test_every_component_ships_its_license() -> None:
    for source in SOURCES:
        if source.parent.parent == UPSTREAM:  # charts/* are covered by their repository's component directory
            data = yaml.safe_load(source.read_text())
            assert data["files"].get("LICENSE", {}).get("upstream") == "LICENSE", source
            assert LICENSE_TEXT[data["license"]] in (source.parent / "LICENSE").read_text(), source


def test_every_chart_repository_has_a_component_directory() -> None:
    """A whole chart under charts/ relies on its repository's LICENSE (and NOTICE) in a component directory."""
    components = {
        yaml.safe_load(s.read_text())["repo"]: s.parent for s in SOURCES if s.parent.parent == UPSTREAM
    }
    for source in SOURCES:
        if source.parent.parent == UPSTREAM / "charts":
            data = yaml.safe_load(source.read_text())
            assert data["repo"] in components, source
            assert (
                data["license"]
                == yaml.safe_load((components[data["repo"]] / "SOURCE.yaml").read_text())["license"]
            )


def test_check_command_passes_offline() -> None:
    out = subprocess.run(
        [sys.executable, str(SCRIPT), "--check"], capture_output=True, text=True, check=False
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith(f"ok: {len(SOURCES)} SOURCE.yaml files")


def test_no_source_cites_a_file_outside_the_repository() -> None:
    """Sources are upstream repositories at a tag or official documentation, never a file next to the checkout."""
    needles = ("GPU_PLATFORM" + "_FACTS", "../" + "shared/")  # split, so this file does not match itself
    files = [REPO / "README.md"]
    for top in ("components", "tests", "docs"):
        files += sorted(p for p in (REPO / top).rglob("*") if p.is_file() and "__pycache__" not in p.parts)
    hits = [
        f"{path.relative_to(REPO)}:{number}"
        for path in files
        for number, line in enumerate(path.read_bytes().decode("utf-8", "replace").splitlines(), 1)
        if any(needle in line for needle in needles)
    ]
    assert not hits, "cite the upstream repository at a tag, or a documentation URL, at: " + ", ".join(hits)


# --- the script on a scratch copy -----------------------------------------------------------------


@pytest.fixture
def scratch(tmp_path: Path) -> Path:
    """A copy of one small component (mig-parted) as its own upstream root."""
    root = tmp_path / "upstream"
    shutil.copytree(UPSTREAM / "mig-parted", root / "mig-parted")
    return root


def test_check_lists_every_problem_and_exits_1(scratch: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (scratch / "mig-parted" / "examples" / "config.yaml").write_text("edited\n")
    (scratch / "mig-parted" / "LICENSE").unlink()
    (scratch / "mig-parted" / "extra.yaml").write_text("{}\n")
    assert refresh_upstream.main(["--check", "--root", str(scratch)]) == 1
    err = capsys.readouterr().err
    assert "3 problem(s)" in err
    assert f"sha256 mismatch: {scratch}/mig-parted/examples/config.yaml" in err
    assert f"missing: {scratch}/mig-parted/LICENSE" in err
    assert f"not listed in any SOURCE.yaml: {scratch}/mig-parted/extra.yaml" in err
    assert "--from-raw" in err


def test_check_rejects_a_malformed_source(scratch: Path) -> None:
    source = scratch / "mig-parted" / "SOURCE.yaml"
    source.write_text(source.read_text().replace("commit: e2d5ad1f", "commit: E2D5AD1F"))
    assert refresh_upstream.check(scratch) == [f"{source}: `commit` must be 40 lowercase hex digits"]


def test_check_verifies_symlink_entries(scratch: Path) -> None:
    comp = scratch / "mig-parted"
    source = comp / "SOURCE.yaml"
    (comp / "examples" / "v1").symlink_to(".")  # listed, right target
    (comp / "deployments-link").symlink_to("examples/nope")  # listed, dangling
    (comp / "escape").symlink_to("../..")  # listed, leaves the directory
    (comp / "stray").symlink_to("examples")  # not listed
    data = yaml.safe_load(source.read_text())
    data["files"]["examples/v1"] = {"upstream": "examples/v1", "symlink": "."}
    data["files"]["deployments-link"] = {"upstream": "x", "symlink": "examples/nope"}
    data["files"]["escape"] = {"upstream": "y", "symlink": "../.."}
    data["files"]["gone"] = {"upstream": "z", "symlink": "examples"}
    source.write_text(refresh_upstream.dump_source(data))
    assert "    symlink: .\n" in source.read_text()
    assert sorted(refresh_upstream.check(scratch)) == sorted(
        [
            f"dangling symlink: {comp}/deployments-link -> examples/nope",
            f"symlink leaves its directory: {comp}/escape -> ../..",
            f"missing: {comp}/gone",
            f"not listed in any SOURCE.yaml: {comp}/stray",
        ]
    )
    # A file entry must be a copy, not a link to one.
    (comp / "LICENSE").rename(comp / "LICENSE.real")
    (comp / "LICENSE").symlink_to("LICENSE.real")
    assert f"is a symlink, not a copy: {comp}/LICENSE -> LICENSE.real" in refresh_upstream.check(scratch)


def test_load_source_rejects_a_bad_symlink_entry(scratch: Path) -> None:
    source = scratch / "mig-parted" / "SOURCE.yaml"
    data = yaml.safe_load(source.read_text())
    data["files"]["abs"] = {"upstream": "a", "symlink": "/etc"}
    data["files"]["hashed"] = {"upstream": "b", "symlink": "x", "sha256": "0" * 64}
    source.write_text(yaml.safe_dump(data))
    assert refresh_upstream.load_source(source)[1] == [
        f"{source}: files['abs']: `symlink` must be a relative link target",
        f"{source}: files['hashed']: a `symlink` entry has only `upstream` and `symlink`",
    ]


def _git(cwd: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.org", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()


def test_from_git_refetches_at_the_commit_and_rewrites_sha256(tmp_path: Path) -> None:
    clone = tmp_path / "clones" / "example" / "widget"
    (clone / "chart" / "templates").mkdir(parents=True)
    (clone / "chart" / "Chart.yaml").write_text('name: widget\nversion: v0.0.0\nappVersion: "main"\n')
    (clone / "chart" / "values.yaml").write_text("replicas: 1\n")
    _git(clone, "init", "-q")
    _git(clone, "add", ".")
    _git(clone, "commit", "-q", "-m", "v1")
    _git(clone, "tag", "v1.0.0")
    commit = _git(clone, "rev-parse", "HEAD")
    (clone / "chart" / "values.yaml").write_text("replicas: 2\n")  # later commit: must not be read
    _git(clone, "commit", "-q", "-am", "later")
    _git(clone, "rm", "-q", "chart/Chart.yaml")
    _git(clone, "commit", "-q", "-m", "later still")

    root = tmp_path / "upstream"
    (root / "widget").mkdir(parents=True)
    source = root / "widget" / "SOURCE.yaml"
    source.write_text(
        f"repo: example/widget\ntag: v1.0.0\ncommit: {commit}\nlicense: Apache-2.0\nupstream_dir: chart\n"
        "files:\n  Chart.yaml:\n    upstream: chart/Chart.yaml\n    stamp: {version: v1.0.0, appVersion: v1.0.0}\n"
        "  stale.yaml:\n    upstream: chart/stale.yaml\n"
    )
    (root / "widget" / "stale.yaml").write_text("gone upstream\n")

    assert refresh_upstream.main(["--from-git", str(tmp_path / "clones"), "--root", str(root)]) == 0
    chart = (root / "widget" / "Chart.yaml").read_text()
    assert chart == 'name: widget\nversion: v1.0.0\nappVersion: "v1.0.0"\n'  # stamped
    assert (root / "widget" / "values.yaml").read_text() == "replicas: 1\n"  # followed upstream_dir
    assert not (root / "widget" / "stale.yaml").exists()
    files = yaml.safe_load(source.read_text())["files"]
    assert sorted(files) == ["Chart.yaml", "values.yaml"]
    assert files["values.yaml"]["sha256"] == hashlib.sha256(b"replicas: 1\n").hexdigest()
    assert files["Chart.yaml"]["stamp"] == {"version": "v1.0.0", "appVersion": "v1.0.0"}
    assert refresh_upstream.check(root) == []

    # A tag that moved is an error, and nothing is written.
    _git(clone, "tag", "-f", "v1.0.0", "HEAD")
    before = source.read_text()
    assert refresh_upstream.main(["--from-git", str(tmp_path / "clones"), "--root", str(root)]) == 1
    assert source.read_text() == before


def test_from_git_keeps_inner_symlinks_and_copies_outer_ones(tmp_path: Path) -> None:
    clone = tmp_path / "clones" / "example" / "widget"
    (clone / "chart" / "crd" / "bases").mkdir(parents=True)
    (clone / "chart" / "crds").mkdir()
    (clone / "apis").mkdir()
    (clone / "chart" / "Chart.yaml").write_text("name: widget\n")
    (clone / "chart" / "crd" / "bases" / "a.yaml").write_text("kind: A\n")
    (clone / "chart" / "crd" / "v1").symlink_to("bases")  # inside the chart: stays a link
    (clone / "apis" / "b.yaml").write_text("kind: B\n")
    (clone / "chart" / "crds" / "b.yaml").symlink_to("../../apis/b.yaml")  # outside: copied as the file
    _git(clone, "init", "-q")
    _git(clone, "add", ".")
    _git(clone, "commit", "-q", "-m", "v1")
    commit = _git(clone, "rev-parse", "HEAD")

    root = tmp_path / "upstream"
    (root / "widget").mkdir(parents=True)
    source = root / "widget" / "SOURCE.yaml"
    source.write_text(
        f"repo: example/widget\ntag: v1.0.0\ncommit: {commit}\nlicense: Apache-2.0\nupstream_dir: chart\n"
        "files:\n  Chart.yaml:\n    upstream: chart/Chart.yaml\n"
    )
    assert refresh_upstream.main(["--from-git", str(tmp_path / "clones"), "--root", str(root)]) == 0
    files = yaml.safe_load(source.read_text())["files"]
    assert files["crd/v1"] == {"upstream": "chart/crd/v1", "symlink": "bases"}
    assert files["crds/b.yaml"]["upstream"] == "apis/b.yaml"
    assert os.readlink(root / "widget" / "crd" / "v1") == "bases"
    assert (root / "widget" / "crd" / "v1" / "a.yaml").read_text() == "kind: A\n"
    assert not (root / "widget" / "crds" / "b.yaml").is_symlink()
    assert (root / "widget" / "crds" / "b.yaml").read_text() == "kind: B\n"
    assert refresh_upstream.dump_source(yaml.safe_load(source.read_text())) == source.read_text()
    assert refresh_upstream.check(root) == []

    # Listing the symlink itself as a file's upstream is refused instead of copying the link text.
    data = yaml.safe_load(source.read_text())
    data["files"]["crds/b.yaml"]["upstream"] = "chart/crds/b.yaml"
    del data["upstream_dir"]
    source.write_text(refresh_upstream.dump_source(data))
    fetcher = refresh_upstream.GitSnapshots(tmp_path / "clones")
    with pytest.raises(refresh_upstream.FetchError, match=r"chart/crds/b.yaml is a symlink"):
        refresh_upstream.refresh(source, fetcher, log=lambda _: None)


def test_from_raw_downloads_each_file_at_the_commit(scratch: Path) -> None:
    source = scratch / "mig-parted" / "SOURCE.yaml"
    data = yaml.safe_load(source.read_text())
    urls: list[str] = []

    def fake_urlopen(url: str, timeout: float) -> io.BytesIO:
        urls.append(url)
        upstream_path = url.split(f"/{data['commit']}/", 1)[1]
        local = next(k for k, e in data["files"].items() if e["upstream"] == upstream_path)
        return io.BytesIO(b"new " + local.encode())

    refresh_upstream.refresh(source, refresh_upstream.RawGitHub(fake_urlopen), log=lambda _: None)
    assert sorted(urls) == sorted(
        f"https://raw.githubusercontent.com/NVIDIA/mig-parted/{data['commit']}/{e['upstream']}"
        for e in data["files"].values()
    )
    assert (scratch / "mig-parted" / "examples" / "config.yaml").read_bytes() == b"new examples/config.yaml"
    assert refresh_upstream.check(scratch) == []


def test_a_missing_upstream_file_fails_the_test_instead_of_skipping() -> None:
    from tests.conftest import upstream

    with pytest.raises(pytest.fail.Exception, match=r"missing: .*tests/upstream/kueue/nope\.yaml.*--check"):
        upstream("kueue", "nope.yaml")
