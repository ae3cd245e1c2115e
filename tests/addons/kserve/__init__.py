"""Tests of gpu_platform.addons.kserve (tests/ mirrors components/gpu_platform/)."""
