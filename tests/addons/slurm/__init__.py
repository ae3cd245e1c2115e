"""Tests of gpu_platform.addons.slurm (tests/ mirrors components/gpu_platform/)."""
