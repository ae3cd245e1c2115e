"""``kueue.waitForPodsReady.timeout`` is a ``metav1.Duration`` in Kueue's configuration: every form Go's
``time.ParseDuration`` reads plans (``1h30m``, ``1.5h``, ``90s``) and reaches the configuration as given; what Go
refuses, or a wait of zero, is refused naming the key."""

from __future__ import annotations

from typing import Any

import pytest

from gpu_platform.stack import load_platform
from tests.support.refusals import config_problems
from tests.support.stacks import existing

KEY = "gpu-platform:kueue.waitForPodsReady.timeout"


def _stack(timeout: Any) -> dict[str, Any]:
    raw = existing()
    return {**raw, "kueue": {**raw["kueue"], "waitForPodsReady": {"timeout": timeout}}}


@pytest.mark.parametrize("timeout", ["10m", "1h30m", "1.5h", "90s", "2h45m30s", "45m0s"])
def test_every_go_duration_plans(timeout: str) -> None:
    spec = load_platform(_stack(timeout))
    assert spec.kueue is not None and spec.kueue.wait_for_pods_ready.timeout == timeout


@pytest.mark.parametrize("timeout", ["10", "1d", "0s", "-5m", "m", "1h 30m", "2562048h"])
def test_what_go_refuses_or_a_zero_wait_is_refused(timeout: str) -> None:
    assert KEY in config_problems(_stack(timeout))
