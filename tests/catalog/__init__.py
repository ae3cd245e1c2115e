"""Tests of gpu_platform.catalog (tests/ mirrors components/gpu_platform/)."""
