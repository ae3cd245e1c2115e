"""The harness applies with strict field validation: an object with a field its schema does not declare, or a
field given twice, is refused with the API server's own message instead of stored without it.

An apply alone refuses a misspelt field of a built-in kind ("field not declared in schema"), but lets a custom
resource's field under an object schema with no properties through and prunes it, and only warns of a duplicate
field unless asked for ``fieldValidation=Strict``; the harness's strict dry-run create (``check_fields``) and
its apply's ``fieldValidation=Strict`` (``apply_path``) close both gaps."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from tests.support.control_plane import control_plane_script, wait_until

GROUP = "field-validation.gpu-platform.io"
CRD = {
    "apiVersion": "apiextensions.k8s.io/v1",
    "kind": "CustomResourceDefinition",
    "metadata": {"name": f"probes.{GROUP}"},
    "spec": {
        "group": GROUP,
        "scope": "Namespaced",
        "names": {"plural": "probes", "singular": "probe", "kind": "Probe"},
        "versions": [
            {
                "name": "v1",
                "served": True,
                "storage": True,
                "schema": {
                    "openAPIV3Schema": {
                        "type": "object",
                        "properties": {
                            "spec": {
                                "type": "object",
                                "properties": {
                                    "size": {"type": "string"},
                                    # As controller-gen writes a pod template's metadata without
                                    # crd:generateEmbeddedObjectMeta: an object with no properties.
                                    "template": {
                                        "type": "object",
                                        "properties": {"metadata": {"type": "object"}},
                                    },
                                    "settings": {
                                        "type": "object",
                                        "x-kubernetes-preserve-unknown-fields": True,
                                    },
                                },
                            }
                        },
                    }
                },
            }
        ],
    },
}


@pytest.fixture(scope="module")
def cp(control_plane: Any) -> Iterator[Any]:
    control_plane.apply([CRD])
    control_plane.wait_established([CRD])
    yield control_plane
    control_plane.delete(CRD)


def probe(name: str, spec: dict[str, Any]) -> dict[str, Any]:
    return {
        "apiVersion": f"{GROUP}/v1",
        "kind": "Probe",
        "metadata": {"name": name, "namespace": "default"},
        "spec": spec,
    }


def config_map(name: str, **fields: Any) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": name, "namespace": "default"},
        **fields,
    }


def test_a_misspelt_field_is_refused_as_unknown(cp: Any) -> None:
    obj = config_map("misspelt", dataa={"key": "value"})
    refused = cp.try_apply([obj])
    assert [(r.kind, r.name, r.status) for r in refused] == [("ConfigMap", "default/misspelt", 400)]
    assert 'strict decoding error: unknown field "dataa"' in refused[0].message, refused[0].message
    assert _absent(cp, obj)


def test_a_field_the_custom_resources_schema_would_prune_is_refused_as_unknown(cp: Any) -> None:
    """Without the strict check the apply succeeds and the stored object has ``metadata: {}``: the labels gone."""
    obj = probe("pruned", {"size": "1", "template": {"metadata": {"labels": {"team": "vision"}}}})
    refused = cp.try_apply([obj])
    assert [(r.kind, r.name, r.status) for r in refused] == [("Probe", "default/pruned", 400)]
    assert 'unknown field "spec.template.metadata.labels"' in refused[0].message, refused[0].message
    assert _absent(cp, obj)


def test_a_duplicate_field_in_the_applied_document_is_refused(cp: Any) -> None:
    """The document as a client sends it; without ``fieldValidation=Strict`` the server keeps the last
    ``data`` and only warns."""
    obj = config_map("duplicate")
    text = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: duplicate\n  namespace: default\n"
    text += "data:\n  first: a\ndata:\n  second: b\n"
    path = cp.apply_path(obj)
    with pytest.raises(control_plane_script.ApiError) as refused:
        cp.request("PATCH", path, text.encode(), content_type=control_plane_script.APPLY_PATCH)
    assert refused.value.status == 400
    assert refused.value.message.startswith("error strict decoding YAML"), refused.value.message
    assert 'key "data" already set in map' in refused.value.message, refused.value.message
    assert _absent(cp, obj)


def test_fields_under_preserve_unknown_fields_are_stored_as_given(cp: Any) -> None:
    """``x-kubernetes-preserve-unknown-fields`` keeps what it does not describe: no refusal, no warning, nothing
    dropped."""
    settings = {"anything": {"nested": ["a", "b"]}, "count": 3}
    obj = probe("preserved", {"size": "1", "settings": settings})
    try:
        assert [str(r) for r in cp.try_apply([obj])] == []
        stored = cp.get(cp.resource_path(obj))
        assert stored["spec"] == {"size": "1", "settings": settings}, json.dumps(stored["spec"])
    finally:
        cp.delete(obj)


def test_an_object_of_declared_fields_is_applied(cp: Any) -> None:
    obj = config_map("declared", data={"key": "value"})
    try:
        assert [str(r) for r in cp.try_apply([obj])] == []
        assert cp.get(cp.resource_path(obj))["data"] == {"key": "value"}
    finally:
        cp.delete(obj)


def _absent(cp: Any, obj: dict[str, Any]) -> bool:
    """Nothing was stored under ``obj``'s name."""

    def gone() -> bool:
        try:
            cp.get(cp.resource_path(obj))
        except control_plane_script.ApiError as e:
            return e.status == 404
        return False

    return bool(wait_until(f"{obj['kind']} {obj['metadata']['name']} absent", gone, 5))
