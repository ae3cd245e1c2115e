"""Each cloud's plans, components and stack wiring, one folder per cloud; its facts are in ``gpu_platform.cloud_facts``."""

from gpu_platform._moved import moved_attribute


def __getattr__(name: str) -> object:
    # The cloud registry moved to gpu_platform.cloud_facts; its names resolve here, with a warning.
    return moved_attribute(__name__, name)
