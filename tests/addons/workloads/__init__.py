"""Tests of gpu_platform.addons.workloads (tests/ mirrors components/gpu_platform/)."""
