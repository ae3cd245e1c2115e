"""Tests of gpu_platform.addons.gpu_operator (tests/ mirrors components/gpu_platform/)."""
