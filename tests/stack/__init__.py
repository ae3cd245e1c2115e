"""Tests of gpu_platform.stack (tests/ mirrors components/gpu_platform/)."""
