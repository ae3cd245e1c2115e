"""``GpuPlatformArgs``: the whole platform as one component's arguments, the stack file's keys in Python.

No ``from __future__ import annotations``: Pulumi's component analyzer needs real annotations.
"""

from pydantic import with_config

from gpu_platform.args.validate import ARGS_CONFIG
from gpu_platform.stack.sections import StackConfigArgs


@with_config(ARGS_CONFIG)
class GpuPlatformArgs(StackConfigArgs):
    """The arguments of ``GpuPlatform``: exactly the keys of a stack file (``cloud``, ``cluster``,
    ``gpu_pools``, ``gpu_operator``, ``kueue``, ``kserve``, ...), snake_case in Python and camelCase in other
    languages. The pools are described once; every piece of the platform is made from that description."""
