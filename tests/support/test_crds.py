"""The CRD/CEL helper itself: each layer rejects a bad object on its own, so a green CRD test means something."""

from __future__ import annotations

from typing import Any

import pytest

from tests.support.crds import CRDS, CelUnsupported, crd_problems, evaluate, problems_of, schema_problems
from tests.support.kueue import resource_flavor

QUEUE = {
    "apiVersion": "scheduling.volcano.sh/v1beta1",
    "kind": "Queue",
    "metadata": {"name": "q"},
    "spec": {"weight": 1, "capability": {"nvidia.com/gpu": 8}},
}


def test_a_good_object_has_no_problems() -> None:
    assert problems_of(QUEUE) == []
    assert (
        problems_of(resource_flavor(tolerations=[{"key": "k", "operator": "Exists", "effect": "NoSchedule"}]))
        == []
    )


def test_a_wrong_type_is_rejected() -> None:
    bad = {**QUEUE, "spec": {**QUEUE["spec"], "weight": "heavy"}}
    assert problems_of(bad) == ["Queue.spec.weight: 'heavy' is not of type 'integer'"]


def test_a_cel_rule_violation_is_rejected() -> None:
    bad = resource_flavor(
        tolerations=[{"key": "k", "operator": "Exists", "value": "v", "effect": "NoSchedule"}]
    )
    assert problems_of(bad) == [
        "ResourceFlavor.spec.tolerations: a value must be empty when 'operator' is 'Exists'"
    ]


def test_an_unknown_field_is_rejected() -> None:
    bad = {**QUEUE, "spec": {**QUEUE["spec"], "wieght": 1}}
    assert problems_of(bad) == ["Queue.spec.wieght: unknown field (the API server would drop it)"]


def test_a_wrong_api_version_or_kind_is_rejected() -> None:
    found = crd_problems(
        {**QUEUE, "apiVersion": "scheduling.volcano.sh/v1"},
        *CRDS[QUEUE["apiVersion"], "Queue"],
        version="v1beta1",
    )
    assert found == [
        "apiVersion/kind scheduling.volcano.sh/v1/Queue is not scheduling.volcano.sh/v1beta1/Queue"
    ]
    with pytest.raises(AssertionError, match="no vendored CRD"):
        problems_of({**QUEUE, "kind": "Queues"})
    with pytest.raises(AssertionError, match="pass provider="):
        problems_of({"apiVersion": "karpenter.sh/v1", "kind": "NodePool"})


SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"mode": {"type": "string", "default": "fast"}, "n": {"type": "integer"}},
    "x-kubernetes-validations": [
        {"rule": "self.mode == 'slow'", "message": "mode must be slow"},
        {"rule": "self.n >= 1", "message": "n must be at least 1"},
        {"rule": "self == oldSelf", "message": "immutable"},
    ],
}


def test_defaults_apply_before_the_rules_and_a_missing_field_fails_its_rule() -> None:
    # ``mode`` is defaulted to "fast", so the first rule sees it; ``n`` is absent, which is a CEL error (a
    # failure, as in the API server); the transition rule is not evaluated on create.
    assert schema_problems({}, SCHEMA, "X") == ["X: mode must be slow", "X: n must be at least 1"]
    assert schema_problems({"mode": "slow", "n": 2}, SCHEMA, "X") == []


def test_a_null_for_a_known_field_is_pruned_before_defaulting() -> None:
    # The API server drops ``null`` for a non-nullable field before defaulting: the default then applies and
    # the rules see it. A null under an unknown key is still an unknown field.
    assert schema_problems({"mode": None, "n": 2}, SCHEMA, "X") == ["X: mode must be slow"]
    assert schema_problems({"mode": "slow", "n": 2, "extra": None}, SCHEMA, "X") == [
        "X.extra: unknown field (the API server would drop it)"
    ]


def test_a_nullable_field_admits_null_and_nothing_else_of_another_type() -> None:
    nullable: dict[str, Any] = {"type": "object", "properties": {"refs": {"type": "array", "nullable": True}}}
    assert schema_problems({"refs": None}, nullable, "X") == []
    assert schema_problems({"refs": "a"}, nullable, "X") == ["X.refs: 'a' is not of type 'array'"]


def test_a_rule_the_evaluator_cannot_read_is_a_problem_not_a_pass() -> None:
    schema = {"type": "object", "x-kubernetes-validations": [{"rule": "self.quantity().isGreaterThan(0)"}]}
    (found,) = schema_problems({}, schema, "X")
    assert found.startswith("X: CEL rule not evaluated")
    with pytest.raises(CelUnsupported):
        evaluate("isSorted(self)", [1, 2])


@pytest.mark.parametrize(
    ("rule", "value", "expected"),
    [
        ("self.all(x, x.effect in ['NoSchedule', 'NoExecute'])", [{"effect": "NoSchedule"}], True),
        ("self.all(x, x.effect in ['NoSchedule', 'NoExecute'])", [{"effect": "Sometimes"}], False),
        ("[has(self.a), has(self.b)].filter(x, x).size() <= 1", {"a": 1, "b": 2}, False),
        ("!has(self.a) || self.a.startsWith('x-')", {"a": "x-y"}, True),
        ("self.exists_one(k, k.endsWith('/role'))", {"a/role": "", "b/role": ""}, False),
        ("self.matches('^[a-z]+$')", "Abc", False),
        ("size(self) <= 63 ? true : false", "a" * 64, False),
        ("self != oldSelf", 1, None),
    ],
)
def test_the_cel_evaluator(rule: str, value: Any, expected: bool | None) -> None:
    assert evaluate(rule, value) is expected
