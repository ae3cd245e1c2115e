"""Tests of gpu_platform.clouds.gke (tests/ mirrors components/gpu_platform/)."""
