"""The ``LLMInferenceServiceConfig`` KServe v0.20.0's controller asks for a replica spanning nodes, which no KServe
chart ships: ``kserve-config-llm-worker-pipeline-parallel``.

Why the library ships it: KServe's controller merges an ``LLMInferenceService`` with a ``spec.worker`` and
``spec.parallelism.pipeline > 0`` over this preset (``combineBaseRefsConfig``,
``pkg/controller/v1alpha2/llmisvc/config_merge.go`` at v0.20.0; still so on kserve/kserve main at aaac4e29). It looks
the name up in the service's namespace, then in ``kserve`` (``getConfig``), and stops with ``ConfigNotFound`` when
neither has it: naming a complete ``spec.worker`` in the service does not avoid the lookup. The chart at v0.20.0
(``charts/kserve-runtime-configs/files/llmisvcconfigs/resources.yaml``) ships only the data-parallel worker presets,
so the library creates this one beside them, in the controller's namespace. The name is outside the controller's
``WellKnownDefaultConfigs``, so it is not versioned (``WellKnownConfigResolver.Resolve`` returns it as is).

What it runs is modelled on ``kserve-config-llm-worker-data-parallel`` of that file (same image, environment,
probes, volumes and security context; the leader's address resolved to an IP as there), with vLLM's Ray-less
multi-node launch instead of data parallelism: every pod runs ``vllm serve`` with ``--tensor-parallel-size`` (GPUs
of its node) and ``--pipeline-parallel-size`` (nodes), ``--nnodes``, its ``--node-rank`` (LeaderWorkerSet's
``LWS_WORKER_INDEX``: 0 on the leader) and the leader as ``--master-addr``; the workers run ``--headless`` (no API
server) (vllm-project/vllm ``docs/serving/parallelism_scaling.md``, "Running vLLM with MultiProcessing"). KServe
turns the merged service into one LeaderWorkerSet of ``spec.parallelism.pipeline`` pods per replica, the leader
from ``spec.template`` and the others from ``spec.worker`` (``expectedMainMultiNodeLWS``,
``pkg/controller/v1alpha2/llmisvc/workload_multi_node.go``). ``{{ ... }}`` are the controller's Go templates
(``ReplaceVariables``), as in the upstream presets.
"""

from __future__ import annotations

import copy
from typing import Any

from gpu_platform.addons.serving.preset_images import VLLM_IMAGE

API_VERSION = "serving.kserve.io/v1alpha2"
KIND = "LLMInferenceServiceConfig"
PIPELINE_PRESET = "kserve-config-llm-worker-pipeline-parallel"
"""``configPrefix`` (``kserve-``) + ``configWorkerPipelineParallelNameSuffix`` (``config_merge.go``)."""
MASTER_PORT = 29500
"""The leader's port for vLLM's process group (``--master-port``), fixed so every pod names the same one."""

_RESOLVE_LEADER = """\
# The leader's IP, as kserve-config-llm-worker-data-parallel resolves it (ZMQ binds do not resolve DNS names).
RESOLVE_ATTEMPTS=${LEADER_ADDRESS_RESOLVE_ATTEMPTS:-30}
for ((i=1; i<=RESOLVE_ATTEMPTS; i++)); do
  MASTER_ADDR=$(getent hosts ${LWS_LEADER_ADDRESS} | cut -d' ' -f1)
  if [ -n "$MASTER_ADDR" ]; then
    break
  fi
  echo "leader address resolution failed on attempt $i, retrying..."
  sleep 1
done
MASTER_ADDR=${MASTER_ADDR:-${LWS_LEADER_ADDRESS}}
echo "MASTER_ADDR=${MASTER_ADDR} NODE_RANK=${LWS_WORKER_INDEX:-0}"
"""

_PARALLEL_ARGS = (
    "  --tensor-parallel-size {{ .Spec.Parallelism.Tensor }} \\\n"
    "  --pipeline-parallel-size {{ .Spec.Parallelism.Pipeline }} \\\n"
    "  --distributed-executor-backend mp \\\n"
    "  --nnodes {{ .Spec.Parallelism.Pipeline }} \\\n"
    "  --node-rank ${LWS_WORKER_INDEX:-0} \\\n"
    f"  --master-addr ${{MASTER_ADDR}} --master-port {MASTER_PORT} \\\n"
)

_LEADER_SCRIPT = (
    _RESOLVE_LEADER
    + 'eval "exec vllm serve /mnt/models \\\n'
    + '  --served-model-name "{{ .Spec.Model.Name }}" '
    + '"publishers/{{ .ObjectMeta.Namespace }}/models/{{ .Spec.Model.Name }}" \\\n'
    + "  --port 8000 \\\n"
    + _PARALLEL_ARGS
    + "  {{ if .GlobalConfig.EnableTLS }}--enable-ssl-refresh{{- end }} \\\n"
    + "  {{ if .GlobalConfig.EnableTLS }}--ssl-certfile /var/run/kserve/tls/tls.crt{{- end }} \\\n"
    + "  {{ if .GlobalConfig.EnableTLS }}--ssl-keyfile /var/run/kserve/tls/tls.key{{- end }} \\\n"
    + "  ${VLLM_ADDITIONAL_ARGS} \\\n"
    + '  $@"'
)

_WORKER_SCRIPT = (
    _RESOLVE_LEADER
    + 'eval "exec vllm serve /mnt/models \\\n'
    + _PARALLEL_ARGS
    + "  --headless \\\n"
    + "  ${VLLM_ADDITIONAL_ARGS} \\\n"
    + '  $@"'
)


def _probe(failures: int, period: int, timeout: int | None = 1) -> dict[str, Any]:
    probe: dict[str, Any] = {
        "failureThreshold": failures,
        "httpGet": {
            "path": "/health",
            "port": 8000,
            "scheme": "{{ if .GlobalConfig.EnableTLS }}HTTPS{{else}}HTTP{{- end }}",
        },
        "periodSeconds": period,
    }
    if timeout is not None:
        probe["timeoutSeconds"] = timeout
    return probe


_ENV = [
    {"name": "HOME", "value": "/home"},
    {"name": "VLLM_LOGGING_LEVEL", "value": "INFO"},
    {"name": "HF_HUB_CACHE", "value": "/models"},
]
_SECURITY_CONTEXT = {
    "allowPrivilegeEscalation": False,
    "capabilities": {"add": ["IPC_LOCK", "SYS_RAWIO", "NET_RAW"], "drop": ["ALL"]},
    "readOnlyRootFilesystem": False,
    "runAsNonRoot": True,
    "seccompProfile": {"type": "RuntimeDefault"},
}
_MOUNTS = [
    {"mountPath": "/home", "name": "home"},
    {"mountPath": "/tmp", "name": "tmp-dir"},
    {"mountPath": "/dev/shm", "name": "dshm"},
    {"mountPath": "/models", "name": "model-cache"},
    {"mountPath": "/var/run/kserve/tls", "name": "tls-certs", "readOnly": True},
]
_VOLUMES = [
    {"emptyDir": {}, "name": "home"},
    {"emptyDir": {}, "name": "tmp-dir"},
    # NCCL's buffers between the pipeline stages' processes: the data-parallel preset's 8Gi.
    {"emptyDir": {"medium": "Memory", "sizeLimit": "8Gi"}, "name": "dshm"},
    {"emptyDir": {}, "name": "model-cache"},
    {
        "name": "tls-certs",
        "secret": {"secretName": "{{ ChildName .ObjectMeta.Name `-kserve-self-signed-certs` }}"},
    },
]


def _container(script: str, serves: bool) -> dict[str, Any]:
    """The vLLM container ``main`` (the name the service's own container merges into): the leader serves the API
    and carries the data-parallel preset's probes; a headless worker has no HTTP endpoint to probe."""
    container: dict[str, Any] = {
        "command": ["/bin/bash", "-c", script, "--"],
        "env": copy.deepcopy(_ENV),
        "image": VLLM_IMAGE,
        "imagePullPolicy": "IfNotPresent",
        "lifecycle": {"preStop": {"exec": {"command": ["/bin/sleep", "15"]}}},
        "name": "main",
        "securityContext": copy.deepcopy(_SECURITY_CONTEXT),
        "terminationMessagePath": "/dev/termination-log",
        "terminationMessagePolicy": "FallbackToLogsOnError",
        "volumeMounts": copy.deepcopy(_MOUNTS),
    }
    if serves:
        container["ports"] = [{"containerPort": 8000, "protocol": "TCP"}]
        container["livenessProbe"] = _probe(10, 10)
        container["readinessProbe"] = _probe(2, 1)
        container["startupProbe"] = _probe(60, 10, timeout=None)
    return container


def _pod(script: str, serves: bool) -> dict[str, Any]:
    return {
        "containers": [_container(script, serves)],
        "terminationGracePeriodSeconds": 60,
        "volumes": copy.deepcopy(_VOLUMES),
    }


def pipeline_parallel_preset(namespace: str) -> dict[str, Any]:
    """``kserve-config-llm-worker-pipeline-parallel`` in ``namespace`` (the controller's): the leader
    (``spec.template``) and worker (``spec.worker``) pods of a replica spanning ``spec.parallelism.pipeline`` nodes."""
    return {
        "apiVersion": API_VERSION,
        "kind": KIND,
        "metadata": {"name": PIPELINE_PRESET, "namespace": namespace},
        "spec": {
            "annotations": {"serving.kserve.io/model-based-routing-enabled": "true"},
            "template": _pod(_LEADER_SCRIPT, serves=True),
            "worker": _pod(_WORKER_SCRIPT, serves=False),
        },
    }
