"""gpu-platform: Pulumi components that turn a managed Kubernetes cluster into a GPU platform.

Importing the package loads no cloud SDK: each cloud's module imports ``pulumi_gcp``,
``pulumi_aws`` or ``pulumi_azure_native`` submodules only when one of its components is built.
"""

from gpu_platform.config import ConfigError, PlatformSpec, load_platform
from gpu_platform.pools import GPU_TAINT, GpuPool
from gpu_platform.sharing import advertised_resources

__all__ = ["GPU_TAINT", "ConfigError", "GpuPool", "PlatformSpec", "advertised_resources", "load_platform"]
