"""Where a snapshot comes from: the cluster a kubeconfig names, or a JSON file saved by an earlier run
(``--save-snapshot``), so a cluster's state can be compared again, shared, or kept as a CI artifact."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from gpu_platform.verify.expected import Expected
from gpu_platform.verify.finding import Finding
from gpu_platform.verify.snapshot import Snapshot, empty_snapshot

SNAPSHOT_KEYS = frozenset(Snapshot.__annotations__)


class SnapshotFileError(ValueError):
    """A ``--snapshot`` file that cannot be read; ``str`` names it."""


def read_snapshot_file(path: Path) -> Snapshot:
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError) as exc:
        raise SnapshotFileError(f"--snapshot {path}: {' '.join(str(exc).split())}") from None
    if not isinstance(data, dict) or not all(isinstance(data.get(k, []), list) for k in SNAPSHOT_KEYS):
        raise SnapshotFileError(
            f"--snapshot {path}: expected a JSON object of lists ({', '.join(sorted(SNAPSHOT_KEYS))})"
        )
    unknown = sorted(set(data) - SNAPSHOT_KEYS)
    if unknown:
        raise SnapshotFileError(f"--snapshot {path}: unknown keys {unknown}; valid: {sorted(SNAPSHOT_KEYS)}")
    snapshot = empty_snapshot()
    snapshot.update(data)  # type: ignore[typeddict-item]
    return snapshot


def take_snapshot(
    expected: Expected, kubeconfig: str | None, context: str | None, snapshot_file: str | None
) -> Snapshot:
    """The saved snapshot when one is given, else the live cluster's (the ``[verify]`` extra)."""
    if snapshot_file is not None:
        return read_snapshot_file(Path(snapshot_file))
    from gpu_platform.verify.reader import api_client, read_snapshot

    return read_snapshot(api_client(kubeconfig, context), expected)


def save_snapshot(snapshot: Snapshot, path: str) -> None:
    Path(path).write_text(json.dumps(snapshot, indent=2, sort_keys=True) + "\n")


def smoke_findings(expected: Expected, args: Any) -> list[Finding]:
    """``--smoke`` on the cluster ``args`` names (``kubeconfig``, ``context``, ``smoke_timeout``); a saved snapshot
    has no cluster to run on (``SnapshotFileError``)."""
    if args.snapshot is not None:
        raise SnapshotFileError("--smoke runs Jobs on a cluster: give --kubeconfig, not --snapshot")
    from gpu_platform.verify.reader import api_client
    from gpu_platform.verify.smoke_run import run_smoke

    return run_smoke(api_client(args.kubeconfig, args.context), expected, args.smoke_timeout)
