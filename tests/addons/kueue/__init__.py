"""Tests of gpu_platform.addons.kueue (tests/ mirrors components/gpu_platform/)."""
