"""The stand-in for a secret the offline plan hands the program in place of a decrypted ``secure:`` value.

A check of a value's format skips it (``is_stand_in``): the real value is checked when ``pulumi up`` runs the same
program with the decrypted config; the plan itself only has to keep the value secret wherever it flows.
"""

from __future__ import annotations

SECRET_STAND_IN = "offline-placeholder-secret"


def is_stand_in(value: object) -> bool:
    """``value`` is the offline plan's stand-in for a secret (nothing about its format can be checked)."""
    return value == SECRET_STAND_IN
