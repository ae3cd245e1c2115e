"""An offline wheelhouse for installing a built gpu-platform wheel into a fresh virtualenv.

The suite has no network, so the dependencies come from the environment running the tests: each
installed distribution an extra needs is packed back into a wheel from its own ``RECORD`` (the files
the installer wrote into site-packages) and ``WHEEL`` tags, with a fresh ``RECORD``. ``pip install
--no-index --find-links <wheelhouse>`` then resolves and installs them like wheels from an index: the
same versions, the same compiled extensions, nothing fetched.
"""

from __future__ import annotations

import base64
import hashlib
import re
import zipfile
from collections.abc import Iterable
from email.parser import Parser
from importlib.metadata import Distribution, PackageNotFoundError, distribution
from pathlib import Path

from packaging.markers import default_environment
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

# Written by the installer, not part of the wheel (PEP 376 / 610 / 627).
_INSTALL_ONLY = {"INSTALLER", "REQUESTED", "direct_url.json", "RECORD"}


def _wants(req: Requirement, extras: Iterable[str]) -> bool:
    if req.marker is None:
        return True
    env = default_environment()
    return any(req.marker.evaluate({**env, "extra": e}) for e in ("", *extras))


def closure(requires: Iterable[str], extras: Iterable[str] = ()) -> list[Distribution]:
    """The installed distributions ``requires`` (a wheel's Requires-Dist, with ``extras`` asked for)
    pulls in, transitively; a requirement not installed here is an error (the wheelhouse would lack it)."""
    seen: dict[str, Distribution] = {}
    expanded: set[tuple[str, frozenset[str]]] = set()
    todo = [(Requirement(r), tuple(extras)) for r in requires]
    while todo:
        req, asked = todo.pop()
        if not _wants(req, asked):
            continue
        name = canonicalize_name(req.name)
        try:
            dist = distribution(req.name)
        except PackageNotFoundError as exc:
            raise LookupError(f"{req} is not installed here, so the wheelhouse cannot have it") from exc
        if not req.specifier.contains(dist.version, prereleases=True):
            raise LookupError(f"{req} is not satisfied by the installed {dist.version}")
        seen[name] = dist
        if (name, frozenset(req.extras)) in expanded:
            continue
        expanded.add((name, frozenset(req.extras)))
        todo += [(Requirement(sub), tuple(req.extras)) for sub in dist.requires or []]
    return sorted(seen.values(), key=lambda d: canonicalize_name(d.metadata["Name"]))


def _wheel_name(dist: Distribution) -> str:
    wheel = Parser().parsestr(dist.read_text("WHEEL") or "")
    tags = wheel.get_all("Tag") or ["py3-none-any"]
    parts = [sorted({t.split("-")[i] for t in tags}) for i in range(3)]
    name = re.sub(r"[-_.]+", "_", dist.metadata["Name"]).lower()
    return f"{name}-{dist.version}-{'-'.join('.'.join(p) for p in parts)}.whl"


def _record_line(arcname: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{arcname},sha256={digest},{len(data)}"


def repack(dist: Distribution, wheelhouse: Path) -> Path:
    """``dist`` as a wheel in ``wheelhouse``: its site-packages files, its metadata, a new RECORD."""
    site = Path(str(dist.locate_file(""))).resolve()
    dist_info = next(
        str(f).split("/")[0]
        for f in dist.files or []
        if str(f).endswith((".dist-info/METADATA", ".dist-info/WHEEL"))
    )
    target = wheelhouse / _wheel_name(dist)
    record: list[str] = []
    with zipfile.ZipFile(target, "w", zipfile.ZIP_STORED) as whl:
        for file in dist.files or []:
            path = Path(str(dist.locate_file(file))).resolve()
            arcname = path.relative_to(site).as_posix() if path.is_relative_to(site) else None
            if (
                arcname is None  # console scripts in bin/: pip writes them again from entry_points.txt
                or "__pycache__" in path.parts
                or (arcname.startswith(f"{dist_info}/") and path.name in _INSTALL_ONLY)
                or not path.is_file()
            ):
                continue
            data = path.read_bytes()
            whl.writestr(arcname, data)
            record.append(_record_line(arcname, data))
        whl.writestr(f"{dist_info}/RECORD", "\n".join([*record, f"{dist_info}/RECORD,,"]) + "\n")
    return target


def build_wheelhouse(wheel: Path, extras: Iterable[str], wheelhouse: Path) -> list[Path]:
    """A wheelhouse with everything ``wheel`` needs with ``extras``, repacked from this environment."""
    with zipfile.ZipFile(wheel) as whl:
        metadata = whl.read(next(n for n in whl.namelist() if n.endswith(".dist-info/METADATA"))).decode()
    requires = Parser().parsestr(metadata).get_all("Requires-Dist") or []
    wheelhouse.mkdir(parents=True, exist_ok=True)
    return [repack(d, wheelhouse) for d in closure(requires, extras)]
