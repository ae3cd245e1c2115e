"""Tests of gpu_platform.addons.volcano (tests/ mirrors components/gpu_platform/)."""
