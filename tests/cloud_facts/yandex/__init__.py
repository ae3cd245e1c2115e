"""Tests of gpu_platform.cloud_facts.yandex (tests/ mirrors components/gpu_platform/)."""
