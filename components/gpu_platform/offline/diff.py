"""``gpu-platform diff``: what changes between two offline plans, and which changes destroy state.

Resources are matched by URN, and through ``options.aliases`` (a resource registered under a new
name or parent that lists its old URN as an alias is a rename, as the engine treats it). For a
matched pair, inputs are compared with ``options.ignoreChanges`` left out; the pair is *replaced*
when a property changed that the provider cannot update in place: the resource's own
``options.replaceOnChanges`` or a known force-new property of its type (:data:`FORCE_NEW`).

*Destructive*: removing or replacing a stateful kind (:func:`is_stateful`), unless the old
resource has ``retainOnDelete`` (then it is reported as retained: Pulumi forgets it and leaves it
running), and whatever a declared rule says deletes data. The rest comes from the rules each add-on and
cloud declares next to its resources (``gpu_platform.diff_rule``, collected in ``offline.diff_rules``): *MIG
layout changes* (GPUs repartitioned), *disruptive* changes that keep state but evict, end or strand GPU work
(a driver reload, nodes replaced or removed, jobs ended, queues gone), and *blocked* ones that ``pulumi up``
fails at (Kueue's or Volcano's admission, Azure's API), as it does at what ``protect`` guards. Every flagged
change makes ``gpu-platform diff`` exit 3, and shows the old -> new values that set it off in full.
"""

import difflib
import json
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from gpu_platform.cloud_facts import PROFILES
from gpu_platform.offline.diff_rules import HELM_RELEASE, Finding, changed_findings, gone_findings
from gpu_platform.offline.errors import PlanInputError
from gpu_platform.offline.paths import (
    MISSING,
    Named,
    changed_paths,
    changed_values,
    format_path,
    parse_path,
    values_at,
    without,
)
from gpu_platform.releases import chart_name as addon_chart_name
from gpu_platform.releases import crd_charts

__all__ = [
    "HELM_RELEASE",
    "Named",
    "changed_paths",
    "changed_values",
    "format_path",
    "parse_path",
    "values_at",
    "without",
]

# Properties a provider cannot change in place, per type token; a change replaces the resource.
# Paths use the engine's property-path syntax (as in replaceOnChanges): `a.b`, `a[0]`, `a[*]`, `a["k.x"]`.
FORCE_NEW: dict[str, tuple[str, ...]] = {
    **{t: paths for p in PROFILES.values() for t, paths in p.resource_types.force_new.items()},
    # pulumi-kubernetes provider/pkg/provider/helm_release.go: a new release name or namespace
    # replaces the release (pulumi-kubernetes#2532).
    HELM_RELEASE: ("name", "namespace"),
}

# pulumi-kubernetes provider/pkg/provider/diff.go: metadataForceNewProperties (every kind) and the
# per-kind `forceNew` table, for the kinds this library creates or may create.
KUBERNETES_FORCE_NEW = ("metadata.name", "metadata.namespace")
KUBERNETES_KIND_FORCE_NEW: dict[str, tuple[str, ...]] = {
    "core/v1:ConfigMap": ("data", "binaryData"),
    "core/v1:Secret": ("type", "data", "stringData"),
    "core/v1:PersistentVolumeClaim": ("spec",),
    "core/v1:Service": ("spec.clusterIP", "spec.type"),
    "core/v1:ResourceQuota": ("spec.scopes",),
    "apps/v1:Deployment": ("spec.selector",),
    "apps/v1:StatefulSet": (
        "spec.podManagementPolicy",
        "spec.revisionHistoryLimit",
        "spec.selector",
        "spec.serviceName",
        "spec.volumeClaimTemplates",
    ),
    "batch/v1:Job": ("spec.selector", "spec.template"),
    "rbac.authorization.k8s.io/v1:RoleBinding": ("roleRef",),
    "rbac.authorization.k8s.io/v1:ClusterRoleBinding": ("roleRef",),
    "storage.k8s.io/v1:StorageClass": ("parameters", "provisioner"),
}


# (type, path) -> predicate(old, new): the change is made in place when it holds.
_IN_PLACE_IF: dict[tuple[str, str], Callable[[Any, Any], bool]] = {
    key: rule for p in PROFILES.values() for key, rule in p.resource_types.in_place_if.items()
}


def force_new_paths(type_: str) -> tuple[str, ...]:
    if type_ in FORCE_NEW:
        return FORCE_NEW[type_]
    if type_.startswith("kubernetes:") and not type_.startswith("kubernetes:helm.sh/"):
        kind = type_.split(":", 1)[1]
        return KUBERNETES_FORCE_NEW + KUBERNETES_KIND_FORCE_NEW.get(kind, ())
    return ()


# Removing or replacing these loses state: the cluster and its network, nodes (and the pods on them),
# everything in a namespace, custom resources with their CRD, volumes.
STATEFUL_TYPES = frozenset(
    {
        *(t for p in PROFILES.values() for t in p.resource_types.stateful),
        "kubernetes:core/v1:Namespace",
        "kubernetes:core/v1:PersistentVolumeClaim",
        "kubernetes:apiextensions.k8s.io/v1:CustomResourceDefinition",
        "kubernetes:apiextensions.k8s.io/v1beta1:CustomResourceDefinition",
    }
)
CRD_CHARTS = crd_charts()
"""Charts whose releases hold CRDs (as templates, or cert-manager's): removing the release removes the data
(``addons``: each add-on's ``release_holds_crds``)."""


def chart_name(inputs: dict[str, Any]) -> str:
    chart = inputs.get("chart")
    return addon_chart_name(chart) if isinstance(chart, str) else ""


def keeps_crds(inputs: dict[str, Any]) -> bool:
    """The release's CRDs outlive it: ``crds.keep`` puts ``helm.sh/resource-policy: keep`` on each CRD
    (cert-manager v1.21.1 templates/crd-*.yaml), so uninstalling the release deletes no custom resource."""
    crds = (inputs.get("values") or {}).get("crds")
    return isinstance(crds, dict) and crds.get("keep") is True


def is_stateful(res: dict[str, Any]) -> bool:
    if res["type"] == HELM_RELEASE:
        inputs = res.get("inputs") or {}
        chart = chart_name(inputs)
        return ("crd" in chart or chart in CRD_CHARTS) and not keeps_crds(inputs)
    return res["type"] in STATEFUL_TYPES


# ------------------------------------------------------------------------------------------------
# Values as the report shows them
# ------------------------------------------------------------------------------------------------


def show_value(value: Any, width: int | None = 48) -> str:
    """A value for ``old -> new``: JSON, shortened to ``width`` (``None``: in full); ``(none)`` where the property
    is absent; a multi-line string as its line count (the report prints the lines that change below)."""
    if value is MISSING or value is None:
        return "(none)"
    if isinstance(value, str) and "\n" in value:
        return f"<{len(value.splitlines())} lines>"
    text = value if isinstance(value, str) else json.dumps(value, sort_keys=True)
    return text if width is None or len(text) <= width else text[: width - 3] + "..."


def _multiline(value: Any) -> bool:
    return isinstance(value, str) and "\n" in value


def line_diff(old: Any, new: Any) -> list[str]:
    """The lines a multi-line value loses and gains (unified, three lines of context), every changed line whole."""
    before = old.splitlines() if isinstance(old, str) else []
    after = new.splitlines() if isinstance(new, str) else []
    return list(difflib.unified_diff(before, after, "old", "new", lineterm=""))[2:]


def field_text(name: str, old: Any, new: Any) -> str:
    return f"{name}: {show_value(old, None)} -> {show_value(new, None)}"


# ------------------------------------------------------------------------------------------------
# Diff
# ------------------------------------------------------------------------------------------------


@dataclass
class Change:
    action: str  # added | removed | changed | replaced
    type: str
    name: str
    urn: str
    renamed_from: str = ""
    paths: list[str] = field(default_factory=list)
    replace_triggers: list[str] = field(default_factory=list)
    options: list[str] = field(default_factory=list)
    delete_first: bool = False
    retained: bool = False
    destructive: bool = False
    mig_layout: str = ""
    values: list[str] = field(default_factory=list)
    """``path: old -> new`` for each changed path; in full for the paths a rule flags, shortened for the rest."""
    disruptions: list[str] = field(default_factory=list)
    """What the change does to running or queued GPU work although no state is lost (MIG aside)."""
    blocked: str = ""
    """Why ``pulumi up`` refuses the change (``protect``, an admission webhook, the cloud's API)."""
    lost: list[str] = field(default_factory=list)
    """What a rule says the change deletes (data, history, objects), with the fields that set it off."""
    effects: list[str] = field(default_factory=list)
    """The effects of the declared rules the change sets off (``gpu_platform.diff_rule.EFFECTS``)."""
    flagged_values: list[dict[str, Any]] = field(default_factory=list)
    """``{path, old, new}`` of every field that set a rule off, whole (``null`` where absent)."""

    @property
    def disruptive(self) -> bool:
        return bool(self.mig_layout or self.disruptions)

    @property
    def flagged(self) -> bool:
        return self.destructive or self.disruptive or bool(self.blocked)


@dataclass
class PlanDiff:
    base: str
    head: str
    changes: list[Change]
    unchanged: int

    def of(self, action: str) -> list[Change]:
        return [c for c in self.changes if c.action == action]

    @property
    def destructive(self) -> list[Change]:
        return [c for c in self.changes if c.destructive]

    @property
    def mig_layout_changes(self) -> list[Change]:
        return [c for c in self.changes if c.mig_layout]

    @property
    def disruptive(self) -> list[Change]:
        """Changes that evict or strand GPU work other than MIG layouts (those have their own list)."""
        return [c for c in self.changes if c.disruptions]

    @property
    def blocked(self) -> list[Change]:
        return [c for c in self.changes if c.blocked]

    @property
    def flagged(self) -> list[Change]:
        """Everything ``gpu-platform diff`` exits 3 for."""
        return [c for c in self.changes if c.flagged]

    @property
    def renamed(self) -> list[Change]:
        return [c for c in self.changes if c.renamed_from]

    def to_json(self) -> dict[str, Any]:
        return {
            "base": self.base,
            "head": self.head,
            "summary": {
                **{a: len(self.of(a)) for a in ("added", "removed", "changed", "replaced")},
                "renamed": len(self.renamed),
                "unchanged": self.unchanged,
                "destructive": len(self.destructive),
                "migLayoutChanges": len(self.mig_layout_changes),
                "disruptive": len(self.disruptive),
                "blocked": len(self.blocked),
            },
            "changes": [
                {_camel(k): v for k, v in asdict(c).items()} | {"flagged": c.flagged} for c in self.changes
            ],
        }


def _camel(key: str) -> str:
    head, *rest = key.split("_")
    return head + "".join(p.title() for p in rest)


def load_plan(directory: Path) -> dict[str, Any]:
    """``<directory>/plan.json`` (or the file itself), checked for the shape ``plan`` writes."""
    path = directory / "plan.json" if directory.is_dir() else directory
    if not directory.exists():
        raise PlanInputError(f"{directory}: no such plan directory")
    if not path.exists():
        raise PlanInputError(
            f"{directory}: no plan.json (write one with `gpu-platform plan --out {directory}`)"
        )
    try:
        doc = json.loads(path.read_text())
    except ValueError as exc:
        raise PlanInputError(f"{path}: not valid JSON ({exc})") from None
    except OSError as exc:
        raise PlanInputError(f"{path}: cannot read ({exc})") from None
    resources = doc.get("resources") if isinstance(doc, dict) else None
    if not isinstance(resources, list):
        raise PlanInputError(f"{path}: not a plan (expected an object with a resources list)")
    for i, r in enumerate(resources):
        if not isinstance(r, dict) or not isinstance(r.get("urn"), str) or not isinstance(r.get("type"), str):
            raise PlanInputError(f"{path}: resources[{i}] needs a urn and a type")
        r.setdefault("name", r["urn"].rsplit("::", 1)[-1])
        r.setdefault("inputs", {})
        r.setdefault("options", {})
        if not isinstance(r["inputs"], dict) or not isinstance(r["options"], dict):
            raise PlanInputError(f"{path}: resources[{i}] inputs and options must be objects")
    return doc


def _alias_urns(res: dict[str, Any]) -> list[str]:
    """Alias URNs; a bare name stands for the same type and parent under that name."""
    out = []
    for alias in res["options"].get("aliases") or []:
        if not isinstance(alias, str) or not alias:
            continue
        if alias.startswith("urn:"):
            out.append(alias)
        else:
            out.append(res["urn"].rsplit("::", 1)[0] + "::" + alias)
    return out


# ------------------------------------------------------------------------------------------------
# What the change costs: the declared rules' findings
# ------------------------------------------------------------------------------------------------


def protect_block(old: dict[str, Any], new: dict[str, Any] | None) -> str:
    """``pulumi up`` refuses to delete a protected resource, and to replace one that stays protected
    (pulumi/pulumi pkg/resource/deploy/step_generator.go: unprotecting and replacing in one update is allowed)."""
    if not old["options"].get("protect"):
        return ""
    if new is None:
        return "blocked by protect: `pulumi up` refuses to delete it (docs/day2.md, Protection)"
    if new["options"].get("protect"):
        return "blocked by protect: `pulumi up` refuses to replace it (docs/day2.md, Protection)"
    return ""


def finding_text(f: Finding) -> str:
    """``field: old -> new; ...: reason`` (every value in full), or the reason alone when the resource goes."""
    if not f.fields:
        return f.rule.reason
    return "; ".join(field_text(*fld) for fld in f.fields) + f": {f.rule.reason}"


def apply_findings(change: Change, findings: list[Finding]) -> None:
    """Files each finding under the report's category for its effect, with the fields that set it off."""
    for f in findings:
        if f.effect not in change.effects:
            change.effects.append(f.effect)
        for name, old, new in f.fields:
            entry = {
                "path": name,
                "old": None if old is MISSING else old,
                "new": None if new is MISSING else new,
            }
            if entry not in change.flagged_values:
                change.flagged_values.append(entry)
        if f.effect == "deletes data":
            change.destructive = True
            change.lost.append(finding_text(f))
        elif f.effect == "reconfigures GPUs":
            shown = "; ".join(field_text(*fld) for fld in f.fields)
            change.mig_layout = "; ".join(x for x in (change.mig_layout, shown) if x)
        elif f.effect == "blocks the update":
            change.blocked = "; ".join(x for x in (change.blocked, finding_text(f)) if x)
        else:
            change.disruptions.append(finding_text(f))


def _full_values(change: Change, leaves: list[tuple[str, Any, Any]]) -> list[str]:
    """Each changed path's ``old -> new``: whole where a rule flags it, shortened elsewhere."""
    flagged = {v["path"] for v in change.flagged_values}
    return [
        f"{p}: {show_value(x, None if p in flagged else 48)} -> {show_value(y, None if p in flagged else 48)}"
        for p, x, y in leaves
    ]


def _replace_triggers(new: dict[str, Any], a: Any, b: Any) -> list[str]:
    out: list[str] = []
    triggers = list(new["options"].get("replaceOnChanges") or []) + list(force_new_paths(new["type"]))
    for path in dict.fromkeys(triggers):
        if path == "*":
            hit = a != b
        else:
            parts = parse_path(path)
            before, after = values_at(a, parts), values_at(b, parts)
            hit = before != after
            in_place = _IN_PLACE_IF.get((new["type"], path))
            if hit and in_place and len(before) == 1 and len(after) == 1:
                hit = not in_place(before[0], after[0])
        if hit:
            out.append(path)
    return out


def _named_in_place(old: dict[str, Any], new: dict[str, Any]) -> bool:
    """A Kubernetes object replaced under the name and namespace it had (given in ``metadata``, not generated):
    two objects cannot share a name, so the Kubernetes provider deletes it before creating the replacement, whatever
    ``deleteBeforeReplace`` says (pulumi/pulumi-kubernetes v4.25.0 ``provider/pkg/provider/provider.go``, ``Diff``:
    ``deleteBeforeReplace``). Helm releases are diffed by their own provider code and keep the option's answer."""
    kind = new["type"]
    if not kind.startswith("kubernetes:") or kind.startswith("kubernetes:helm.sh/"):
        return False
    before, after = old["inputs"].get("metadata"), new["inputs"].get("metadata")
    if not isinstance(before, dict) or not isinstance(after, dict):
        return False
    name = after.get("name")
    return bool(name) and name == before.get("name") and after.get("namespace") == before.get("namespace")


def _compare(old: dict[str, Any], new: dict[str, Any]) -> Change:
    ignore = [parse_path(p) for p in new["options"].get("ignoreChanges") or []]
    a, b = old["inputs"], new["inputs"]
    for parts in ignore:
        a, b = without(a, parts), without(b, parts)
    leaves = changed_values(a, b)
    change = Change("changed", new["type"], new["name"], new["urn"], paths=[p for p, _, _ in leaves])
    change.replace_triggers = _replace_triggers(new, a, b)
    for key in sorted(set(old["options"]) | set(new["options"])):
        before, after = old["options"].get(key), new["options"].get(key)
        if key != "aliases" and before != after:
            change.options.append(f"{key}: {json.dumps(before)} -> {json.dumps(after)}")
    findings = changed_findings(old, a, b)
    if change.replace_triggers:
        change.action = "replaced"
        change.delete_first = bool(new["options"].get("deleteBeforeReplace")) or _named_in_place(old, new)
        change.retained = bool(old["options"].get("retainOnDelete"))
        change.destructive = is_stateful(old) and not change.retained
        change.blocked = protect_block(old, new)
        if not change.retained:
            findings = gone_findings(old) + findings
    apply_findings(change, findings)
    change.values = _full_values(change, leaves)
    return change


def diff_plans(base: dict[str, Any], head: dict[str, Any]) -> PlanDiff:
    old = {r["urn"]: r for r in base["resources"]}
    new = {r["urn"]: r for r in head["resources"]}
    pairs: list[tuple[dict[str, Any], dict[str, Any]]] = []
    matched_old: set[str] = set()
    renames: dict[str, str] = {}
    for urn, res in new.items():
        if urn in old:
            pairs.append((old[urn], res))
            matched_old.add(urn)
    for urn, res in sorted(new.items()):
        if urn in old:
            continue
        for alias in _alias_urns(res):
            if alias in old and alias not in new and alias not in matched_old:
                pairs.append((old[alias], res))
                matched_old.add(alias)
                renames[urn] = alias
                break
    changes: list[Change] = []
    unchanged = 0
    for before, after in pairs:
        change = _compare(before, after)
        change.renamed_from = renames.get(after["urn"], "")
        if change.paths or change.options or change.renamed_from or change.replace_triggers:
            changes.append(change)
        else:
            unchanged += 1
    paired_new = {after["urn"] for _, after in pairs}
    for urn, res in new.items():
        if urn not in paired_new:
            changes.append(Change("added", res["type"], res["name"], urn))
    for urn, res in old.items():
        if urn not in matched_old:
            changes.append(_removed(res))
    order = {"replaced": 0, "removed": 1, "changed": 2, "added": 3}
    changes.sort(key=lambda c: (not c.flagged, order[c.action], c.urn))
    return PlanDiff(_label(base), _label(head), changes, unchanged)


def _removed(res: dict[str, Any]) -> Change:
    retained = bool(res["options"].get("retainOnDelete"))
    change = Change(
        "removed",
        res["type"],
        res["name"],
        res["urn"],
        retained=retained,
        destructive=is_stateful(res) and not retained,
        blocked=protect_block(res, None),
    )
    if not retained:
        apply_findings(change, gone_findings(res))
    return change


def _label(doc: dict[str, Any]) -> str:
    return f"{doc.get('project', '?')}/{doc.get('stack', '?')}"


def diff_dirs(base: Path, head: Path) -> PlanDiff:
    return diff_plans(load_plan(base), load_plan(head))


# ------------------------------------------------------------------------------------------------
# Reports
# ------------------------------------------------------------------------------------------------

SYMBOL = {"added": "+", "removed": "-", "changed": "~", "replaced": "+-"}
MAX_PATHS = 8


def _paths(items: list[str]) -> str:
    shown = ", ".join(items[:MAX_PATHS])
    return shown + (f", ... {len(items) - MAX_PATHS} more" if len(items) > MAX_PATHS else "")


def _values(c: Change) -> str:
    """Every flagged path's values, then the others up to ``MAX_PATHS``."""
    flagged = {v["path"] for v in c.flagged_values}
    first = [v for v in c.values if v.split(": ", 1)[0] in flagged]
    rest = [v for v in c.values if v not in first]
    return ", ".join([*first, *([_paths(rest)] if rest else [])])


def describe(c: Change) -> str:
    """One line: what happens to the resource and why."""
    return f"{c.type} {c.name}{details(c)}"


def details(c: Change) -> str:
    text = ""
    if c.renamed_from:
        text += f" (renamed from {c.renamed_from.rsplit('::', 1)[-1]}"
        old_type = c.renamed_from.split("::")[2].rsplit("$", 1)[-1]
        text += f", was {old_type})" if old_type != c.type else ")"
    if c.action == "replaced" and c.blocked:
        text += f": {c.blocked}, because {_paths(c.replace_triggers)} changed"
    elif c.action == "replaced":
        how = "delete first, then create" if c.delete_first else "create replacement, then delete"
        text += f": {how}, because {_paths(c.replace_triggers)} changed"
    elif c.action == "removed" and c.blocked:
        text += f": {c.blocked}"
    if c.values:
        text += f"{': ' if c.action == 'changed' else '; '}{_values(c)}"
    if c.options:
        text += f" [options {'; '.join(c.options)}]"
    if c.retained:
        text += " (retained: retainOnDelete keeps the old one running, Pulumi forgets it)"
    if c.mig_layout:
        text += f" [MIG layout: {c.mig_layout}]"
    for d in [*c.lost, *c.disruptions]:
        text += f" [{d}]"
    if c.action == "changed" and c.blocked:
        text += f" [{c.blocked}]"
    return text


def multiline_values(c: Change) -> list[tuple[str, list[str]]]:
    """(path, the lines that change) of each flagged value that is many lines long (user data, a ConfigMap)."""
    return [
        (v["path"], line_diff(v["old"], v["new"]))
        for v in c.flagged_values
        if _multiline(v["old"]) or _multiline(v["new"])
    ]


def _line_diffs_text(d: PlanDiff) -> list[str]:
    out: list[str] = []
    for c in d.flagged:
        for path, diff in multiline_values(c):
            out += [f"  {c.type} {c.name} {path}:", *(f"    {line}" for line in diff)]
    return ["", "Flagged values of many lines (the lines that change):", *out] if out else []


def _summary(d: PlanDiff) -> str:
    parts = [f"{len(d.of(a))} {a}" for a in ("added", "changed", "replaced", "removed")]
    parts.append(f"{len(d.renamed)} renamed")
    parts.append(f"{d.unchanged} unchanged")
    return ", ".join(parts)


def render_text(d: PlanDiff) -> str:
    lines = [f"Plan diff {d.base} (base) -> {d.head} (head): {_summary(d)}"]
    if d.destructive:
        lines += ["", f"DESTRUCTIVE changes ({len(d.destructive)}): state is lost"]
        lines += [f"  !! {c.action:<8} {describe(c)}" for c in d.destructive]
    if d.mig_layout_changes:
        lines += [
            "",
            f"MIG layout changes ({len(d.mig_layout_changes)}): GPUs are repartitioned, their pods evicted",
        ]
        lines += [f"  !! {describe(c)}" for c in d.mig_layout_changes]
    if d.disruptive:
        lines += ["", f"DISRUPTIVE changes ({len(d.disruptive)}): GPU work is evicted, stranded or refused"]
        lines += [f"  !! {c.action:<8} {c.type} {c.name}: {'; '.join(c.disruptions)}" for c in d.disruptive]
    if d.blocked:
        lines += [
            "",
            f"BLOCKED ({len(d.blocked)}): `pulumi up` fails at each until it is unblocked as it says",
        ]
        lines += [f"  !! {c.action:<8} {c.type} {c.name}: {c.blocked}" for c in d.blocked]
    lines += _line_diffs_text(d)
    if d.changes:
        lines += ["", "Resources:"]
        lines += [f"  {SYMBOL[c.action]:<2} {describe(c)}" for c in d.changes]
    else:
        lines += ["", "No changes."]
    return "\n".join(lines)


def _md(text: str) -> str:
    return text.replace("|", "\\|")


def render_markdown(d: PlanDiff) -> str:
    lines = [f"### Plan diff `{d.base}`", "", f"{_summary(d)}.", ""]
    if d.flagged:
        lines += ["> [!WARNING]"]
        if d.destructive:
            lines += [f"> **{len(d.destructive)} destructive change(s)**: state is lost."]
            lines += [f"> - **{c.action}** `{c.type}` `{c.name}`{_md(details(c))}" for c in d.destructive]
        if d.mig_layout_changes:
            lines += [f"> **{len(d.mig_layout_changes)} MIG layout change(s)**: GPU pods are evicted."]
            lines += [f"> - `{c.type}` `{c.name}`: {_md(c.mig_layout)}" for c in d.mig_layout_changes]
        if d.disruptive:
            lines += [
                f"> **{len(d.disruptive)} disruptive change(s)**: GPU work is evicted, stranded or refused."
            ]
            lines += [f"> - `{c.type}` `{c.name}`: {_md('; '.join(c.disruptions))}" for c in d.disruptive]
        if d.blocked:
            lines += [f"> **{len(d.blocked)} blocked change(s)**: `pulumi up` fails."]
            lines += [f"> - **{c.action}** `{c.type}` `{c.name}`: {_md(c.blocked)}" for c in d.blocked]
        lines += ["", *_md_line_diffs(d)]
    if not d.changes:
        return "\n".join([*lines, "No changes."])
    lines += ["| | Action | Type | Name | Details |", "|---|---|---|---|---|"]
    for c in d.changes:
        flag = ":warning:" if c.flagged else ""
        lines.append(f"| {flag} | {c.action} | `{c.type}` | `{c.name}` | {_md(details(c).lstrip(': '))} |")
    return "\n".join(lines)


def _md_line_diffs(d: PlanDiff) -> list[str]:
    out: list[str] = []
    for c in d.flagged:
        for path, diff in multiline_values(c):
            out += [
                f"<details><summary><code>{c.name}</code> {path}</summary>",
                "",
                "```diff",
                *diff,
                "```",
                "",
                "</details>",
                "",
            ]
    return out


def render(d: PlanDiff, fmt: str = "text") -> str:
    if fmt == "json":
        return json.dumps(d.to_json(), indent=2, sort_keys=True)
    if fmt == "markdown":
        return render_markdown(d)
    return render_text(d)
