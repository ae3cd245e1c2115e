"""Tests of gpu_platform.args (tests/ mirrors components/gpu_platform/)."""
