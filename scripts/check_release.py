#!/usr/bin/env python3
"""Check that the version, the tag, the CHANGELOG and every documented pin agree (docs/releasing.md).

    python scripts/check_release.py                 main: X.Y.Z.devN, pins name the coming vX.Y.Z
    python scripts/check_release.py --tag v0.2.0    a release: the tag is the version, CHANGELOG has it
    python scripts/check_release.py --notes         print this version's CHANGELOG section (release notes)

The version is written once, in pyproject.toml (PEP 440). A release is ``X.Y.Z`` (or ``X.Y.ZrcN``), tagged
``vX.Y.Z`` (``vX.Y.Z-rc.N``: Pulumi resolves ``pulumi package add <repo>@<tag>`` by semver tags); between
releases main is ``X.Y.Z.devN`` and the docs already name the release it is heading to. Exit 1 with one
line per problem.
"""

from __future__ import annotations

import argparse
import re
import sys
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
VERSION = re.compile(r"^(?P<base>\d+\.\d+\.\d+)(?P<pre>rc\d+)?(?P<dev>\.dev\d+)?$")
# Where the docs and examples tell an adopter what to pin; each must name the release (base version).
PINS: dict[str, re.Pattern[str]] = {
    "docs/multi-language.md": re.compile(r"github\.com/gpu-platform/gpu-platform@v(?P<v>[\w.-]+)"),
    "PulumiPlugin.yaml": re.compile(r"github\.com/gpu-platform/gpu-platform@v(?P<v>[\w.-]+)"),
    "examples/yaml-gpu-pools/Pulumi.yaml": re.compile(
        r"github\.com/gpu-platform/gpu-platform@v(?P<v>[\w.-]+)"
    ),
    # The Git form of a release until releases are on PyPI: `gpu-platform[gke] @ git+<repository>@vX.Y.Z`.
    **{
        name: re.compile(
            r"gpu-platform\[\w+\] @ git\+https://github\.com/gpu-platform/gpu-platform@v(?P<v>[\w.-]+)"
        )
        for name in ("README.md", "docs/adopting.md")
    },
    **{
        f"examples/{name}/requirements.txt": re.compile(r"gpu-platform\[\w+\]==(?P<v>[\w.-]+)")
        for name in ("gke-gpu-pools", "eks-gpu-pools", "aks-gpu-pools", "eks-karpenter-gpu", "dra-mig-claims")
    },
}
CANONICAL = "https://github.com/gpu-platform/gpu-platform"


def project_version() -> str:
    return tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["version"]


def semver(version: str) -> str:
    """The tag's semver spelling of a PEP 440 version: ``1.0.0rc1`` -> ``1.0.0-rc.1``."""
    sys.path.insert(0, str(REPO / "components"))
    from gpu_platform.policy.project import pack_version

    return pack_version(version)


def changelog_section(version: str) -> str | None:
    """The body of ``## [version] - YYYY-MM-DD`` in CHANGELOG.md, or None."""
    text = (REPO / "CHANGELOG.md").read_text()
    m = re.search(
        rf"^## \[{re.escape(version)}\] - \d{{4}}-\d{{2}}-\d{{2}}\n(.*?)(?=^## \[|\Z)", text, re.M | re.S
    )
    return m[1].strip() if m else None


def problems(tag: str | None) -> list[str]:
    version = project_version()
    out: list[str] = []
    m = VERSION.match(version)
    if m is None:
        return [f"pyproject.toml: version {version!r} is not X.Y.Z, X.Y.ZrcN or X.Y.Z[rcN].devN"]
    release = version.removesuffix(m["dev"] or "")
    if tag is not None:
        if m["dev"]:
            out.append(f"pyproject.toml: version {version} is a development version; a release is {release}")
        if tag != f"v{semver(release)}":
            out.append(f"tag {tag} is not v{semver(release)} (pyproject.toml version {version})")
        if changelog_section(release) is None:
            out.append(f"CHANGELOG.md: no '## [{release}] - YYYY-MM-DD' section")
    policy = (REPO / "policy" / "PulumiPolicy.yaml").read_text()
    if f"\nversion: {semver(version)}\n" not in policy:
        out.append(
            f"policy/PulumiPolicy.yaml: version is not {semver(version)} (gpu-platform policy-pack write)"
        )
    urls = tomllib.loads((REPO / "pyproject.toml").read_text())["project"].get("urls", {})
    if urls.get("Repository") != CANONICAL:
        out.append(f"pyproject.toml: [project.urls] Repository is not {CANONICAL}")
    for name, pattern in PINS.items():
        found = [p["v"] for p in pattern.finditer((REPO / name).read_text())]
        if not found:
            out.append(f"{name}: names no release to pin")
        out += [
            f"{name}: pins {v}, the release is {semver(release)}"
            for v in found
            if v not in (release, semver(release))
        ]
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--tag", help="the release tag being pushed (vX.Y.Z)")
    group.add_argument("--notes", action="store_true", help="print the CHANGELOG section of this version")
    args = parser.parse_args(argv)
    if args.notes:
        version = project_version()
        section = changelog_section(version)
        if section is None:
            print(f"CHANGELOG.md: no '## [{version}] - YYYY-MM-DD' section", file=sys.stderr)
            return 1
        print(section)
        return 0
    found = problems(args.tag)
    for line in found:
        print(f"error: {line}", file=sys.stderr)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
