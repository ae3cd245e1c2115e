"""No input makes the plan fail with a traceback: a property-based test over every section of the stack schema
(``gpu-platform schema --keys``). Each example takes a stack file that plans and puts junk at one key of the schema
(``null``, a wrong type, a huge number or string, nested junk, an empty list or mapping), at any depth; the stack
program must then plan or refuse with ``ConfigError`` problems that each name a key. A config that is accepted is
also deployed under the offline mocks, where nothing may raise either.

Bounded and deterministic: a fixed number of examples (``EXAMPLES``), derandomized, in-process (the validation entry
point ``load_platform`` and the stack's ``deploy``; no process per example)."""

from __future__ import annotations

import copy
import math
from functools import cache
from typing import Any

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gpu_platform.errors import NAMESPACE, ConfigError
from gpu_platform.offline import run_program
from gpu_platform.stack.program import deploy
from gpu_platform.stack.schema import json_schema
from gpu_platform.stack.spec import load_platform
from tests.conftest import REPO
from tests.support.stacks import existing

EXAMPLES = 250
"""Examples per run: a few tens of seconds."""
BASES = ("stacks/Pulumi.dev.yaml", "stacks/Pulumi.prod.yaml", "stacks/Pulumi.staging.yaml")


def _stack_keys(path: str) -> dict[str, Any]:
    doc = yaml.safe_load((REPO / path).read_text())["config"]

    def plain(node: Any) -> Any:  # a secure: value is the kubeconfig text the engine hands over
        if isinstance(node, dict) and set(node) == {"secure"}:
            return "apiVersion: v1"
        if isinstance(node, dict):
            return {k: plain(v) for k, v in node.items()}
        return [plain(v) for v in node] if isinstance(node, list) else node

    return {k.split(":", 1)[1]: plain(v) for k, v in doc.items() if k.startswith(f"{NAMESPACE}:")}


@cache
def bases() -> tuple[dict[str, Any], ...]:
    """Stack files (their ``gpu-platform:`` keys) that plan: the repository's stacks and an existing cluster."""
    out = [*(_stack_keys(p) for p in BASES), existing()]
    for raw in out:
        load_platform(raw)
    return tuple(out)


@cache
def schema_paths() -> tuple[tuple[str, ...], ...]:
    """Every key of the schema, at every depth: ``("kueue", "teams", "[]", "name")``; ``[]`` is a list item, ``*``
    an entry of a mapping."""
    schema = json_schema()
    defs = schema.get("$defs", {})
    found: set[tuple[str, ...]] = set()

    def walk(node: dict[str, Any], path: tuple[str, ...], seen: frozenset[str]) -> None:
        if path:
            found.add(path)
        if "$ref" in node:
            name = node["$ref"].rsplit("/", 1)[-1]
            if name not in seen:
                walk(defs[name], path, seen | {name})
            return
        for alternative in node.get("anyOf", []) + node.get("oneOf", []) + node.get("allOf", []):
            walk(alternative, path, seen)
        for key, child in node.get("properties", {}).items():
            walk(child, (*path, key), seen)
        if isinstance(node.get("additionalProperties"), dict):
            walk(node["additionalProperties"], (*path, "*"), seen)
        if isinstance(node.get("items"), dict):
            walk(node["items"], (*path, "[]"), seen)

    walk(schema, (), frozenset())
    return tuple(sorted(found))


SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.sampled_from([0, -1, 2**31, 2**63, 10**30, 1e308, -1e308, 0.5, math.inf, math.nan]),
    st.text(max_size=20),
    st.sampled_from(["x" * 100_000, "é" * 5000, "\x00", " ", "null", "12.8", "-", "../../etc", "a" * 64]),
)
JUNK = st.recursive(
    SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.dictionaries(st.sampled_from(["name", "enabled", "x", "values", "pools"]), inner, max_size=3),
    ),
    max_leaves=6,
)


def _place(raw: dict[str, Any], path: tuple[str, ...], junk: Any) -> dict[str, Any]:
    """``raw`` with ``junk`` at ``path``, making the mappings and lists on the way (a list's first item)."""
    out = copy.deepcopy(raw)
    node: Any = out
    for part, nxt in zip(path, (*path[1:], None), strict=True):
        key: Any = 0 if part == "[]" else ("key" if part == "*" else part)
        if nxt is None:
            break
        empty: Any = [] if nxt == "[]" else {}
        if isinstance(node, list):
            if not node:
                node.append(empty)
            if not isinstance(node[0], (dict, list)):
                node[0] = empty
            node = node[0]
            continue
        child = node.get(key)
        if not isinstance(child, (dict, list)) or (nxt == "[]") != isinstance(child, list):
            node[key] = child = empty
        node = child
    last = path[-1]
    if isinstance(node, list):
        if node:
            node[0] = junk
        else:
            node.append(junk)
    else:
        node[0 if last == "[]" else ("key" if last == "*" else last)] = junk
    return out


@settings(
    max_examples=EXAMPLES,
    derandomize=True,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(data=st.data())
def test_junk_at_any_key_of_any_section_plans_or_is_refused_naming_a_key(data: st.DataObject) -> None:
    base = data.draw(st.sampled_from(bases()), label="base")
    path = data.draw(st.sampled_from(schema_paths()), label="path")
    junk = data.draw(JUNK, label="junk")
    raw = _place(base, path, junk)
    try:
        spec = load_platform(raw)
    except ConfigError as err:
        assert err.problems, "a refusal lists its problems"
        for key, reason in err.problems:
            assert key.startswith(f"{NAMESPACE}:") and len(key) > len(NAMESPACE) + 1, key
            assert reason.strip(), key
        return
    run_program(lambda: deploy(spec))  # an accepted config deploys under the mocks, with no exception


def test_the_schema_paths_cover_every_section() -> None:
    sections = {path[0] for path in schema_paths()}
    assert sections == set(json_schema()["properties"])
    assert ("kueue", "teams", "[]", "name") in schema_paths()
    assert ("gpuPools", "[]", "labels", "*") in schema_paths()
