"""Tests of gpu_platform.addons.dra (tests/ mirrors components/gpu_platform/)."""
