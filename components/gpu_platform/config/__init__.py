"""Stack configuration: schema, parsing and the checks that run before anything is registered."""

from gpu_platform.config.errors import ConfigError
from gpu_platform.config.stack import NAMESPACE, PlatformSpec, StackConfig, json_schema, load_platform

__all__ = ["NAMESPACE", "ConfigError", "PlatformSpec", "StackConfig", "json_schema", "load_platform"]
