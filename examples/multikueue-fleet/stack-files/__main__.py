"""The library's stack program: a stack file with ``gpu-platform:fleet`` is a manager, any other a platform."""

from gpu_platform.stack import main

main()
