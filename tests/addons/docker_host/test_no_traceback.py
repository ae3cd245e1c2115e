"""No argument makes ``GpuDockerHost`` fail with a traceback (or run away with memory): junk at any key of its
arguments, its cloud sections and its Compose services is planned or refused with ``ArgumentsError`` problems
that each name an argument. Property-based, bounded and deterministic."""

from __future__ import annotations

import copy
import math
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gpu_platform.addons.docker_host.settings import GpuDockerHostArgs
from gpu_platform.args.validate import hints, plain_part
from gpu_platform.errors import ArgumentsError
from tests.support.docker_host import args
from tests.support.plans import plan_docker_host

CLOUDS = ("gke", "eks", "aks")


def _keys(tp: Any, path: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    """Every key of a TypedDict, nested ones and a list's first item (``0``) included."""
    out: list[tuple[str, ...]] = []
    for key, declared in hints(tp).items():
        out.append((*path, key))
        inner = plain_part(declared)
        item = getattr(inner, "__args__", (None,))[0]
        if hasattr(inner, "__required_keys__"):
            out += _keys(inner, (*path, key))
        elif hasattr(item, "__required_keys__"):
            out += _keys(item, (*path, key, "0"))
    return out


KEYS = [*_keys(GpuDockerHostArgs), ("gce", "zone"), ("ec2", "subnet_id"), ("azure", "ssh_public_key")]
JUNK = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.sampled_from([2**70, 1e308, math.nan, 0.5, "x" * 100_000, "", " ", [], {}, [None], {"x": None}]),
    st.text(max_size=12),
    st.lists(st.text(max_size=8), max_size=3),
    st.dictionaries(st.text(max_size=5), st.text(max_size=5), max_size=3),
)


def _place(base: dict[str, Any], path: tuple[str, ...], junk: Any) -> dict[str, Any]:
    out = copy.deepcopy(base)
    node: Any = out
    for part in path[:-1]:
        key: Any = int(part) if part.isdigit() else part
        if isinstance(node, list):
            node = node[0] if node else node
            continue
        if not isinstance(node.get(key), (dict, list)):
            node[key] = [{}] if path[path.index(part) + 1].isdigit() else {}
        node = node[key]
    last = path[-1]
    if isinstance(node, list):
        node[:1] = [junk]
    else:
        node[last] = junk
    return out


@settings(
    max_examples=200,
    derandomize=True,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(cloud=st.sampled_from(CLOUDS), path=st.sampled_from(KEYS), junk=JUNK)
def test_junk_at_any_argument_plans_or_is_refused_naming_it(
    cloud: str, path: tuple[str, ...], junk: Any
) -> None:
    try:
        plan_docker_host(_place(args(cloud), path, junk))
    except ArgumentsError as err:
        assert err.problems and all(key and reason.strip() for key, reason in err.problems)


@pytest.mark.parametrize("count", [2**70, 10**9])
def test_a_huge_gpu_count_is_refused_without_counting_its_devices(count: int) -> None:
    with pytest.raises(ArgumentsError, match="gpu_count"):
        plan_docker_host(args("gke", gpu_count=count))
