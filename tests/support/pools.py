"""One GPU pool from raw arguments, resolved as the components resolve their pools."""

from __future__ import annotations

from typing import Any

from gpu_platform.pools import GpuPool
from gpu_platform.resolve.cluster_pools import resolve_pools


def resolved_pool(cloud: str, **raw: Any) -> GpuPool:
    """The pool ``raw`` describes on ``cloud``: named ``p``, at most 2 nodes unless ``raw`` says otherwise."""
    return resolve_pools(cloud, [{"name": "p", "max_nodes": 2, **raw}])[0]
