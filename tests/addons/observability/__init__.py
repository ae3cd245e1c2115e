"""Tests of gpu_platform.addons.observability (tests/ mirrors components/gpu_platform/)."""
