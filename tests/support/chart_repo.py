"""The vendored charts (``tests/upstream/charts``) as a Helm chart repository served on 127.0.0.1: the
``https://`` (here ``http://``) form of the ``mirror.charts`` setting, used for real by ``pulumi up``.

A Helm repository is an ``index.yaml`` and the charts' ``.tgz`` archives (helm/helm v3.18.6,
pkg/repo/index.go: ``apiVersion: v1``, ``entries`` of chart name -> the ``Chart.yaml`` metadata of each version
with ``urls`` and a ``digest``, the archive's sha256); an archive holds the chart's files under one folder
(pkg/chart/loader/archive.go drops the first path element). Both are written here, without the helm binary.
"""

from __future__ import annotations

import functools
import hashlib
import http.server
import io
import tarfile
import threading
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import yaml

from tests.support.helm import published_charts


def package(chart: Path) -> tuple[dict[str, Any], bytes]:
    """``chart``'s ``Chart.yaml`` and its ``.tgz``: every file under ``<name>/`` (subcharts in ``charts/``
    included, unpacked as vendored), with fixed times and owners so the digest is stable."""
    meta: dict[str, Any] = yaml.safe_load((chart / "Chart.yaml").read_text())
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz", compresslevel=6) as tar:
        for path in sorted(p for p in chart.rglob("*") if p.is_file()):
            data = path.read_bytes()
            info = tarfile.TarInfo(f"{meta['name']}/{path.relative_to(chart).as_posix()}")
            info.size, info.mode, info.mtime = len(data), 0o644, 0
            tar.addfile(info, io.BytesIO(data))
    return meta, buffer.getvalue()


def write_repository(folder: Path, url: str, charts: Iterable[Path]) -> dict[str, Any]:
    """``charts`` packaged into ``folder`` with the ``index.yaml`` naming them under ``url``; the index."""
    folder.mkdir(parents=True, exist_ok=True)
    created = datetime.now(UTC).isoformat()
    entries: dict[str, list[dict[str, Any]]] = {}
    for chart in charts:
        meta, archive = package(chart)
        file = f"{meta['name']}-{meta['version']}.tgz"
        (folder / file).write_bytes(archive)
        entry = {
            **meta,
            "urls": [f"{url}/{file}"],
            "digest": hashlib.sha256(archive).hexdigest(),
            "created": created,
        }
        entries.setdefault(meta["name"], []).append(entry)
    index = {"apiVersion": "v1", "entries": entries, "generated": created}
    (folder / "index.yaml").write_text(yaml.safe_dump(index, sort_keys=False))
    return index


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


@contextmanager
def serve(folder: Path, charts: Iterable[Path] | None = None) -> Iterator[str]:
    """A chart repository of ``charts`` (default: every vendored chart) served from ``folder`` on a free
    loopback port for the ``with`` block; yields its URL."""
    handler = functools.partial(_Quiet, directory=str(folder))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    url = f"http://127.0.0.1:{server.server_address[1]}"
    write_repository(
        folder,
        url,
        sorted(d for d in published_charts().iterdir() if d.is_dir()) if charts is None else charts,
    )
    thread = threading.Thread(target=server.serve_forever, name="chart-repository", daemon=True)
    thread.start()
    try:
        yield url
    finally:
        server.shutdown()
        server.server_close()
        thread.join(10)
