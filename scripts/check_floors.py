#!/usr/bin/env python3
"""The dependency floors: ci/constraints-floor.txt pins, for each runtime dependency and extra, the
oldest release the test suite passes on, and pyproject.toml's lower bounds must say the same.

    python scripts/check_floors.py            pyproject.toml and ci/constraints-floor.txt agree
    python scripts/check_floors.py --floor    ... and the installed versions are exactly the floors
    python scripts/check_floors.py --latest   ... and print the installed versions (for the CI log)

Finding a floor: install a candidate release into a throwaway virtualenv next to the others, run the
suite against this checkout (``PYTHONPATH=components python -m pytest``), and bisect; the floor job in
.github/workflows/ci.yml then keeps it true. Needs ``packaging`` (in [dev]).
"""

from __future__ import annotations

import argparse
import sys
import tomllib
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

REPO = Path(__file__).resolve().parents[1]
CONSTRAINTS = REPO / "ci" / "constraints-floor.txt"
EXTRAS_WITH_FLOORS = ("gke", "eks", "aks", "render", "policy")


def constraints(path: Path | None = None) -> dict[str, str]:
    """name -> pinned version of every ``name==version`` line."""
    pins = {}
    for line in (path or CONSTRAINTS).read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            name, _, pinned = line.partition("==")
            pins[canonicalize_name(name)] = pinned.strip()
    return pins


def lower_bounds(pyproject: Path | None = None) -> dict[str, str]:
    """name -> ``>=`` bound of the runtime dependencies and of the extras that carry floors."""
    project = tomllib.loads((pyproject or REPO / "pyproject.toml").read_text())["project"]
    requirements = list(project["dependencies"])
    for extra in EXTRAS_WITH_FLOORS:
        requirements += project["optional-dependencies"][extra]
    bounds = {}
    for text in requirements:
        req = Requirement(text)
        lows = [s.version for s in req.specifier if s.operator == ">="]
        bounds[canonicalize_name(req.name)] = lows[0] if lows else ""
    return bounds


def problems(installed: bool) -> list[str]:
    pins, bounds = constraints(), lower_bounds()
    found = [
        f"{name}: pyproject.toml says >={bounds.get(name)}, ci/constraints-floor.txt pins {pins.get(name)}"
        for name in sorted(set(pins) | set(bounds))
        if pins.get(name) != bounds.get(name)
    ]
    if installed:
        for name, pinned in sorted(pins.items()):
            try:
                have = version(name)
            except PackageNotFoundError:
                have = "not installed"
            if have != pinned:
                found.append(f"{name}: installed {have}, floor {pinned}")
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--floor", action="store_true", help="the installed versions must be the floors")
    group.add_argument("--latest", action="store_true", help="print the installed versions")
    args = parser.parse_args(argv)
    if args.latest:
        pins = constraints()
        for name in sorted(pins):
            try:
                print(f"{name}=={version(name)}  (floor {pins[name]})")
            except PackageNotFoundError:
                print(f"{name}: not installed")
    found = problems(installed=args.floor)
    for line in found:
        print(line, file=sys.stderr)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
