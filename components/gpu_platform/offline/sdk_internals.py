"""Everything the offline plan needs from the Pulumi SDK beyond its documented mock API, in one place.

The plan runs a project's program under ``pulumi.runtime.set_mocks`` (with a ``MockMonitor``
subclass passed as ``monitor=``), ``pulumi.runtime.reset_options`` and ``pulumi.runtime.test``: all
public. What remains below leans on how the SDK is *built*, and an SDK upgrade may change it:

* The mock monitor's ``RegisterResource``/``Invoke``/``ReadResource`` run on the executor's worker
  threads and each creates an event loop for its thread when it has none (private
  ``sync_await._ensure_event_loop``). Nobody closes those loops; they are collected at interpreter
  exit, when their self-pipe may already be closed, and about one run in twenty printed
  ``Exception ignored in BaseEventLoop.__del__ ... Invalid file descriptor: -1``.
  :class:`ThreadLoops` gives each worker thread a loop the plan owns and closes.
* Secret inputs arrive as the wire protocol's secret envelope; ``rpc.is_rpc_secret`` recognises it
  and ``rpc.deserialize_properties`` turns the request's ``Struct`` into Python values (``rpc`` is a
  public submodule, but these helpers are not documented).
* The ``RegisterResourceRequest`` fields the plan records (``retainOnDelete``, ``aliases`` ...).
* ``MockMonitor.make_urn`` builds URNs unlike the engine (it keeps ``pulumi:pulumi:Stack`` in
  top-level URNs and only the parent's last type for grandchildren), so the recorder overrides it;
  :func:`check_urn` turns a silent change in how the SDK calls it into a loud error.
* Under mocks the root stack registers its outputs when ``set_mocks`` makes it, before the program runs, so
  ``pulumi.export`` only adds to the stack's ``outputs`` dict (``pulumi/runtime/stack.py``, ``Stack.output``);
  :func:`exported_values` reads the plain values back from there.
* ``gpu_platform.addons.kueue.component`` reads ``pulumi_kubernetes._utilities.get_version()``;
  :func:`pulumi_kubernetes_version` is the public equivalent it can switch to.

:func:`missing_sdk_surface` lists what is gone; ``tests/offline/test_runner.py`` fails on it naming
the attribute, and :func:`require_sdk` stops a plan with that message before anything runs.
"""

import asyncio
import importlib
import importlib.metadata
import inspect
import threading
from typing import Any

from pulumi.runtime import rpc

# (module, attribute path, why the plan needs it)
SDK_SURFACE: list[tuple[str, str, str]] = [
    ("pulumi.runtime", "set_mocks", "runs the program against the recording monitor"),
    ("pulumi.runtime", "reset_options", "fresh settings and root stack for every plan"),
    ("pulumi.runtime", "set_all_config", "stack config for the program"),
    ("pulumi.runtime", "test", "runs the program and waits for every RPC and output"),
    ("pulumi.runtime.mocks", "Mocks", "base of PlanMocks"),
    ("pulumi.runtime.mocks", "MockMonitor.RegisterResource", "recorded registrations"),
    ("pulumi.runtime.mocks", "MockMonitor.ReadResource", "own event loop per worker thread"),
    ("pulumi.runtime.mocks", "MockMonitor.Invoke", "own event loop per worker thread"),
    ("pulumi.runtime.mocks", "MockMonitor.make_urn", "engine-style URNs"),
    ("pulumi.runtime.rpc", "deserialize_properties", "inputs as sent to the engine"),
    ("pulumi.runtime.rpc", "is_rpc_secret", "secret inputs masked in plan.json"),
    ("pulumi.runtime.proto.resource_pb2", "RegisterResourceRequest", "resource options"),
    ("pulumi_kubernetes._utilities", "get_version", "used by gpu_platform.addons.kueue.component"),
    ("pulumi.runtime", "get_root_resource", "the root stack, whose outputs hold what the program exported"),
    ("pulumi.runtime.stack", "Stack.output", "pulumi.export adds to the root stack's outputs dict"),
]

# Fields of RegisterResourceRequest the recorder reads.
REQUEST_FIELDS = (
    "type",
    "name",
    "parent",
    "custom",
    "object",
    "provider",
    "dependencies",
    "protect",
    "ignoreChanges",
    "deleteBeforeReplace",
    "replaceOnChanges",
    "retainOnDelete",
    "additionalSecretOutputs",
    "aliases",
    "aliasURNs",
)


class SdkMismatch(RuntimeError):
    """The installed Pulumi SDK no longer offers something the offline plan relies on."""


def _resolve(module: str, path: str) -> Any:
    obj: Any = importlib.import_module(module)
    for part in path.split("."):
        obj = getattr(obj, part)
    return obj


def missing_sdk_surface() -> list[str]:
    """``module.attr (why)`` for each piece of the SDK the plan needs that is not there."""
    missing = []
    for module, path, why in SDK_SURFACE:
        try:
            _resolve(module, path)
        except (ImportError, AttributeError):
            missing.append(f"{module}.{path} ({why})")
    try:
        from pulumi.runtime.proto import resource_pb2

        fields = {f.name for f in resource_pb2.RegisterResourceRequest.DESCRIPTOR.fields}
        missing += [f"RegisterResourceRequest.{f}" for f in REQUEST_FIELDS if f not in fields]
    except (ImportError, AttributeError):
        pass
    try:
        from pulumi.runtime import set_mocks

        if "monitor" not in inspect.signature(set_mocks).parameters:
            missing.append("pulumi.runtime.set_mocks(monitor=...) (the recording monitor)")
    except (ImportError, ValueError):
        pass
    return missing


def require_sdk() -> None:
    missing = missing_sdk_surface()
    if missing:
        raise SdkMismatch(
            "the installed Pulumi SDK lacks what the offline plan relies on: "
            + "; ".join(missing)
            + " (see gpu_platform/offline/sdk_internals.py)"
        )


def deserialize(struct: Any) -> Any:
    """A request's ``Struct`` as Python values, secrets kept as their envelope, unknowns kept."""
    return rpc.deserialize_properties(struct, keep_unknowns=True, keep_internal=True)


def is_secret(value: Any) -> bool:
    return bool(rpc.is_rpc_secret(value))


def check_urn(got: str, expected: str) -> None:
    """The monitor must have answered with the engine-style URN the recorder computed."""
    if got != expected:
        raise SdkMismatch(
            f"mock monitor answered URN {got!r}, expected {expected!r}: the SDK no longer builds URNs "
            "through MockMonitor.make_urn (see gpu_platform/offline/sdk_internals.py)"
        )


class ThreadLoops:
    """An event loop per thread that calls the mock monitor, created, tracked and closed by the plan."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._loops: list[asyncio.AbstractEventLoop] = []
        self._main = threading.main_thread()

    def ensure(self) -> None:
        """Give the calling worker thread a loop of ours before the SDK makes an untracked one."""
        if threading.current_thread() is self._main:
            return
        try:
            loop = asyncio.get_event_loop_policy().get_event_loop()
        except RuntimeError:
            loop = None
        if loop is not None and not loop.is_closed():
            with self._lock:
                if loop in self._loops:
                    return
        loop = asyncio.new_event_loop()
        asyncio.set_event_loop(loop)
        with self._lock:
            self._loops.append(loop)

    def close(self) -> None:
        with self._lock:
            loops, self._loops = self._loops, []
        for loop in loops:
            if not loop.is_running() and not loop.is_closed():
                loop.close()


def _plain_data(value: Any) -> bool:
    if isinstance(value, dict):
        return all(isinstance(k, str) and _plain_data(v) for k, v in value.items())
    if isinstance(value, (list, tuple)):
        return all(_plain_data(v) for v in value)
    return value is None or isinstance(value, (str, int, float, bool))


def exported_values() -> dict[str, Any]:
    """What the program exported (``pulumi.export``) as plain data, by output name; an Output, whose value a
    plan does not wait for, is left out."""
    from pulumi.runtime import get_root_resource

    outputs = getattr(get_root_resource(), "outputs", None)
    if not isinstance(outputs, dict):
        return {}
    return {str(name): value for name, value in outputs.items() if _plain_data(value)}


def pulumi_kubernetes_version() -> str:
    """The installed pulumi-kubernetes version: what ``pulumi_kubernetes._utilities.get_version()``
    returns for a release (that one converts pre-release suffixes to semver)."""
    return importlib.metadata.version("pulumi-kubernetes")
