"""Validate a custom resource against a vendored upstream CRD the way the API server would.

Three layers, each able to fail on its own (``tests/test_workload_crds.py`` shows each failing):
- ``jsonschema`` against the version's ``openAPIV3Schema`` (types, enums, required, min/max);
- unknown fields, which the API server would prune silently (a typo such as ``minAvaliable``);
- every ``x-kubernetes-validations`` (CEL) rule on a path the object reaches, evaluated by hand here; a rule this
  module does not know is reported, so a new upstream rule cannot slip past.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterator
from typing import Any

import jsonschema
import yaml

from tests.conftest import upstream

_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


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
                v["schema"]["openAPIV3Schema"],
            )
    raise LookupError(f"{'/'.join(parts)} has no version {version}")


@functools.cache
def _validator(parts: tuple[str, ...], version: str) -> Any:
    return jsonschema.Draft7Validator(crd_schema(parts, version)[2])


def _size(value: Any) -> int:
    return len(value) if value is not None else 0


# CEL rules met on the paths the tested objects reach, written out in Python. Keyed by the rule text with
# whitespace collapsed.
_DNS1035 = re.compile(r"^[a-z]([-a-z0-9]*[a-z0-9])?$")
_URI = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://.+$")
_MPOLICIES = ("torch", "mpi", "jax", "xgboost", "flux")


def _has(value: Any, key: str) -> bool:
    return isinstance(value, dict) and key in value


# Every CEL rule of the CRDs in ``CRDS``, written out in Python, keyed by the rule text with whitespace collapsed.
CEL: dict[str, Callable[[Any], bool]] = {
    "self == oldSelf": lambda _: True,  # immutability: only checked on update
    # kubeflow/trainer@v2.3.0
    "self.metadata.name.matches('^[a-z]([-a-z0-9]*[a-z0-9])?$')": lambda s: bool(
        _DNS1035.match(s.get("metadata", {}).get("name", ""))
    ),
    "size(self.metadata.name) <= 63": lambda s: len(s.get("metadata", {}).get("name", "")) <= 63,
    "self == '' || self.matches('^[A-Za-z][A-Za-z0-9+.-]*://.+$')": lambda s: s == "" or bool(_URI.match(s)),
    "self in ['trainer.kubeflow.org/trainjob-controller', 'kueue.x-k8s.io/multikueue']": lambda s: (
        s in ("trainer.kubeflow.org/trainjob-controller", "kueue.x-k8s.io/multikueue")
    ),
    "has(self.lastUpdatedTime)": lambda s: _has(s, "lastUpdatedTime"),
    "[has(self.torch), has(self.mpi), has(self.jax), has(self.xgboost),has(self.flux)].filter(x, x).size() <= 1": (
        lambda s: sum(_has(s, k) for k in _MPOLICIES) <= 1
    ),
    "self >= 1": lambda s: s >= 1,
    "!self.exists(c, c == 'node')": lambda s: "node" not in s,
    # kubernetes-sigs/jobset@v0.12.0 (also embedded in Trainer's runtimes)
    "!(has(self.startupPolicy) && self.startupPolicy.startupPolicyOrder == 'InOrder' && "
    "self.replicatedJobs.exists(x, has(x.dependsOn)))": lambda s: (
        not (
            _has(s, "startupPolicy")
            and s["startupPolicy"].get("startupPolicyOrder") == "InOrder"
            and any(_has(x, "dependsOn") for x in s.get("replicatedJobs", []))
        )
    ),
    "self.templates.all(t, !has(t.metadata.namespace) || size(t.metadata.namespace) == 0)": lambda s: all(
        not t.get("metadata", {}).get("namespace") for t in s.get("templates", [])
    ),
    # ray-project/kuberay@v1.7.0
    "self in ['ray.io/kuberay-operator', 'kueue.x-k8s.io/multikueue']": lambda s: (
        s in ("ray.io/kuberay-operator", "kueue.x-k8s.io/multikueue")
    ),
    "!((has(self.onSuccess) || has(self.onFailure)) && has(self.deletionRules))": lambda s: (
        not ((_has(s, "onSuccess") or _has(s, "onFailure")) and _has(s, "deletionRules"))
    ),
    "((has(self.onSuccess) && has(self.onFailure)) || has(self.deletionRules))": lambda s: (
        (_has(s, "onSuccess") and _has(s, "onFailure")) or _has(s, "deletionRules")
    ),
    "!(has(self.jobStatus) && has(self.jobDeploymentStatus))": lambda s: (
        not (_has(s, "jobStatus") and _has(s, "jobDeploymentStatus"))
    ),
    "has(self.jobStatus) || has(self.jobDeploymentStatus)": lambda s: (
        _has(s, "jobStatus") or _has(s, "jobDeploymentStatus")
    ),
}


def _norm(rule: str) -> str:
    return " ".join(rule.split())


def _walk(schema: dict[str, Any], value: Any, path: str, unknown_rules: set[str]) -> Iterator[str]:
    for rule in schema.get("x-kubernetes-validations", []):
        text = _norm(rule["rule"])
        if "oldSelf" in text and text != "self == oldSelf":
            continue  # transition rule: only on update
        check = CEL.get(text)
        if check is None:
            unknown_rules.add(text)
            yield f"{path}: CEL rule not evaluated by this test, add it to tests/crd_validation.py: {text}"
        elif not check(value):
            yield f"{path}: {rule.get('message', text)}"
    if isinstance(value, dict) and "properties" in schema:
        for key, sub in value.items():
            if key not in schema["properties"]:
                if (
                    not schema.get("x-kubernetes-preserve-unknown-fields")
                    and "additionalProperties" not in schema
                ):
                    yield f"{path}.{key}: unknown field (the API server would drop it)"
                continue
            yield from _walk(schema["properties"][key], sub, f"{path}.{key}", unknown_rules)
    elif isinstance(value, dict) and isinstance(schema.get("additionalProperties"), dict):
        for key, sub in value.items():
            yield from _walk(schema["additionalProperties"], sub, f"{path}.{key}", unknown_rules)
    elif isinstance(value, list) and "items" in schema:
        for i, sub in enumerate(value):
            yield from _walk(schema["items"], sub, f"{path}[{i}]", unknown_rules)


def crd_problems(obj: dict[str, Any], *parts: str, version: str) -> list[str]:
    """Everything the API server would refuse or drop in ``obj`` (empty when it fits the CRD)."""
    api_version, kind, schema = crd_schema(tuple(parts), version)
    found = []
    if (obj.get("apiVersion"), obj.get("kind")) != (api_version, kind):
        found.append(f"apiVersion/kind {obj.get('apiVersion')}/{obj.get('kind')} is not {api_version}/{kind}")
    validator = _validator(tuple(parts), version)
    found += [
        f"{'.'.join(map(str, e.absolute_path)) or kind}: {e.message}" for e in validator.iter_errors(obj)
    ]
    found += list(_walk(schema, obj, kind, set()))
    return found


CRDS: dict[tuple[str, str], tuple[tuple[str, ...], str]] = {
    ("trainer.kubeflow.org/v1alpha1", "TrainJob"): (
        ("kubeflow-trainer", "crds", "trainer.kubeflow.org_trainjobs.yaml"),
        "v1alpha1",
    ),
    ("trainer.kubeflow.org/v1alpha1", "ClusterTrainingRuntime"): (
        ("kubeflow-trainer", "crds", "trainer.kubeflow.org_clustertrainingruntimes.yaml"),
        "v1alpha1",
    ),
    ("ray.io/v1", "RayCluster"): (("kuberay", "crds", "ray.io_rayclusters.yaml"), "v1"),
    ("ray.io/v1", "RayJob"): (("kuberay", "crds", "ray.io_rayjobs.yaml"), "v1"),
    ("leaderworkerset.x-k8s.io/v1", "LeaderWorkerSet"): (
        ("lws", "crds", "leaderworkerset.x-k8s.io_leaderworkersets.yaml"),
        "v1",
    ),
    ("jobset.x-k8s.io/v1alpha2", "JobSet"): (("jobset", "crds", "jobset.x-k8s.io_jobsets.yaml"), "v1alpha2"),
    ("batch.volcano.sh/v1alpha1", "Job"): (("volcano", "crds", "batch.volcano.sh_jobs.yaml"), "v1alpha1"),
    ("scheduling.volcano.sh/v1beta1", "Queue"): (
        ("volcano", "crds", "scheduling.volcano.sh_queues.yaml"),
        "v1beta1",
    ),
    ("scheduling.volcano.sh/v1beta1", "PodGroup"): (
        ("volcano", "crds", "scheduling.volcano.sh_podgroups.yaml"),
        "v1beta1",
    ),
}
"""Custom resource kind -> its vendored CRD (at the pinned tag) and the version the library writes."""


def problems_of(obj: dict[str, Any]) -> list[str]:
    """``crd_problems`` against the CRD of ``obj``'s kind (``CRDS``)."""
    key = (obj.get("apiVersion", ""), obj.get("kind", ""))
    assert key in CRDS, f"no vendored CRD for {key}"
    parts, version = CRDS[key]
    return crd_problems(obj, *parts, version=version)
