"""Tests of gpu_platform.clouds.eks (tests/ mirrors components/gpu_platform/)."""
