"""Go durations (``time.ParseDuration``)."""

from __future__ import annotations

from fractions import Fraction

import pytest

from gpu_platform.formats.durations import go_duration_seconds


@pytest.mark.parametrize(
    ("text", "seconds"),
    [
        ("10m", 600),
        ("1h30m", 5400),
        ("1.5h", 5400),
        ("300ms", Fraction(3, 10)),
        ("0", 0),
        ("-2s", -2),
        (".5s", 0.5),
    ],
)
def test_go_durations(text: str, seconds: float) -> None:
    assert go_duration_seconds(text) == seconds


@pytest.mark.parametrize("text", ["", "10", "1d", "h", "1h 30m", "1.h.m", "+"])
def test_what_go_refuses(text: str) -> None:
    assert go_duration_seconds(text) is None
