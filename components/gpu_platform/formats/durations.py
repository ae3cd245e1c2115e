"""Go durations (``time.ParseDuration``), the grammar of every ``metav1.Duration`` field a Kubernetes controller
reads from its configuration: a sequence of decimal numbers, each with an optional fraction and a unit (``ns``,
``us``/``µs``, ``ms``, ``s``, ``m``, ``h``), such as ``300ms``, ``1.5h`` or ``2h45m``; ``0`` alone needs no unit.
"""

from __future__ import annotations

import re
from fractions import Fraction

UNITS = {
    "ns": Fraction(1, 10**9),
    "us": Fraction(1, 10**6),
    "µs": Fraction(1, 10**6),
    "μs": Fraction(1, 10**6),
    "ms": Fraction(1, 1000),
    "s": Fraction(1),
    "m": Fraction(60),
    "h": Fraction(3600),
}
_PART = re.compile(r"(?P<number>[0-9]*(?:\.[0-9]*)?)(?P<unit>ns|us|µs|μs|ms|s|m|h)")
MAX_SECONDS = Fraction(2**63 - 1, 10**9)
"""A Go ``time.Duration`` is int64 nanoseconds (about 292 years)."""


def go_duration_seconds(text: str) -> Fraction | None:
    """The length of ``text`` in seconds as Go reads its syntax, or ``None`` when it is no duration (a longer one
    than ``MAX_SECONDS`` parses here: Go refuses it as out of range, which callers say apart)."""
    body = text[1:] if text[:1] in "+-" else text
    sign = -1 if text[:1] == "-" else 1
    if body == "0":
        return Fraction(0)
    if not body:
        return None
    total, at = Fraction(0), 0
    while at < len(body):
        match = _PART.match(body, at)
        if match is None or match["number"] in ("", "."):
            return None
        total += Fraction(match["number"]) * UNITS[match["unit"]]
        at = match.end()
    return total * sign
