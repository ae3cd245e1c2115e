"""What every part of a profile names the cloud by: its ``cloud:`` value, how messages say it, its SDK extra and
its provider's resource types.

A part of ``CloudProfile`` (``gpu_platform.cloud_facts.profile``); a cloud's profile overrides what differs."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import ModuleType
from typing import TYPE_CHECKING, Any, ClassVar

from gpu_platform.diff_rule import DiffRule
from gpu_platform.errors import Problems
from gpu_platform.sdk import require

if TYPE_CHECKING:
    from gpu_platform.sdk import Extra


PoolProblems = Callable[[int], Problems]
"""Where the problems of pool ``i`` are filed: ``gpuPools[i]``, ``pools[i]`` or ``pool``."""


def _no_state(type_: str, name: str, inputs: Mapping[str, Any]) -> dict[str, Any]:
    return {}


def _no_call(token: str, args: Mapping[str, Any]) -> dict[str, Any] | None:
    return None


@dataclass(frozen=True)
class ResourceTypes:
    """The cloud provider's resource types as the offline plan and ``gpu-platform diff`` must know them."""

    force_new: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    """Properties the provider cannot change in place, per type token (a change replaces the resource)."""
    in_place_if: Mapping[tuple[str, str], Callable[[Any, Any], bool]] = field(default_factory=dict)
    """(type, path) -> predicate(old, new): a force-new change that is made in place when it holds."""
    stateful: frozenset[str] = frozenset()
    """Types whose removal or replacement loses state (clusters, networks, node pools and their pods)."""
    node_pools: frozenset[str] = frozenset()
    mock_state: Callable[[str, str, Mapping[str, Any]], dict[str, Any]] = _no_state
    """Outputs the provider adds to a resource that later code reads (offline plans)."""
    mock_call: Callable[[str, Mapping[str, Any]], dict[str, Any] | None] = _no_call
    """The result of a provider function (``None``: not this cloud's)."""
    diff_rules: tuple[DiffRule, ...] = ()
    """What ``gpu-platform diff`` flags in these resources beyond their replacement: what recreates a pool's nodes,
    repartitions their GPUs, restarts or replaces a VM (``gpu_platform.diff_rule``; docs/day2.md lists them)."""


class ProfileBase:
    """The cloud itself: its names, its SDK and its provider's resource types."""

    name: ClassVar[str]
    """The ``cloud:`` value of the stack file."""
    display: ClassVar[str]
    """How messages name it (``GKE``)."""
    article: ClassVar[str] = "a"
    """``a``/``an`` before ``display``."""
    extra: ClassVar[Extra | None] = None
    """The package extra bringing this cloud's Pulumi SDK (``None``: no SDK needed)."""
    resource_types: ClassVar[ResourceTypes] = ResourceTypes()
    creates_nodes: ClassVar[bool] = True
    """The library creates this cloud's clusters and pools (not a cluster made elsewhere)."""

    @classmethod
    def sdk(cls, by: object) -> ModuleType:
        """Import the cloud's Pulumi SDK; a missing extra is one line naming it (``MissingExtraError``)."""
        if cls.extra is None:
            raise TypeError(f"{cls.name} needs no cloud SDK")
        return require(cls.extra, by)
