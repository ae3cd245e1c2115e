"""Tests of gpu_platform.clouds (tests/ mirrors components/gpu_platform/)."""
