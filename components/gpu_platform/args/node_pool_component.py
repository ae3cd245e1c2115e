"""What every cloud's GPU node pool component takes (``GpuNodePoolArgs``); each cloud's own arguments are in
``clouds/<cloud>/args.py``. The pool itself is ``GpuPoolArgs`` (``args/pool.py``).

No ``from __future__ import annotations``: Pulumi's component analyzer needs real annotations.
"""

from typing import NotRequired

from pulumi import Input
from typing_extensions import TypedDict

from gpu_platform._moved import moved_attribute
from gpu_platform.args.common import DriverArgs
from gpu_platform.args.pool import GpuPoolArgs


class GpuNodePoolArgs(TypedDict):
    """What every cloud's GPU node pool takes."""

    pool: GpuPoolArgs
    """The pool, exactly as a ``gpuPools`` entry of the stack file (its keys snake_case in Python)."""
    driver: NotRequired[DriverArgs]
    """Who installs the driver; must be what the GPU Operator is given, so nothing is installed twice."""
    operator_version: NotRequired[str]
    """GPU Operator chart version (default ``versions.GPU_OPERATOR``), for the driver it installs."""
    cuda_version: NotRequired[str]
    """CUDA ``major.minor`` of the images, for a pool without its own ``cuda_version``."""
    kubernetes_version: NotRequired[Input[str]]
    """Node Kubernetes version; default: the cluster's."""
    protect: NotRequired[bool]
    """Protect the pool from deletion and replacement (Pulumi ``protect``); default true. Set false for
    disposable stacks, or to let a replacing change (new machine type, zones, spot) go through: the new
    pool is then created before the old one is deleted."""


def __getattr__(name: str) -> object:
    # Names that moved to a cloud's folder still resolve here, with a warning, for one minor release. They were
    # public as ``gpu_platform.args.nodepools``, this module's old path, so the warning names that one.
    return moved_attribute("gpu_platform.args.nodepools", name)
