"""Pulumi mock runtime that records every registration with its options, as ``pulumi preview`` sees it.

The stock ``MockMonitor`` hides parents, dependencies and resource options from ``Mocks``; this
monitor captures them from the ``RegisterResource`` request itself (see PULUMI_NOTES.md). Only the
public mock API is used here (``set_mocks(monitor=...)``, ``reset_options``, ``runtime.test``);
what still depends on SDK internals lives in :mod:`gpu_platform.offline.sdk_internals`.
"""

import asyncio
import contextlib
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pulumi
from pulumi.runtime import mocks as pulumi_mocks

from gpu_platform.cloud_facts import PROFILES
from gpu_platform.offline.batch_runtime import batch_runtime
from gpu_platform.offline.sdk_internals import (
    ThreadLoops,
    check_urn,
    deserialize,
    exported_values,
    is_secret,
    require_sdk,
)

SECRET_PLACEHOLDER = "[secret]"
ROOT_STACK_TYPE = "pulumi:pulumi:Stack"


@dataclass
class Registration:
    urn: str
    type: str
    name: str
    parent: str
    provider: str
    custom: bool
    depends_on: list[str]
    inputs: dict[str, Any]
    options: dict[str, Any]
    outputs: dict[str, Any] = field(default_factory=dict)


def _plain(value: Any) -> Any:
    """Inputs as sent to the engine, with secrets masked and resource references as URNs."""
    if isinstance(value, dict):
        if is_secret(value):
            return SECRET_PLACEHOLDER
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, pulumi.Resource):
        return getattr(value, "_urn_str", None) or f"<{type(value).__name__}>"
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def engine_urn(stack: str, project: str, parent: str, type_: str, name: str) -> str:
    """A URN as the engine makes it (``resource.NewURN`` in pulumi/pulumi ``sdk/go/common/resource/urn.go``):
    the parent's whole qualified type, ``$``, the type; the root stack's type is left out."""
    if parent:
        parent_type = parent.split("::")[2]
        if parent_type != ROOT_STACK_TYPE:
            type_ = f"{parent_type}${type_}"
    return f"urn:pulumi:{stack}::{project}::{type_}::{name}"


def alias_urn(alias: Any, stack: str, project: str, parent: str, type_: str, name: str) -> str:
    """The URN an ``Alias`` stands for: empty spec fields mean "as this resource" (engine semantics)."""
    if alias.WhichOneof("alias") == "urn":
        return str(alias.urn)
    spec = alias.spec
    alias_parent = "" if spec.noParent else (spec.parentUrn or parent)
    return engine_urn(
        spec.stack or stack, spec.project or project, alias_parent, spec.type or type_, spec.name or name
    )


class PlanMocks(pulumi_mocks.Mocks):
    """Returns each resource's inputs as its state, plus the outputs later code reads."""

    def new_resource(self, args: pulumi_mocks.MockResourceArgs) -> tuple[str, dict]:
        state = dict(args.inputs)
        state.setdefault("name", args.inputs.get("name", args.name))
        fake_id = f"{args.name}-id"
        t = args.typ
        if t == "kubernetes:helm.sh/v3:Release":
            state.setdefault("status", {"status": "deployed", "namespace": args.inputs.get("namespace", "")})
        elif t == "pulumi:pulumi:StackReference":
            # Another stack's outputs cannot be read offline: the conventional kubeconfig output is a
            # placeholder, as secure: config values are.
            state.update(
                outputs={"kubeconfig": "offline-placeholder-kubeconfig"}, secretOutputNames=["kubeconfig"]
            )
        for profile in PROFILES.values():
            state.update(profile.resource_types.mock_state(t, args.name, args.inputs))
        return fake_id, state

    def call(self, args: pulumi_mocks.MockCallArgs) -> tuple[dict, list]:
        tok = args.token
        for profile in PROFILES.values():
            result = profile.resource_types.mock_call(tok, args.args)
            if result is not None:
                return result, []
        return dict(args.args), []


class RecordingMonitor(pulumi_mocks.MockMonitor):
    """A mock monitor that keeps every RegisterResource request in order, with engine-style URNs."""

    def __init__(self, mocks: pulumi_mocks.Mocks, project: str, stack: str):
        super().__init__(mocks)
        self.project = project
        self.stack = stack
        self.registrations: list[Registration] = []
        self.thread_loops = ThreadLoops()
        self._lock = threading.Lock()

    def make_urn(self, parent: str, type_: str, name: str) -> str:
        return engine_urn(self.stack, self.project, parent, type_, name)

    def Invoke(self, request: Any) -> Any:
        self.thread_loops.ensure()
        return super().Invoke(request)

    def ReadResource(self, request: Any) -> Any:
        self.thread_loops.ensure()
        return super().ReadResource(request)

    def RegisterResource(self, request: Any) -> Any:
        self.thread_loops.ensure()
        response = super().RegisterResource(request)
        if request.type == ROOT_STACK_TYPE:
            return response
        check_urn(response.urn, self.make_urn(request.parent, request.type, request.name))
        aliases = [
            alias_urn(a, self.stack, self.project, request.parent, request.type, request.name)
            for a in request.aliases
        ] + list(request.aliasURNs)
        options: dict[str, Any] = {
            "protect": bool(request.protect),
            "retainOnDelete": bool(request.retainOnDelete),
            "ignoreChanges": sorted(request.ignoreChanges),
            "deleteBeforeReplace": bool(request.deleteBeforeReplace),
            "replaceOnChanges": sorted(request.replaceOnChanges),
            "aliases": sorted(set(aliases)),
        }
        if request.additionalSecretOutputs:
            options["additionalSecretOutputs"] = sorted(request.additionalSecretOutputs)
        registration = Registration(
            urn=response.urn,
            type=request.type,
            name=request.name,
            parent=request.parent,
            provider=request.provider,
            custom=bool(request.custom),
            depends_on=sorted(set(request.dependencies)),
            inputs=_plain(deserialize(request.object)),
            options=options,
        )
        with self._lock:
            self.registrations.append(registration)
        return response


class MockRuntime:
    """A fresh mocked engine for one plan: its own event loop, settings, root stack and config.

    Use as a context manager; :meth:`run` runs a program and waits until every registration and
    output has settled; leaving closes every event loop the run used (see ``sdk_internals``) and restores
    the interpreter settings a plan runs with (``batch_runtime``).
    """

    def __init__(self, project: str, stack: str, config: dict[str, str], secret_keys: list[str]):
        self.project, self.stack = project, stack
        self.config, self.secret_keys = config, secret_keys
        self.monitor = RecordingMonitor(PlanMocks(), project, stack)
        self.loop: asyncio.AbstractEventLoop | None = None
        self.loop_errors: list[dict[str, Any]] = []
        self.outputs: dict[str, Any] = {}
        """What the last program run exported as plain data (``pulumi.export``), by output name."""
        self._settings = contextlib.ExitStack()

    def __enter__(self) -> "MockRuntime":
        require_sdk()
        self._settings.enter_context(batch_runtime())
        self.loop = asyncio.new_event_loop()
        # Errors of tasks nobody awaited (after the program failed) are reported by the plan itself,
        # not printed by asyncio when the task is collected.
        self.loop.set_exception_handler(lambda _loop, context: self.loop_errors.append(context))
        asyncio.set_event_loop(self.loop)
        pulumi.runtime.reset_options(project=self.project, stack=self.stack, preview=False)
        pulumi.runtime.set_all_config(self.config, self.secret_keys)
        pulumi.runtime.set_mocks(
            self.monitor.mocks, project=self.project, stack=self.stack, preview=False, monitor=self.monitor
        )
        return self

    def run(self, program: Callable[[], Any]) -> list[Registration]:
        def body() -> None:
            program()  # its return value (runpy's globals) is not an Output to wait for

        pulumi.runtime.test(body)()
        self.outputs = exported_values()
        return sorted(self.monitor.registrations, key=lambda r: r.urn)

    def __exit__(self, *exc: object) -> None:
        loop = self.loop
        if loop is None:
            self._settings.close()
            return
        try:
            pending = [t for t in asyncio.all_tasks(loop) if not t.done()]
            for task in pending:
                task.cancel()
            if pending:
                loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
            loop.run_until_complete(loop.shutdown_asyncgens())
            loop.run_until_complete(loop.shutdown_default_executor())
        finally:
            loop.close()
            self.monitor.thread_loops.close()
            asyncio.set_event_loop(None)
            self._settings.close()


# The step-by-step API older tests use; each start closes the runtime before it.
_current: MockRuntime | None = None


def start_mock_runtime(
    project: str, stack: str, config: dict[str, str], secret_keys: list[str]
) -> RecordingMonitor:
    """Reset the Pulumi runtime to a fresh mocked engine with this config; return the recorder."""
    global _current
    close_mock_runtime()
    _current = MockRuntime(project, stack, config, secret_keys).__enter__()
    return _current.monitor


def run_under_mocks(program: Callable[[], Any]) -> None:
    """Run ``program()`` in the runtime :func:`start_mock_runtime` made and wait until it settled."""
    if _current is None:
        raise RuntimeError("start_mock_runtime() first")
    _current.run(program)


def close_mock_runtime() -> None:
    """Close the runtime :func:`start_mock_runtime` made (its event loops included), if any."""
    global _current
    if _current is not None:
        runtime, _current = _current, None
        runtime.__exit__(None, None, None)
