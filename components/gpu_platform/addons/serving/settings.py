"""The stack file's ``serving`` section and ``LlmServing``'s arguments: language models, each sized for vLLM on
the named GPU pools and served as a KServe ``LLMInferenceService``.

No ``from __future__ import annotations``: Pulumi's component analyzer needs real annotations.
"""

from collections.abc import Sequence
from typing import NotRequired

from pydantic import with_config
from typing_extensions import TypedDict

from gpu_platform.args.common import CloudValue
from gpu_platform.args.mirror import MirrorArgs
from gpu_platform.args.pool import GpuPoolArgs
from gpu_platform.args.validate import ARGS_CONFIG

DEFAULT_SERVING_NAMESPACE = "llm"
"""Where the models' ``LLMInferenceService``s go unless a model names its own namespace."""
DEFAULT_PRECISION = "bf16"
"""The weights' precision: the 16-bit checkpoints the model cards publish."""
DEFAULT_CONCURRENT_SEQUENCES = 1
"""Sequences one replica holds at full context at once (``gpu-platform size --concurrency``'s default)."""
DEFAULT_MIN_REPLICAS = 1
"""Replicas of each model; ``max_replicas`` defaults to it."""
DEFAULT_PREFILL_REPLICAS = 1
"""Prefill replicas of a model served with ``prefill_decode`` unless it names its own."""


@with_config(ARGS_CONFIG)
class LlmArchitectureArgs(TypedDict):
    """A model outside the catalog (``catalog/llm_models.py``), by the numbers of its ``config.json``: what
    ``gpu-platform size --params ... --layers ...`` takes."""

    params_b: float
    """Parameters, in billions (every expert of a mixture of experts)."""
    layers: int
    """``num_hidden_layers``."""
    attention_heads: int
    """``num_attention_heads`` (vLLM's tensor parallel size must divide it)."""
    kv_heads: int
    """``num_key_value_heads``."""
    head_dim: int
    """``hidden_size / num_attention_heads`` (or ``head_dim``)."""
    max_context: int
    """``max_position_embeddings``."""


@with_config(ARGS_CONFIG)
class LlmPrefillDecodeArgs(TypedDict):
    """Prefill/decode disaggregation: prompts are prefilled by their own replicas, which hand the KV cache to the
    model's (decode) replicas over NIXL (KServe's ``spec.prefill``, docs/serving.md)."""

    prefill_replicas: NotRequired[int]
    """Prefill replicas, each sized like a decode replica (same pool and tensor parallelism); default 1."""


@with_config(ARGS_CONFIG)
class LlmModelArgs(TypedDict):
    """One model served by vLLM: sized from its architecture, precision, context and load, placed on the smallest
    shape (GPU count, MIG slice or share) of its pools that holds one replica."""

    name: str
    """The ``LLMInferenceService``'s name, a DNS-1035 label."""
    model: str
    """A catalog key (``llama-3.1-8b``; ``gpu-platform size --help`` lists them) or a Hugging Face ID; a model
    outside the catalog also needs ``architecture``."""
    architecture: NotRequired[LlmArchitectureArgs]
    """The model's numbers, for a model outside the catalog (they win over the catalog's)."""
    uri: NotRequired[str]
    """Where the weights are (``hf://org/model``, ``gs://``, ``s3://``, ``pvc://``, ``oci://``); default
    ``hf://`` and the model's Hugging Face ID."""
    precision: NotRequired[str]
    """``bf16`` (default), ``fp16``, ``fp8`` or ``int4`` (AWQ/GPTQ): the weights as stored."""
    context_length: NotRequired[int]
    """vLLM's ``--max-model-len``; default the model's ``max_context``."""
    concurrent_sequences: NotRequired[int]
    """The target load: sequences one replica holds at full context at once (sizes the KV cache); default 1."""
    pools: NotRequired[Sequence[str]]
    """The GPU pools the model may run on (names of ``gpu_pools``); default every pool. The smallest shape that
    holds one replica wins (fewest nodes, least memory tied up, fewest GPUs, then this order)."""
    min_replicas: NotRequired[int]
    """Replicas; default 1."""
    max_replicas: NotRequired[int]
    """Above ``min_replicas``: KEDA scales the model between the two on vLLM's waiting requests and KV-cache use
    (needs ``observability``); default ``min_replicas`` (a fixed count)."""
    namespace: NotRequired[str]
    """Namespace of the ``LLMInferenceService``; default the section's ``namespace``."""
    queue: NotRequired[str]
    """The Kueue LocalQueue of the model's namespace that admits its pods and charges them to its team's quota
    (label ``kueue.x-k8s.io/queue-name``). Default, when the model's pool is under a team's ClusterQueue: the team
    LocalQueue of the model's namespace; a model on such a pool outside every team namespace is refused. In a stack
    the queue must be a team's (``kueue.teams``) whose ClusterQueue owns or can borrow the pool."""
    prefill_decode: NotRequired[LlmPrefillDecodeArgs]
    """Serve the model disaggregated: prefill replicas beside the (decode) replicas, the endpoint picker sending
    each request to one of each. Needs a whole-GPU pool (``sharing`` ``none``) and a replica within one node."""
    cache_claim: NotRequired[str]
    """A PersistentVolumeClaim in the model's namespace that holds the weights (read in place, no download); without
    it a ``gs://`` (GKE), ``s3://`` (EKS) or Azure Blob (AKS) URI is mounted through the cloud's CSI driver, anything
    else downloaded by KServe's storage initializer (docs/serving.md)."""


@with_config(ARGS_CONFIG)
class ServingGatewayArgs(TypedDict):
    """The inference gateway every model's route attaches to (KServe's ``kserve-ingress-gateway``)."""

    internal: NotRequired[bool]
    """GKE: the internal regional class ``gke-l7-rilb`` instead of the external one; default false."""
    gateway_class: NotRequired[str]
    """A GatewayClass the cluster already has (an implementation with the inference extension): no gateway chart
    is installed. Default: GKE's managed class, elsewhere Envoy Gateway with Envoy AI Gateway (installed)."""


@with_config(ARGS_CONFIG)
class ServingSettings(TypedDict):
    """What the stack file's ``serving`` section and ``LlmServingArgs`` share."""

    models: Sequence[LlmModelArgs]
    """The models to serve, at least one."""
    namespace: NotRequired[str]
    """Default namespace of the models (``DEFAULT_SERVING_NAMESPACE``), created unless it is a team's."""
    gateway: NotRequired[ServingGatewayArgs]
    """The inference gateway (Gateway API with the inference extension) the models are routed through."""


@with_config(ARGS_CONFIG)
class LlmServingArgs(ServingSettings):
    """Arguments of ``LlmServing``: the models and the GPU pools they are sized on (described as for the node
    pools). KServe (``KServe``) must be installed."""

    cloud: CloudValue
    """Cloud of the pools: ``gke``, ``eks``, ``aks`` or ``existing``."""
    pools: Sequence[GpuPoolArgs]
    """The GPU pools the models may run on."""
    mirror: NotRequired[MirrorArgs]
    """Charts and images from a mirror instead of upstream."""
