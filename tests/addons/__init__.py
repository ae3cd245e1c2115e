"""Tests of gpu_platform.addons (tests/ mirrors components/gpu_platform/)."""
