"""Physical names of resources a cloud cannot change in place.

A node pool named after what the cloud fixes at creation gets a new name when one of those settings
changes, so Pulumi creates the replacement first and deletes the old pool after (create-before-delete):
never a gap in capacity, and never two resources with one name (as pulumi-eks and terraform-aws-eks do
with generated names).
"""

from __future__ import annotations

import hashlib
import json
from typing import Any


def digest(*fixed: Any) -> str:
    """Six hex characters of ``fixed`` (stable across runs and machines)."""
    return hashlib.sha256(json.dumps(fixed, sort_keys=True, default=str).encode()).hexdigest()[:6]
