"""Validate a custom resource the way the API server would, against a vendored CRD (or JSON schema).

Four layers, each able to fail on its own (tests/test_karpenter.py and tests/test_nap_compute_class.py have the negative cases; tests/crd_validation.py is the workload tests' variant):
structural defaults applied first (the API server defaults before validating), ``jsonschema`` on the
``openAPIV3Schema`` (types, enums, patterns, bounds), fields the schema does not know (the API server would
prune them silently), and every ``x-kubernetes-validations`` CEL rule on the path of the object, evaluated
by ``tests.cel`` (a rule it cannot evaluate is an error, never a pass).
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema
import yaml

from tests.cel import CelUnsupported, evaluate
from tests.conftest import upstream

CRDS: dict[tuple[str, str], tuple[str, ...]] = {
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
"""(apiVersion, kind) -> vendored CRD; the Karpenter NodePool CRD differs per provider (label domains)."""


@cache
def crd_schema(parts: tuple[str, ...], version: str) -> dict[str, Any]:
    doc = yaml.safe_load(upstream(*parts).read_text())
    for v in doc["spec"]["versions"]:
        if v["name"] == version:
            assert v["served"], f"{parts[-1]} does not serve {version}"
            return v["schema"]["openAPIV3Schema"]
    raise LookupError(f"{parts[-1]} has no version {version}")


@cache
def compute_class_schema() -> dict[str, Any]:
    return json.loads(upstream("gke-computeclass", "computeclass_v1.json").read_text())


def schema_for(obj: dict[str, Any], provider: str | None = None) -> dict[str, Any]:
    api, kind = obj["apiVersion"], obj["kind"]
    if (api, kind) == ("cloud.google.com/v1", "ComputeClass"):
        return compute_class_schema()
    key = (api, f"{kind}@{provider}" if kind == "NodePool" else kind)
    if key not in CRDS:
        raise LookupError(f"no vendored CRD for {key}")
    return crd_schema(CRDS[key], api.split("/")[1])


def with_defaults(schema: dict[str, Any], value: Any) -> Any:
    """Structural defaulting: absent properties that declare a ``default`` get it, recursively."""
    if isinstance(value, dict) and "properties" in schema:
        out = dict(value)
        for key, sub in schema["properties"].items():
            if key not in out and "default" in sub:
                out[key] = copy.deepcopy(sub["default"])
            if key in out:
                out[key] = with_defaults(sub, out[key])
        return out
    if isinstance(value, list) and isinstance(schema.get("items"), dict):
        return [with_defaults(schema["items"], v) for v in value]
    return value


def _walk(schema: dict[str, Any], value: Any, path: str) -> Iterator[str]:
    for rule in schema.get("x-kubernetes-validations", []):
        text = " ".join(rule["rule"].split())
        try:
            ok = evaluate(text, value)
        except CelUnsupported as exc:
            yield f"{path}: CEL rule not evaluated ({exc}): {text}"
            continue
        if ok is False:
            yield f"{path}: {rule.get('message') or text}"
    if isinstance(value, dict) and "properties" in schema:
        for key, sub in value.items():
            if key in schema["properties"]:
                yield from _walk(schema["properties"][key], sub, f"{path}.{key}")
            elif (
                not schema.get("x-kubernetes-preserve-unknown-fields")
                and "additionalProperties" not in schema
            ):
                yield f"{path}.{key}: unknown field (the API server would drop it)"
            elif isinstance(schema.get("additionalProperties"), dict):
                yield from _walk(schema["additionalProperties"], sub, f"{path}.{key}")
    elif isinstance(value, dict) and isinstance(schema.get("additionalProperties"), dict):
        for key, sub in value.items():
            yield from _walk(schema["additionalProperties"], sub, f"{path}.{key}")
    elif isinstance(value, list) and isinstance(schema.get("items"), dict):
        for i, item in enumerate(value):
            yield from _walk(schema["items"], item, f"{path}[{i}]")


def validation_errors(obj: dict[str, Any], provider: str | None = None) -> list[str]:
    """Every problem the API server would find in ``obj`` (empty when it would accept it)."""
    schema = schema_for(obj, provider)
    value = with_defaults(schema, obj)
    out = [
        f"{'.'.join(map(str, e.absolute_path)) or '<root>'}: {e.message}"
        for e in jsonschema.Draft7Validator(schema).iter_errors(value)
    ]
    return out + list(_walk(schema, value, ""))


def path_of(*parts: str) -> Path:
    return upstream(*parts)
