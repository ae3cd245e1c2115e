"""Validate an object the way the API server would, against a vendored CRD under ``tests/upstream``.

The one CRD/CEL helper of the suite. ``problems_of(obj)`` (or ``crd_problems`` for an explicit CRD file, or
``schema_problems`` for a part of a schema) lists everything the API server would refuse or drop, in five
layers, each able to fail on its own (``tests/support/test_crds.py`` shows each failing):

- apiVersion/kind must be the CRD's group/version and kind (and the version must be served);
- structural defaults are applied first (the API server defaults before it validates);
- ``jsonschema`` on the version's ``openAPIV3Schema`` (types, enums, patterns, required, bounds, maxItems);
- fields the schema does not know, which the API server would prune silently (a typo such as ``minAvaliable``);
- every ``x-kubernetes-validations`` (CEL) rule on a path the object reaches, evaluated by the small CEL
  interpreter below; a rule it cannot evaluate is reported as a problem, never a pass. Transition rules
  (``oldSelf``) apply only to updates and are not evaluated.

Problems read ``<Kind><path>: <message>``, e.g. ``Job.spec.minAvaliable: unknown field (...)``.
"""

from __future__ import annotations

import copy
import functools
import json
import re
from collections.abc import Iterator
from typing import Any

import jsonschema
import yaml

from tests.conftest import upstream

_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

# --- which CRD validates which kind ---------------------------------------------------------------------

CRDS: dict[tuple[str, str], tuple[str, ...]] = {
    # openshift/api, openshift/cluster-autoscaler-operator
    ("machine.openshift.io/v1beta1", "MachineSet"): ("openshift-machine-api", "crds", "machinesets.yaml"),
    ("autoscaling.openshift.io/v1beta1", "MachineAutoscaler"): (
        "openshift-autoscaler",
        "crds",
        "machineautoscalers.yaml",
    ),
    ("nfd.openshift.io/v1", "NodeFeatureDiscovery"): ("openshift-nfd", "crds", "nodefeaturediscoveries.yaml"),
    ("autoscaling.openshift.io/v1", "ClusterAutoscaler"): (
        "openshift-autoscaler",
        "crds",
        "clusterautoscalers.yaml",
    ),
    # kubeflow/trainer
    ("trainer.kubeflow.org/v1alpha1", "TrainJob"): (
        "kubeflow-trainer",
        "crds",
        "trainer.kubeflow.org_trainjobs.yaml",
    ),
    ("trainer.kubeflow.org/v1alpha1", "ClusterTrainingRuntime"): (
        "kubeflow-trainer",
        "crds",
        "trainer.kubeflow.org_clustertrainingruntimes.yaml",
    ),
    # ray-project/kuberay
    ("ray.io/v1", "RayCluster"): ("kuberay", "crds", "ray.io_rayclusters.yaml"),
    ("ray.io/v1", "RayJob"): ("kuberay", "crds", "ray.io_rayjobs.yaml"),
    # kubernetes-sigs/lws, kubernetes-sigs/jobset
    ("leaderworkerset.x-k8s.io/v1", "LeaderWorkerSet"): (
        "lws",
        "crds",
        "leaderworkerset.x-k8s.io_leaderworkersets.yaml",
    ),
    ("jobset.x-k8s.io/v1alpha2", "JobSet"): ("jobset", "crds", "jobset.x-k8s.io_jobsets.yaml"),
    # SlinkyProject/slurm-operator
    ("slinky.slurm.net/v1beta1", "Controller"): (
        "slurm-operator",
        "crds",
        "slinky.slurm.net_controllers.yaml",
    ),
    ("slinky.slurm.net/v1beta1", "NodeSet"): ("slurm-operator", "crds", "slinky.slurm.net_nodesets.yaml"),
    ("slinky.slurm.net/v1beta1", "LoginSet"): ("slurm-operator", "crds", "slinky.slurm.net_loginsets.yaml"),
    ("slinky.slurm.net/v1beta1", "RestApi"): ("slurm-operator", "crds", "slinky.slurm.net_restapis.yaml"),
    ("slinky.slurm.net/v1beta1", "Accounting"): (
        "slurm-operator",
        "crds",
        "slinky.slurm.net_accountings.yaml",
    ),
    # volcano
    ("batch.volcano.sh/v1alpha1", "Job"): ("volcano", "crds", "batch.volcano.sh_jobs.yaml"),
    ("scheduling.volcano.sh/v1beta1", "Queue"): ("volcano", "crds", "scheduling.volcano.sh_queues.yaml"),
    ("scheduling.volcano.sh/v1beta1", "PodGroup"): (
        "volcano",
        "crds",
        "scheduling.volcano.sh_podgroups.yaml",
    ),
    # kueue
    ("kueue.x-k8s.io/v1beta2", "ResourceFlavor"): ("kueue", "crds", "kueue.x-k8s.io_resourceflavors.yaml"),
    ("kueue.x-k8s.io/v1beta2", "ClusterQueue"): ("kueue", "crds", "kueue.x-k8s.io_clusterqueues.yaml"),
    ("kueue.x-k8s.io/v1beta2", "LocalQueue"): ("kueue", "crds", "kueue.x-k8s.io_localqueues.yaml"),
    ("kueue.x-k8s.io/v1beta2", "AdmissionCheck"): ("kueue", "crds", "kueue.x-k8s.io_admissionchecks.yaml"),
    ("kueue.x-k8s.io/v1beta2", "ProvisioningRequestConfig"): (
        "kueue",
        "crds",
        "kueue.x-k8s.io_provisioningrequestconfigs.yaml",
    ),
    ("kueue.x-k8s.io/v1beta2", "Topology"): ("kueue", "crds", "kueue.x-k8s.io_topologies.yaml"),
    ("kueue.x-k8s.io/v1beta2", "MultiKueueCluster"): (
        "kueue",
        "crds",
        "kueue.x-k8s.io_multikueueclusters.yaml",
    ),
    ("kueue.x-k8s.io/v1beta2", "MultiKueueConfig"): (
        "kueue",
        "crds",
        "kueue.x-k8s.io_multikueueconfigs.yaml",
    ),
    # GoogleCloudPlatform/gke-networking-api (GKE multi-networking)
    ("networking.gke.io/v1", "Network"): ("gke-networking-api", "crds", "networking.gke.io_networks.yaml"),
    ("networking.gke.io/v1", "GKENetworkParamSet"): (
        "gke-networking-api",
        "crds",
        "networking.gke.io_gkenetworkparamsets.yaml",
    ),
    # Mellanox/network-operator (the chart's crds/)
    ("mellanox.com/v1alpha1", "NicClusterPolicy"): (
        "charts",
        "network-operator-26.4.1",
        "crds",
        "mellanox.com_nicclusterpolicies.yaml",
    ),
    ("kueue.x-k8s.io/v1beta2", "WorkloadPriorityClass"): (
        "kueue",
        "crds",
        "kueue.x-k8s.io_workloadpriorityclasses.yaml",
    ),
    # kserve
    ("serving.kserve.io/v1beta1", "InferenceService"): (
        "kserve",
        "crds",
        "serving.kserve.io_inferenceservices.yaml",
    ),
    ("serving.kserve.io/v1alpha1", "ServingRuntime"): (
        "kserve",
        "crds",
        "serving.kserve.io_servingruntimes.yaml",
    ),
    ("serving.kserve.io/v1alpha2", "LLMInferenceService"): (
        "kserve",
        "crds",
        "serving.kserve.io_llminferenceservices.yaml",
    ),
    ("serving.kserve.io/v1alpha2", "LLMInferenceServiceConfig"): (
        "charts",
        "kserve-llmisvc-crd-v0.20.0",
        "templates",
        "serving.kserve.io_llminferenceserviceconfigs.yaml",
    ),
    # operator-framework/api: OLM (OpenShift's GPU Operator install)
    ("operators.coreos.com/v1alpha1", "Subscription"): (
        "operator-framework-api",
        "crds",
        "operators.coreos.com_subscriptions.yaml",
    ),
    ("operators.coreos.com/v1", "OperatorGroup"): (
        "operator-framework-api",
        "crds",
        "operators.coreos.com_operatorgroups.yaml",
    ),
    # NVIDIA GPU Operator
    ("nvidia.com/v1", "ClusterPolicy"): ("gpu-operator", "crds", "nvidia.com_clusterpolicies.yaml"),
    # Prometheus Operator v0.93.1 (the CRDs kube-prometheus-stack 88.5.3 and prometheus-operator-crds 31.0.1 ship)
    ("monitoring.coreos.com/v1", "PrometheusRule"): (
        "charts",
        "kube-prometheus-stack-88.5.3",
        "charts",
        "crds",
        "crds",
        "crd-prometheusrules.yaml",
    ),
    ("monitoring.coreos.com/v1", "Prometheus"): (
        "charts",
        "kube-prometheus-stack-88.5.3",
        "charts",
        "crds",
        "crds",
        "crd-prometheuses.yaml",
    ),
    ("monitoring.coreos.com/v1", "ServiceMonitor"): (
        "charts",
        "kube-prometheus-stack-88.5.3",
        "charts",
        "crds",
        "crds",
        "crd-servicemonitors.yaml",
    ),
    # Google Cloud Managed Service for Prometheus (GKE managed collection)
    ("monitoring.googleapis.com/v1", "ClusterPodMonitoring"): (
        "gke-managed-prometheus",
        "crds",
        "monitoring.googleapis.com_clusterpodmonitorings.yaml",
    ),
    # Azure/prometheus-collector: the AKS metrics add-on's own ServiceMonitor group
    ("azmonitoring.coreos.com/v1", "ServiceMonitor"): (
        "azure-prometheus-collector",
        "crds",
        "azmonitoring.coreos.com_servicemonitors.yaml",
    ),
    ("monitoring.googleapis.com/v1", "ClusterRules"): (
        "gke-managed-prometheus",
        "crds",
        "monitoring.googleapis.com_clusterrules.yaml",
    ),
    # Karpenter: the NodePool CRD differs per provider (label domains), so its kind is keyed ``NodePool@<provider>``
    ("karpenter.sh/v1", "NodePool@aws"): ("karpenter-aws", "crds", "karpenter.sh_nodepools.yaml"),
    ("karpenter.sh/v1", "NodePool@azure"): ("karpenter-azure", "crds", "karpenter.sh_nodepools.yaml"),
    ("karpenter.k8s.aws/v1", "EC2NodeClass"): (
        "karpenter-aws",
        "crds",
        "karpenter.k8s.aws_ec2nodeclasses.yaml",
    ),
    ("karpenter.azure.com/v1beta1", "AKSNodeClass"): (
        "karpenter-azure",
        "crds",
        "karpenter.azure.com_aksnodeclasses.yaml",
    ),
}
"""(apiVersion, kind) -> the vendored CRD (at the pinned tag); the version validated is the one in apiVersion."""

JSON_SCHEMAS: dict[tuple[str, str], tuple[str, ...]] = {
    ("cloud.google.com/v1", "ComputeClass"): ("gke-computeclass", "computeclass_v1.json"),
}
"""(apiVersion, kind) -> a vendored JSON schema of the whole object (GKE publishes ComputeClass this way)."""


@functools.cache
def crd_schema(parts: tuple[str, ...], version: str) -> tuple[str, str, dict[str, Any]]:
    """``(group/version, kind, openAPIV3Schema)`` of ``version`` in the vendored CRD at ``parts``."""
    doc = yaml.load(upstream(*parts).read_text(), Loader=_LOADER)
    for v in doc["spec"]["versions"]:
        if v["name"] == version:
            assert v["served"], f"{doc['metadata']['name']} does not serve {version}"
            return (
                f"{doc['spec']['group']}/{version}",
                doc["spec"]["names"]["kind"],
                _python_patterns(v["schema"]["openAPIV3Schema"]),
            )
    raise LookupError(f"{'/'.join(parts)} has no version {version}")


_RE2_FLAGS = re.compile(r"^\^\(\?([a-z]+)\)")
"""``^(?i)...``: RE2 (the API server's regexp engine) takes flags anywhere; Python only at the start."""


def _python_patterns(schema: Any) -> Any:
    """The schema with RE2-only spellings of ``pattern`` rewritten to what ``re`` reads with the same meaning."""
    if isinstance(schema, dict):
        out = {k: _python_patterns(v) for k, v in schema.items()}
        pattern = schema.get("pattern")
        if isinstance(pattern, str) and (m := _RE2_FLAGS.match(pattern)):
            out["pattern"] = f"(?{m.group(1)})^{pattern[m.end() :]}"
        return out
    if isinstance(schema, list):
        return [_python_patterns(v) for v in schema]
    return schema


@functools.cache
def json_schema(parts: tuple[str, ...]) -> dict[str, Any]:
    return json.loads(upstream(*parts).read_text())


# --- the checks -----------------------------------------------------------------------------------------


def with_defaults(schema: dict[str, Any], value: Any) -> Any:
    """Structural defaulting: absent properties that declare a ``default`` get it, recursively. A ``null`` for a
    property that is not ``nullable`` is pruned first, as the API server does before defaulting (charts render
    ``epilogScriptRefs: null``)."""
    if isinstance(value, dict) and "properties" in schema:
        props = schema["properties"]
        out = {k: v for k, v in value.items() if v is not None or k not in props or props[k].get("nullable")}
        for key, sub in schema["properties"].items():
            if key not in out and "default" in sub:
                out[key] = copy.deepcopy(sub["default"])
            if key in out:
                out[key] = with_defaults(sub, out[key])
        return out
    if isinstance(value, dict) and isinstance(schema.get("additionalProperties"), dict):
        return {k: with_defaults(schema["additionalProperties"], v) for k, v in value.items()}
    if isinstance(value, list) and isinstance(schema.get("items"), dict):
        return [with_defaults(schema["items"], v) for v in value]
    return value


def _path(root: str, parts: Any) -> str:
    return root + "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in parts)


def _walk(schema: dict[str, Any], value: Any, path: str) -> Iterator[str]:
    """CEL rules and unknown fields, which plain JSON schema does not see."""
    for rule in schema.get("x-kubernetes-validations", []):
        text = " ".join(rule["rule"].split())
        try:
            ok = evaluate(text, value)
        except CelUnsupported as exc:
            yield f"{path}: CEL rule not evaluated ({exc}), extend tests/support/crds.py: {text}"
            continue
        if ok is False:
            yield f"{path}: {rule.get('message') or text}"
    if isinstance(value, dict) and "properties" in schema:
        for key, sub in value.items():
            if key in schema["properties"]:
                yield from _walk(schema["properties"][key], sub, f"{path}.{key}")
            elif isinstance(schema.get("additionalProperties"), dict):
                yield from _walk(schema["additionalProperties"], sub, f"{path}.{key}")
            elif (
                not schema.get("x-kubernetes-preserve-unknown-fields")
                and "additionalProperties" not in schema
            ):
                yield f"{path}.{key}: unknown field (the API server would drop it)"
    elif isinstance(value, dict) and isinstance(schema.get("additionalProperties"), dict):
        for key, sub in value.items():
            yield from _walk(schema["additionalProperties"], sub, f"{path}.{key}")
    elif isinstance(value, list) and isinstance(schema.get("items"), dict):
        for i, item in enumerate(value):
            yield from _walk(schema["items"], item, f"{path}[{i}]")


def schema_problems(value: Any, schema: dict[str, Any], path: str = "") -> list[str]:
    """Every problem of ``value`` against ``schema`` (a whole ``openAPIV3Schema`` or a part of one)."""
    value = with_defaults(schema, value)
    found = [
        f"{_path(path, e.absolute_path) or '<root>'}: {e.message}"
        for e in jsonschema.Draft7Validator(schema).iter_errors(value)
        # OpenAPI ``nullable: true`` admits null, which JSON schema's ``type`` does not know.
        if not (e.instance is None and isinstance(e.schema, dict) and e.schema.get("nullable"))
    ]
    return found + list(_walk(schema, value, path))


def crd_problems(obj: dict[str, Any], *parts: str, version: str) -> list[str]:
    """Everything the API server would refuse or drop in ``obj`` against the vendored CRD at ``parts``."""
    api_version, kind, schema = crd_schema(tuple(parts), version)
    found = []
    if (obj.get("apiVersion"), obj.get("kind")) != (api_version, kind):
        found.append(f"apiVersion/kind {obj.get('apiVersion')}/{obj.get('kind')} is not {api_version}/{kind}")
    return found + schema_problems(obj, schema, kind)


def problems_of(obj: dict[str, Any], provider: str | None = None) -> list[str]:
    """Everything the API server would refuse or drop in ``obj``, against the CRD of its kind (empty when it fits).

    ``provider`` (``aws`` or ``azure``) picks the Karpenter NodePool CRD.
    """
    api, kind = obj.get("apiVersion", ""), obj.get("kind", "")
    if (api, kind) in JSON_SCHEMAS:
        return schema_problems(obj, json_schema(JSON_SCHEMAS[api, kind]), kind)
    key = (api, f"{kind}@{provider}" if kind == "NodePool" and provider else kind)
    assert key in CRDS, f"no vendored CRD for {key}" + (" (pass provider=)" if kind == "NodePool" else "")
    return crd_problems(obj, *CRDS[key], version=api.split("/")[-1])


# --- a small evaluator for the CEL subset CRD validation rules use --------------------------------------
#
# Enough of https://github.com/google/cel-spec for every rule in the vendored CRDs: literals, ``self``, field
# selection, ``has()``, ``! && || ?:``, comparisons, ``in``, ``+``, indexing, the macros
# ``all/exists/exists_one/filter/map`` (over lists and map keys) and the functions ``size, int, string, dyn,
# startsWith, endsWith, contains, matches, find, split, lowerAscii``. Anything else raises ``CelUnsupported``, so
# a rule this evaluator does not understand fails the test instead of passing.


class CelUnsupported(Exception):
    """The expression uses CEL this evaluator does not implement."""


class _Missing(Exception):
    """Selecting an absent field: an error in CEL (the rule author guards it with ``has``)."""


_TOKEN = re.compile(
    r"""\s*(?:
      (?P<num>\d+)
    | (?P<str>'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*")
    | (?P<op>&&|\|\||==|!=|<=|>=|[!<>?:.,()\[\]+\-])
    | (?P<id>[A-Za-z_][A-Za-z0-9_]*)
    )""",
    re.X,
)


def _tokens(text: str) -> list[tuple[str, Any]]:
    out: list[tuple[str, Any]] = []
    pos = 0
    text = text.strip()
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if not m or m.end() == pos:
            raise CelUnsupported(f"cannot tokenize at {text[pos : pos + 20]!r}")
        pos = m.end()
        kind = m.lastgroup
        value = m.group(kind or "")
        if kind == "str":
            value = bytes(value[1:-1], "utf-8").decode("unicode_escape")
        elif kind == "num":
            value = int(value)
        out.append((kind or "", value))
    out.append(("end", None))
    return out


class _Parser:
    """Recursive descent into a tiny AST of tuples; evaluation is separate."""

    def __init__(self, text: str):
        self.toks = _tokens(text)
        self.i = 0

    def peek(self, value: Any = None) -> bool:
        kind, v = self.toks[self.i]
        return v == value and kind in ("op", "id") if value is not None else False

    def take(self, value: Any = None) -> tuple[str, Any]:
        tok = self.toks[self.i]
        if value is not None and tok[1] != value:
            raise CelUnsupported(f"expected {value!r}, got {tok[1]!r}")
        self.i += 1
        return tok

    def parse(self) -> Any:
        node = self.ternary()
        if self.toks[self.i][0] != "end":
            raise CelUnsupported(f"trailing {self.toks[self.i][1]!r}")
        return node

    def ternary(self) -> Any:
        cond = self.or_()
        if self.peek("?"):
            self.take("?")
            a = self.ternary()
            self.take(":")
            b = self.ternary()
            return ("?", cond, a, b)
        return cond

    def or_(self) -> Any:
        node = self.and_()
        while self.peek("||"):
            self.take()
            node = ("||", node, self.and_())
        return node

    def and_(self) -> Any:
        node = self.rel()
        while self.peek("&&"):
            self.take()
            node = ("&&", node, self.rel())
        return node

    def rel(self) -> Any:
        node = self.add()
        while any(self.peek(o) for o in ("==", "!=", "<", "<=", ">", ">=", "in")):
            op = self.take()[1]
            node = (op, node, self.add())
        return node

    def add(self) -> Any:
        node = self.unary()
        while self.peek("+") or self.peek("-"):
            op = self.take()[1]
            node = (op, node, self.unary())
        return node

    def unary(self) -> Any:
        if self.peek("!"):
            self.take()
            return ("!", self.unary())
        if self.peek("-"):
            self.take()
            return ("neg", self.unary())
        return self.postfix()

    def postfix(self) -> Any:
        node = self.primary()
        while True:
            if self.peek("."):
                self.take()
                name = self.take()[1]
                node = ("call", name, node, self.args()) if self.peek("(") else ("sel", node, name)
            elif self.peek("["):
                self.take()
                idx = self.ternary()
                self.take("]")
                node = ("idx", node, idx)
            else:
                return node

    def args(self) -> list[Any]:
        self.take("(")
        out = []
        while not self.peek(")"):
            out.append(self.ternary())
            if self.peek(","):
                self.take()
        self.take(")")
        return out

    def primary(self) -> Any:
        kind, value = self.take()
        if kind in ("num", "str"):
            return ("lit", value)
        if kind == "op" and value == "(":
            node = self.ternary()
            self.take(")")
            return node
        if kind == "op" and value == "[":
            items = []
            while not self.peek("]"):
                items.append(self.ternary())
                if self.peek(","):
                    self.take()
            self.take("]")
            return ("list", items)
        if kind == "id":
            if value in ("true", "false"):
                return ("lit", value == "true")
            if value == "null":
                return ("lit", None)
            if self.peek("("):
                return ("fn", value, self.args())
            return ("var", value)
        raise CelUnsupported(f"unexpected {value!r}")


_MACROS = ("all", "exists", "exists_one", "filter", "map")


def _items(value: Any) -> list[Any]:
    if isinstance(value, dict):
        return list(value)
    if isinstance(value, list):
        return value
    raise CelUnsupported(f"cannot iterate {type(value).__name__}")


def _eval(node: Any, env: dict[str, Any]) -> Any:
    op = node[0]
    if op == "lit":
        return node[1]
    if op == "list":
        return [_eval(n, env) for n in node[1]]
    if op == "var":
        if node[1] not in env:
            raise CelUnsupported(f"unknown variable {node[1]}")
        return env[node[1]]
    if op == "sel":
        base = _eval(node[1], env)
        if not isinstance(base, dict) or node[2] not in base:
            raise _Missing(node[2])
        return base[node[2]]
    if op == "idx":
        base, key = _eval(node[1], env), _eval(node[2], env)
        try:
            return base[key]
        except (KeyError, IndexError, TypeError) as exc:
            raise _Missing(str(key)) from exc
    if op == "?":
        return _eval(node[2], env) if _eval(node[1], env) else _eval(node[3], env)
    if op == "||":
        return bool(_eval(node[1], env)) or bool(_eval(node[2], env))
    if op == "&&":
        return bool(_eval(node[1], env)) and bool(_eval(node[2], env))
    if op == "!":
        return not _eval(node[1], env)
    if op == "neg":
        return -_eval(node[1], env)
    if op in ("==", "!=", "<", "<=", ">", ">=", "in", "+", "-"):
        a, b = _eval(node[1], env), _eval(node[2], env)
        return {
            "==": lambda: a == b,
            "!=": lambda: a != b,
            "<": lambda: a < b,
            "<=": lambda: a <= b,
            ">": lambda: a > b,
            ">=": lambda: a >= b,
            "in": lambda: a in b,
            "+": lambda: a + b,
            "-": lambda: a - b,
        }[op]()
    if op == "fn":
        name, args = node[1], node[2]
        if name == "has":
            (arg,) = args
            if arg[0] != "sel":
                raise CelUnsupported("has() needs a field selection")
            base = _eval(arg[1], env)
            return isinstance(base, dict) and arg[2] in base
        values = [_eval(a, env) for a in args]
        if name == "size":
            return len(values[0])
        if name == "int":
            return int(values[0])
        if name == "string":
            return str(values[0])
        if name == "dyn":
            return values[0]
        raise CelUnsupported(f"function {name}()")
    if op == "call":
        name, target, args = node[1], node[2], node[3]
        if name in _MACROS:
            var = args[0]
            if var[0] != "var":
                raise CelUnsupported("macro variable")
            items = _items(_eval(target, env))
            body = args[1]
            results = [(x, _eval(body, {**env, var[1]: x})) for x in items]
            if name == "all":
                return all(r for _, r in results)
            if name == "exists":
                return any(r for _, r in results)
            if name == "exists_one":
                return sum(1 for _, r in results if r) == 1
            if name == "filter":
                return [x for x, r in results if r]
            return [r for _, r in results]
        base = _eval(target, env)
        values = [_eval(a, env) for a in args]
        if name == "size":
            return len(base)
        if name == "startsWith":
            return base.startswith(values[0])
        if name == "endsWith":
            return base.endswith(values[0])
        if name == "contains":
            return values[0] in base
        if name == "matches":
            return re.search(values[0], base) is not None
        if name == "find":
            m = re.search(values[0], base)
            return m.group(0) if m else ""
        if name == "split":
            return base.split(values[0])
        if name == "lowerAscii":
            return base.lower()
        raise CelUnsupported(f"method {name}()")
    raise CelUnsupported(op)


def evaluate(rule: str, value: Any) -> bool | None:
    """The rule on ``self = value``: True/False, or ``None`` for a transition rule (``oldSelf``)."""
    if "oldSelf" in rule:
        return None
    try:
        return bool(_eval(_Parser(rule).parse(), {"self": value}))
    except _Missing:
        return False  # a runtime error fails validation in the API server too
