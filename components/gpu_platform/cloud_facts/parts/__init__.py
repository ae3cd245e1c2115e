"""The parts of ``CloudProfile``, one concern each (machines, regions, drivers, sharing, capacity, pool rules,
platform, services, allocatable), over ``ProfileBase``: the cloud's names. ``gpu_platform.cloud_facts.profile``
joins them and re-exports their types."""
