"""Tests of gpu_platform.clouds.aks (tests/ mirrors components/gpu_platform/)."""
