"""Tests of gpu_platform.clouds.openshift (tests/ mirrors components/gpu_platform/)."""
