"""Volcano: a gang scheduler that owns the GPU pools Kueue does not, with its queues and PodGroup defaults."""
