"""The offline plan's runtime: recorded options, engine-style URNs, SDK surface, event loops, config."""

import asyncio
import gc
import json
import os
from pathlib import Path
from typing import Any

import pulumi
import pytest
from pulumi.runtime import mocks as pulumi_mocks

from gpu_platform.offline import run_plan, run_program
from gpu_platform.offline.errors import PlanInputError
from gpu_platform.offline.recorder import engine_urn
from gpu_platform.offline.sdk_internals import SdkMismatch, missing_sdk_surface, require_sdk
from gpu_platform.offline.stack_file import SECURE_PLACEHOLDER
from tests.conftest import REPO

FIXTURE = REPO / "tests" / "fixtures" / "existing-minimal"


class Comp(pulumi.ComponentResource):
    def __init__(self, name: str, opts: pulumi.ResourceOptions | None = None) -> None:
        super().__init__("test:index:Comp", name, None, opts)


def _nested_program() -> None:
    outer = Comp("outer")
    inner = Comp("inner", pulumi.ResourceOptions(parent=outer))
    pulumi.CustomResource(
        "test:index:Leaf",
        "leaf",
        {"size": 1, "password": pulumi.Output.secret("hunter2")},
        pulumi.ResourceOptions(
            parent=inner,
            retain_on_delete=True,
            protect=True,
            additional_secret_outputs=["password"],
            aliases=[pulumi.Alias(name="old-leaf"), pulumi.Alias(parent=pulumi.ROOT_STACK_RESOURCE)],
        ),
    )
    pulumi.CustomResource("test:index:Top", "top", {}, pulumi.ResourceOptions(retain_on_delete=False))


def test_plan_records_retain_on_delete_and_additional_secret_outputs() -> None:
    plan = run_program(_nested_program, project="proj", stack="dev")
    leaf = plan.one("test:index:Leaf")
    assert leaf.options["retainOnDelete"] is True
    assert leaf.options["protect"] is True
    assert leaf.options["additionalSecretOutputs"] == ["password"]
    assert leaf.inputs == {"size": 1, "password": "[secret]"}
    top = plan.one("test:index:Top")
    assert top.options["retainOnDelete"] is False
    assert "additionalSecretOutputs" not in top.options


def test_urns_and_parents_are_the_engines() -> None:
    """Top-level URNs leave out the root stack; grandchildren carry the whole parent chain
    (pulumi/pulumi sdk/go/common/resource/urn.go NewURN) — the stock mock monitor gets both wrong."""
    plan = run_program(_nested_program, project="proj", stack="dev")
    outer, inner = plan.one("test:index:Comp", "outer"), plan.one("test:index:Comp", "inner")
    leaf, top = plan.one("test:index:Leaf"), plan.one("test:index:Top")
    assert outer.urn == "urn:pulumi:dev::proj::test:index:Comp::outer"
    assert outer.parent == "urn:pulumi:dev::proj::pulumi:pulumi:Stack::proj-dev"
    assert inner.urn == "urn:pulumi:dev::proj::test:index:Comp$test:index:Comp::inner"
    assert inner.parent == outer.urn
    assert leaf.urn == "urn:pulumi:dev::proj::test:index:Comp$test:index:Comp$test:index:Leaf::leaf"
    assert leaf.parent == inner.urn
    assert top.urn == "urn:pulumi:dev::proj::test:index:Top::top"
    # Aliases are recorded as the URNs they stand for: same parent under the old name, and the
    # same name at the top level.
    assert leaf.options["aliases"] == [
        "urn:pulumi:dev::proj::test:index:Comp$test:index:Comp$test:index:Leaf::old-leaf",
        "urn:pulumi:dev::proj::test:index:Leaf::leaf",
    ]


def test_engine_urn_rule() -> None:
    stack = "urn:pulumi:s::p::pulumi:pulumi:Stack::p-s"
    assert engine_urn("s", "p", stack, "a:b:C", "n") == "urn:pulumi:s::p::a:b:C::n"
    assert engine_urn("s", "p", "urn:pulumi:s::p::x:y:Z$a:b:C::n", "d:e:F", "m") == (
        "urn:pulumi:s::p::x:y:Z$a:b:C$d:e:F::m"
    )
    assert engine_urn("s", "p", "", "a:b:C", "n") == "urn:pulumi:s::p::a:b:C::n"


def test_sdk_surface_the_plan_relies_on_is_present() -> None:
    assert missing_sdk_surface() == [], "Pulumi SDK changed: see gpu_platform/offline/sdk_internals.py"


def test_a_missing_sdk_attribute_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delattr(pulumi_mocks.MockMonitor, "make_urn")
    missing = missing_sdk_surface()
    assert missing == ["pulumi.runtime.mocks.MockMonitor.make_urn (engine-style URNs)"]
    with pytest.raises(SdkMismatch, match=r"MockMonitor\.make_urn"):
        require_sdk()


def test_urns_built_outside_make_urn_fail_loudly(monkeypatch: pytest.MonkeyPatch) -> None:
    """If a future SDK stopped asking make_urn, the plan must stop rather than write its URNs."""
    original = pulumi_mocks.MockMonitor.RegisterResource

    def register(self: Any, request: Any) -> Any:
        response = original(self, request)
        response.urn = "urn:pulumi:stack::project::pulumi:pulumi:Stack$" + request.type + "::" + request.name
        return response

    monkeypatch.setattr(pulumi_mocks.MockMonitor, "RegisterResource", register)
    with pytest.raises(SdkMismatch, match=r"no longer builds URNs through MockMonitor\.make_urn"):
        run_program(_nested_program, project="proj", stack="dev")


def _open_loops() -> set[int]:
    gc.collect()
    return {id(o) for o in gc.get_objects() if isinstance(o, asyncio.AbstractEventLoop) and not o.is_closed()}


def test_every_event_loop_of_a_run_is_closed() -> None:
    """Loops left open are closed by GC at interpreter exit, which printed
    ``Exception ignored in BaseEventLoop.__del__`` in about one run in twenty."""
    before = _open_loops()  # other tests' leftovers, if any
    run_plan(FIXTURE, "test")
    run_program(_nested_program)
    assert _open_loops() - before == set()


def test_a_failing_program_leaves_no_loop_and_the_next_run_is_clean() -> None:
    def boom() -> None:
        pulumi.CustomResource("test:index:Top", "top", {})
        raise RuntimeError("boom")

    before = _open_loops()
    with pytest.raises(RuntimeError, match="boom"):
        run_program(boom)
    assert _open_loops() - before == set()
    plan = run_program(_nested_program, project="proj", stack="dev")
    assert len(plan.resources) == 4


def test_plan_ignores_ambient_pulumi_config(monkeypatch: pytest.MonkeyPatch) -> None:
    baseline = run_plan(FIXTURE, "test")
    monkeypatch.setenv("PULUMI_CONFIG", "{not json")
    monkeypatch.setenv("PULUMI_CONFIG_SECRET_KEYS", "[oops")
    monkeypatch.setenv("PULUMI_CONFIG_GPU_PLATFORM_CLOUD", "gke")
    again = run_plan(FIXTURE, "test")
    assert [(r.urn, r.inputs) for r in again.resources] == [(r.urn, r.inputs) for r in baseline.resources]
    # The variables are back once the plan is done.
    assert os.environ["PULUMI_CONFIG"] == "{not json"


def test_env_config_is_used_only_when_asked(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PULUMI_CONFIG", json.dumps({"gpu-platform:kueue": json.dumps({"enabled": True})}))
    default = run_plan(FIXTURE, "test")
    used = run_plan(FIXTURE, "test", use_env_config=True)
    assert not default.by_type("gpu-platform:index:Kueue")
    assert len(used.by_type("gpu-platform:index:Kueue")) == 1


def test_env_config_secrets_are_replaced_by_the_placeholder(monkeypatch: pytest.MonkeyPatch) -> None:
    cluster = {"name": "onprem", "kubeconfig": "apiVersion: v1 # the real one"}
    monkeypatch.setenv("PULUMI_CONFIG", json.dumps({"gpu-platform:cluster": json.dumps(cluster)}))
    monkeypatch.setenv("PULUMI_CONFIG_SECRET_KEYS", json.dumps(["gpu-platform:cluster"]))
    plan = run_plan(FIXTURE, "test", use_env_config=True)
    text = json.dumps([r.inputs for r in plan.resources])
    assert "the real one" not in text
    assert plan.one("pulumi:providers:kubernetes").inputs["kubeconfig"] == "[secret]"


def test_bad_env_config_is_refused_when_used(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PULUMI_CONFIG", "{not json")
    with pytest.raises(PlanInputError, match="PULUMI_CONFIG is not valid JSON"):
        run_plan(FIXTURE, "test", use_env_config=True)
    monkeypatch.setenv("PULUMI_CONFIG", "[1, 2]")
    with pytest.raises(PlanInputError, match="PULUMI_CONFIG must be a JSON object, not list"):
        run_plan(FIXTURE, "test", use_env_config=True)


def test_a_secret_used_as_plain_text_shows_in_the_plan_as_such(tmp_path: Path) -> None:
    from gpu_platform.offline import write_plan

    def program() -> None:
        value = pulumi.Config("test").require("token")  # a secret read as plain text
        pulumi.CustomResource("kubernetes:core/v1:ConfigMap", "cm", {"data": {"token": value}})

    plan = run_program(program, config={"test:token": SECURE_PLACEHOLDER}, secret_keys=["test:token"])
    write_plan(plan, tmp_path)
    written = [p.read_text() for p in tmp_path.rglob("*") if p.is_file()]
    assert written and not any(SECURE_PLACEHOLDER in text for text in written)
    cm = next(r for r in json.loads((tmp_path / "plan.json").read_text())["resources"])
    # Not "[secret]": only an input registered as a secret Output is; pulumi up would store this in clear.
    assert cm["inputs"]["data"]["token"] == "[plain-text secret]"
