"""Tests of gpu_platform.cloud_facts.gke (tests/ mirrors components/gpu_platform/)."""
