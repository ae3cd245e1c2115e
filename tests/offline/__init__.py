"""Tests of gpu_platform.offline (tests/ mirrors components/gpu_platform/)."""
