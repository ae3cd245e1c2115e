"""NVIDIA's GPU Operator, with values that match how each platform ships its driver, and the startup-taint remover."""
