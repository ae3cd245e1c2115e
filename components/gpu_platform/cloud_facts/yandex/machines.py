"""Yandex Compute Cloud GPU platforms (``instance_template.platform_id`` of a node group) and their published
configurations: GPUs, vCPUs and RAM per VM (yandex-cloud/docs ``en/compute/concepts/gpus.md``, "VM
configurations", at commit 0423c802). A platform is not one shape: the GPU count (and on T4 platforms the
vCPU count) picks the configuration, so each platform has several ``MachineType`` rows.

Not in the catalog: ``gpu-standard-v1``/``v2`` (Tesla V100) and ``standard-v3-t4i`` (T4i 24GB), whose GPUs
the library's GPU catalog does not model. ``gpu-standard-v4`` is recorded as the H200 141GB: the page gives
141 GB of VRAM per GPU and no model name (its 2-GPU row says 242 GB, an upstream typo for 282).
"""

from __future__ import annotations

import re

from gpu_platform.catalog.machines import MachineType

MACHINE_NAME = re.compile(r"^(gpu-)?standard-v[1-9][a-z0-9-]*$")
"""What a Yandex platform ID looks like."""


def _platform(name: str, gpu: str, rows: tuple[tuple[int, int, int], ...]) -> tuple[MachineType, ...]:
    counts = tuple(dict.fromkeys(g for g, _, _ in rows))
    allowed = counts if len(counts) > 1 else ()
    return tuple(MachineType("yandex", name, gpu, g, v, m, allowed_gpu_counts=allowed) for g, v, m in rows)


def _yandex() -> dict[str, tuple[MachineType, ...]]:
    return {
        "gpu-standard-v3": _platform(
            "gpu-standard-v3", "a100-80gb", ((1, 28, 119), (2, 56, 238), (4, 112, 476), (8, 224, 952))
        ),
        "gpu-standard-v3i": _platform(
            "gpu-standard-v3i", "a100-80gb", ((1, 18, 144), (2, 36, 288), (4, 72, 576), (8, 180, 1440))
        ),
        "gpu-standard-v4": _platform(
            "gpu-standard-v4", "h200-141gb", ((1, 22, 220), (2, 44, 440), (4, 88, 880), (8, 180, 1800))
        ),
        "standard-v3-t4": _platform(
            "standard-v3-t4", "t4", ((1, 4, 16), (1, 8, 32), (1, 16, 64), (1, 32, 128))
        ),
    }


CONFIGURATIONS: dict[str, tuple[MachineType, ...]] = _yandex()
"""Platform ID -> its published configurations, smallest first."""
MACHINES: dict[str, MachineType] = {name: rows[-1] for name, rows in CONFIGURATIONS.items()}
"""Platform ID -> its largest configuration (what messages list)."""


def configuration(platform: str, gpus: int | None, vcpus: int | None) -> MachineType | None:
    """The configuration a node group of ``platform`` runs: the one with ``gpus`` GPUs (the largest when not
    given or not offered, so the count check names the valid ones) and the fewest vCPUs that hold the
    declared allocatable ``vcpus`` (T4 platforms offer several per GPU count)."""
    rows = CONFIGURATIONS.get(platform)
    if rows is None:
        return None
    same = [m for m in rows if m.gpus == gpus] or [m for m in rows if m.gpus == rows[-1].gpus]
    if vcpus is None:
        return same[-1]
    fitting = [m for m in same if m.vcpus >= vcpus]
    return fitting[0] if fitting else same[-1]
