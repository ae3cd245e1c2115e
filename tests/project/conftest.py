"""The sdist and wheel of this checkout, built once per session for the packaging and adopter tests."""

from pathlib import Path

import pytest

from tests.support.build import built


@pytest.fixture(scope="session")
def dists(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, str]:
    """(wheel, sdist, build output)."""
    return built(tmp_path_factory.mktemp("build"))
