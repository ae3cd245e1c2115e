"""The stack layer: a ``Pulumi.<stack>.yaml`` to a platform, in one pass.

``load_platform`` parses and checks the whole stack file into a ``PlatformSpec``; ``program.deploy``
builds every component from a plan made from that spec. Components never read ``pulumi.Config``; only
``read.read_stack_config`` does.
"""

from gpu_platform.stack.program import deploy, main
from gpu_platform.stack.read import read_stack_config
from gpu_platform.stack.spec import PlatformSpec, load_platform

__all__ = ["PlatformSpec", "deploy", "load_platform", "main", "read_stack_config"]
