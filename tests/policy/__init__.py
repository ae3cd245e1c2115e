"""Tests of gpu_platform.policy (tests/ mirrors components/gpu_platform/)."""
