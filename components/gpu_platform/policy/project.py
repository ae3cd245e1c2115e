"""The policy pack as a directory a platform repository keeps: ``gpu-platform policy-pack write DIR``.

Three small files; the rules stay in the installed library, so upgrading ``gpu-platform`` upgrades
the pack, and ``pulumi preview --policy-pack DIR`` enforces what ``gpu-platform plan --policy`` checks:

- ``__main__.py``: calls :func:`gpu_platform.policy.pack.serve`;
- ``PulumiPolicy.yaml``: description, Python runtime and the pack's virtualenv;
- ``requirements.txt``: what Pulumi installs into that virtualenv (``gpu-platform[policy]`` at the
  installed version unless told otherwise, e.g. a Git URL or ``-e ..[policy]`` for a checkout).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from gpu_platform.policy.pack import PACK_NAME
from gpu_platform.semver import PEP440, semver

MAIN = '''"""gpu-platform policy pack (written by `gpu-platform policy-pack write`): the installed library's rules."""

from gpu_platform.policy.pack import serve

serve()
'''

DESCRIPTION = (
    "gpu-platform guard rails for GPU node pools on GKE, EKS and AKS: tainted GPU pools, whole-GPU\n"
    "  requests, GPU Operator tolerations, one driver and one device plugin per node, pinned Helm charts,\n"
    "  autoscaled pools that ignore size changes, no time-slicing where isolation is required."
)


REPOSITORY = "https://github.com/gpu-platform/gpu-platform"
"""Where an unreleased library comes from (pyproject.toml's ``Repository`` URL; a test keeps them equal)."""


def default_requirement(version: str) -> str:
    """What the pack installs: the release that wrote it, which PyPI serves.

    A ``.devN`` build of main is not published, so its pack installs main from the repository; a source
    tree that was never installed (or a version this project would not write) gets no pin."""
    m = PEP440.match(version)
    if m is None or version.startswith("0.0.0"):
        return "gpu-platform[policy]"
    if m["dev"] is not None:
        return f"gpu-platform[policy] @ git+{REPOSITORY}@main"
    return f"gpu-platform[policy]=={version}"


def pack_version(version: str) -> str:
    """PulumiPolicy.yaml's ``version``: Pulumi reads it as semver, so PEP 440's ``0.2.0.dev3`` becomes
    ``0.2.0-dev.3`` (and ``1.0.0rc1`` ``1.0.0-rc.1``); a local ``+...`` part is dropped."""
    return semver(version)


def pack_files(version: str, requirement: str | None = None, virtualenv: str = "venv") -> dict[str, str]:
    """File name -> content of the pack directory."""
    policy_yaml = (
        f"# The {PACK_NAME} policy pack; the rules are gpu_platform.policy in the installed library.\n"
        f"description: >-\n  {DESCRIPTION}\n"
        f"runtime:\n  name: python\n  options:\n    virtualenv: {virtualenv}\n"
        f"version: {pack_version(version)}\n"
    )
    requirements = (
        "# Installed by Pulumi into the pack's virtualenv; the rules come with the library.\n"
        f"{requirement or default_requirement(version)}\n"
    )
    return {"__main__.py": MAIN, "PulumiPolicy.yaml": policy_yaml, "requirements.txt": requirements}


@dataclass
class Written:
    path: Path
    changed: bool


class PackExists(ValueError):
    """A file of the pack exists with other content (pass ``force`` to replace it)."""


def write_pack(
    directory: Path,
    version: str,
    requirement: str | None = None,
    virtualenv: str = "venv",
    force: bool = False,
) -> list[Written]:
    """Write the pack into ``directory``; nothing is written if a file would be replaced without ``force``."""
    files = pack_files(version, requirement, virtualenv)
    if not force:
        clashes = [
            name
            for name, text in files.items()
            if (directory / name).exists() and (directory / name).read_text() != text
        ]
        if clashes:
            raise PackExists(f"{directory}: would replace {', '.join(clashes)}; pass --force to replace")
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    for name, text in files.items():
        path = directory / name
        changed = not path.exists() or path.read_text() != text
        if changed:
            path.write_text(text)
        written.append(Written(path, changed))
    return written
