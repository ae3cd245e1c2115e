"""Bad component arguments name the component and spell keys for Python; one setting given in both spellings
is said to be given twice, not "unknown key 'max_nodes'; did you mean 'max_nodes'?"."""

from __future__ import annotations

import inspect
from typing import Any

import pulumi
import pytest

import gpu_platform
from gpu_platform import ArgumentsError, GkeGpuNodePool, GpuOperator
from gpu_platform.offline import run_program

POOL = {"name": "l4", "machine_type": "g2-standard-8", "max_nodes": 3}


def problems_of(build: Any) -> ArgumentsError:
    with pytest.raises(ArgumentsError) as err:
        run_program(build)
    return err.value


def test_both_spellings_of_one_setting_are_one_mistake_said_plainly() -> None:
    err = problems_of(
        lambda: GkeGpuNodePool("p", {"cluster": "c", "location": "x", "pool": {**POOL, "maxNodes": 3}})  # type: ignore[typeddict-unknown-key]
    )
    [(path, reason)] = err.problems
    assert path in ("pool.max_nodes", "pool.maxNodes")
    assert reason in (
        "'max_nodes' and 'maxNodes' are the same setting given twice; keep one",
        "'maxNodes' and 'max_nodes' are the same setting given twice; keep one",
    )
    assert "did you mean" not in str(err)


def test_errors_name_the_component_and_keep_property_paths_relative() -> None:
    err = problems_of(
        lambda: GkeGpuNodePool("p", {"cluster": "c", "location": "x", "pool": {**POOL, "max_nodez": 1}})
    )  # type: ignore[typeddict-unknown-key]
    assert (
        str(err) == "GkeGpuNodePool 'p': pool.max_nodez: unknown key 'max_nodez'; did you mean 'max_nodes'?"
    )
    assert err.component == "GkeGpuNodePool 'p'"
    # Pulumi's engine prints property paths against the resource's own inputs.
    assert err.problems == [("pool.max_nodez", "unknown key 'max_nodez'; did you mean 'max_nodes'?")]
    assert str(err.args[0]).startswith("invalid arguments for GkeGpuNodePool 'p':")


def test_each_component_names_itself() -> None:
    err = problems_of(lambda: GpuOperator("op", {"cloud": "gke", "pools": [POOL], "sharring": {}}))  # type: ignore[typeddict-unknown-key]
    assert str(err).startswith("GpuOperator 'op': sharring: unknown key 'sharring'"), str(err)


@pytest.mark.parametrize("name", list(gpu_platform._COMPONENTS))
def test_components_document_themselves_for_hover_and_help(name: str) -> None:
    """Editors show the constructor's docstring; without one they fall back to Pulumi's base class's."""
    cls = getattr(gpu_platform, name)
    assert cls.__doc__ and cls.__doc__ != pulumi.ComponentResource.__doc__
    assert "__init__" in cls.__dict__
    own = inspect.unwrap(cls.__init__).__doc__
    assert own and own != pulumi.ComponentResource.__init__.__doc__ and "args" in own
    assert cls.__init__.__doc__ == own  # the error-naming wrapper keeps it, so help() shows it
    assert inspect.get_annotations(cls.__init__)["args"].__name__ == f"{name}Args"
