"""Tests of gpu_platform.operators (tests/ mirrors components/gpu_platform/)."""
