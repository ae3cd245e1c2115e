"""Tests of gpu_platform.addons.docker_host (tests/ mirrors components/gpu_platform/)."""
