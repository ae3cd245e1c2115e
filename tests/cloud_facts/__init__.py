"""Tests of gpu_platform.cloud_facts (tests/ mirrors components/gpu_platform/)."""
