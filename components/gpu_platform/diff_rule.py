"""What ``gpu-platform diff`` flags, declared next to the resources it is about.

Each add-on declares, in its folder's ``diff_rules.py`` (listed by its ``addons.registry`` entry), and each cloud,
in its facts (``ResourceTypes.diff_rules``), which changes of the resources it creates cost running work or data: a
``DiffRule`` names the resource (a type token, a Kubernetes kind in any version, or a Helm chart), what sets it off
(the resource going, fields changing, or a value read from its inputs changing), the effect and why. The diff gate
(``offline.diff``) knows no resource of its own, and ``scripts/gen_day2.py`` writes the list in docs/day2.md from
the same rules. Rules are data: this module imports nothing of the library.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

Effect = Literal[
    "deletes data",
    "removes nodes",
    "replaces nodes",
    "reloads driver",
    "reconfigures GPUs",
    "ends running jobs",
    "restarts workloads",
    "strands queued work",
    "blocks the update",
]
EFFECTS: dict[Effect, str] = {
    "deletes data": "state is lost: data, history or objects that nothing recreates (DESTRUCTIVE)",
    "removes nodes": "nodes are terminated, with the pods on them",
    "replaces nodes": "nodes or VMs are replaced or recreated, their pods evicted",
    "reloads driver": "a kernel driver is reloaded or removed on the nodes, their GPU or RDMA work evicted",
    "reconfigures GPUs": "GPUs are repartitioned (MIG), their pods evicted (MIG layout changes)",
    "ends running jobs": "running jobs are killed with the pods they run in",
    "restarts workloads": "the services of a host or node restart",
    "strands queued work": "queued work is never admitted or scheduled",
    "blocks the update": "`pulumi up` fails at the resource until it is unblocked by hand (BLOCKED)",
}
"""Every effect, with what it means for running work; the order the docs list them in."""

Inputs = Mapping[str, Any]

SHARING_CHANGE = (
    "the pool's GPUs are advertised anew (another device plugin, or its config, on every node: time-slicing, MPS, "
    "isolated fractions or whole GPUs are different resources or counts): running pods keep their GPUs, but their "
    "replacements and every queued pod asking for the old resource never schedule there, and Kueue's flavor "
    "changes under its admitted workloads"
)
"""What a change of a pool's ``gpu-platform.io/sharing`` label (``scheduling.SHARING_LABEL``) does on its nodes; the clouds' diff rules on node pools say it."""


@dataclass(frozen=True)
class DiffRule:
    """One change of one kind of resource that costs running work or data."""

    target: str
    """What it applies to: a resource type token (``gcp:compute/instance:Instance``), a Kubernetes kind in any API
    version (``kueue.x-k8s.io/ResourceFlavor``, ``core/ConfigMap``: see ``kind``) or the Helm releases of a chart
    (``chart:gpu-operator``: see ``chart``)."""
    effect: Effect
    reason: str
    """What happens and why, with its source; the report prints it after the fields that set the rule off."""
    paths: tuple[str, ...] = ()
    """Input property paths (the engine's syntax, as in ``replaceOnChanges``: ``a.b``, ``a["k.x"]``, ``a[*]``):
    the rule is set off when a value under one of them changes."""
    value: Callable[[Inputs], Any] | None = None
    """Or a value read from the inputs (the node driver a release installs): set off when it changes."""
    field: str = ""
    """How the report names what changed: ``value``'s name, or a name for a single path (``nvidia.com/mig.config``)."""
    gone: bool = False
    """Or set off when the resource goes: removed, or replaced (and not kept with ``retainOnDelete``)."""
    when: Callable[[Inputs], bool] | None = None
    """Only for resources whose inputs before the change satisfy it (a ResourceFlavor with a topology)."""
    when_text: str = ""
    """``when`` in words, for the docs ("when the flavor has a topologyName")."""

    def __post_init__(self) -> None:
        triggers = [bool(self.paths), self.value is not None, self.gone]
        if sum(triggers) != 1:
            raise ValueError(f"{self.target}: a rule has exactly one of paths, value or gone")
        if self.value is not None and not self.field:
            raise ValueError(f"{self.target}: a value rule names its field")
        if (self.when is None) != (not self.when_text):
            raise ValueError(f"{self.target}: when and when_text go together")


def kind(group: str, name: str) -> str:
    """The target for a Kubernetes kind in any API version: ``kind("kueue.x-k8s.io", "ResourceFlavor")``; the core
    group is ``core``."""
    return f"{group}/{name}"


def chart(name: str) -> str:
    """The target for every Helm release of a chart, by the chart's last path segment (``releases.chart_name``)."""
    return f"chart:{name}"


def gone(
    target: str,
    effect: Effect,
    reason: str,
    when: Callable[[Inputs], bool] | None = None,
    when_text: str = "",
) -> DiffRule:
    """Set off when the resource goes (removed, or replaced without ``retainOnDelete``)."""
    return DiffRule(target, effect, reason, gone=True, when=when, when_text=when_text)


def changes(
    target: str,
    effect: Effect,
    reason: str,
    *paths: str,
    field: str = "",
    when: Callable[[Inputs], bool] | None = None,
    when_text: str = "",
) -> DiffRule:
    """Set off when a value under one of ``paths`` changes."""
    return DiffRule(target, effect, reason, paths=paths, field=field, when=when, when_text=when_text)


def derived(target: str, effect: Effect, reason: str, field: str, value: Callable[[Inputs], Any]) -> DiffRule:
    """Set off when ``value(inputs)`` changes; the report names it ``field``."""
    return DiffRule(target, effect, reason, value=value, field=field)
