"""Build the sdist and the wheel from a copy of this checkout, offline (``python -m build --no-isolation``).

The copy holds what the sdist is made of, so the checkout gets no build/ or egg-info; the setuptools and
build of the [dev] extra do the work, so nothing is downloaded.
"""

from __future__ import annotations

import subprocess
import sys
from functools import cache
from pathlib import Path

import pytest
from packaging.version import Version

from tests.conftest import REPO

PACKAGE = REPO / "components" / "gpu_platform"


@cache
def built(tmp: Path) -> tuple[Path, Path, str]:
    """(wheel, sdist, build output) for a copy of the checkout in ``tmp``."""
    import setuptools

    if Version(setuptools.__version__) < Version("77"):
        pytest.fail(
            f"setuptools {setuptools.__version__} cannot build the SPDX license metadata; the [dev] extra "
            "pins setuptools>=77: run `make setup`",
            pytrace=False,
        )
    src, dist = tmp / "src", tmp / "dist"
    src.mkdir()
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        (src / name).write_bytes((REPO / name).read_bytes())
    for path in PACKAGE.rglob("*"):
        if path.is_file() and "__pycache__" not in path.parts:
            target = src / path.relative_to(REPO)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(path.read_bytes())
    result = subprocess.run(
        [sys.executable, "-m", "build", "--no-isolation", "--outdir", str(dist), str(src)],
        capture_output=True,
        text=True,
        check=False,
    )
    output = result.stdout + result.stderr
    assert result.returncode == 0, output
    return next(dist.glob("*.whl")), next(dist.glob("*.tar.gz")), output
