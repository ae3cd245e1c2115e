"""KServe (its CRDs, controller and runtimes) and the GPU inference services that run on it."""
