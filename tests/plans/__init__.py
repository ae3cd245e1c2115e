"""Tests of gpu_platform.plans (tests/ mirrors components/gpu_platform/)."""
