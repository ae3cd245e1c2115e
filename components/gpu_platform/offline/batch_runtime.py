"""Settings of the Python runtime for one offline plan: a batch job that only ever adds objects.

Two costs of an ordinary Pulumi program grow faster than the plan itself when nothing reads their result:

* **The cyclic garbage collector.** A plan allocates hundreds of thousands of futures, tasks and dicts
  that live until the end. CPython rescans every tracked object of the old generation each time it
  collects it, so with default thresholds the time spent collecting grows with the square of the plan
  (a 1,000-pool plan spent about a third of its time there). While a plan runs, the objects that existed
  before it (the imported SDKs) are frozen out of collection and the young generation is collected after
  30,000 allocations instead of 700; both are restored afterwards (``gc.freeze``, ``gc.set_threshold``).
  A higher threshold saves little more time and holds more garbage at the peak (``benchmarks/``).
* **Source positions.** The SDK walks the whole Python stack and ``stat``s every file on it for each
  resource (``pulumi.runtime.resource._get_stack_trace``) so the engine can point at the line that made
  it. The offline plan records no source positions, so that walk is skipped while the plan runs; when an
  SDK no longer has that function there is nothing to skip (``tests/offline/test_batch_runtime.py``
  notices it).

Both apply to the library's plans and to the benchmark's floor alike: they change how long a plan takes,
never what it records.
"""

import gc
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from pulumi.runtime import resource as sdk_resource
from pulumi.runtime.proto import source_pb2

YOUNG_GENERATION_THRESHOLD = 30000
"""Allocations between collections of the young generation while a plan runs (CPython's default: 700)."""


def _no_stack_trace() -> source_pb2.StackTrace:
    return source_pb2.StackTrace()


@contextmanager
def batch_runtime() -> Iterator[None]:
    """Collector and SDK settings for one plan; the previous ones are back on leaving."""
    thresholds = gc.get_threshold()
    stack_trace: Any = getattr(sdk_resource, "_get_stack_trace", None)
    had_stack_trace = stack_trace is not None
    gc.freeze()
    gc.set_threshold(YOUNG_GENERATION_THRESHOLD, *thresholds[1:])
    if had_stack_trace:
        setattr(sdk_resource, "_get_stack_trace", _no_stack_trace)  # noqa: B010
    try:
        yield
    finally:
        if had_stack_trace:
            setattr(sdk_resource, "_get_stack_trace", stack_trace)  # noqa: B010
        gc.set_threshold(*thresholds)
        gc.unfreeze()
