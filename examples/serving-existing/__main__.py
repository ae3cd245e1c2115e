"""Language models on an existing cluster, served by vLLM as KServe ``LLMInferenceService``s: the library's stack program
with a ``serving`` section (``Pulumi.example.yaml``). Each model is sized for vLLM (weights, KV cache, tensor
parallelism, the smallest GPU, MIG slice or node of its pools that holds it) and placed on that pool; the
LLMInferenceService controller, its presets and the services come from the pinned KServe v0.20.0 charts.
"""

from gpu_platform.stack import main

main()
