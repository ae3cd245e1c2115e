"""Tests of gpu_platform.resolve (tests/ mirrors components/gpu_platform/)."""
