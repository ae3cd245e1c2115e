"""``gpu-platform diff``: what changes between two offline plans, and which changes destroy state.

Resources are matched by URN, and through ``options.aliases`` (a resource registered under a new
name or parent that lists its old URN as an alias is a rename, as the engine treats it). For a
matched pair, inputs are compared with ``options.ignoreChanges`` left out; the pair is *replaced*
when a property changed that the provider cannot update in place: the resource's own
``options.replaceOnChanges`` or a known force-new property of its type (:data:`FORCE_NEW`).

*Destructive*: removing or replacing a stateful kind (:func:`is_stateful`), unless the old
resource has ``retainOnDelete`` (then it is reported as retained: Pulumi forgets it and leaves it
running). *MIG layout changes* (a GPU node pool's ``nvidia.com/mig.config`` label, or the
mig-parted ConfigMap's data) are flagged too: mig-manager repartitions the GPUs, evicting their pods.
"""

import json
import re
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from gpu_platform.addons import chart_name as addon_chart_name
from gpu_platform.addons import crd_charts
from gpu_platform.clouds import PROFILES
from gpu_platform.offline.errors import PlanInputError

HELM_RELEASE = "kubernetes:helm.sh/v3:Release"
MIG_LABEL = "nvidia.com/mig.config"

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
NODE_POOL_TYPES = frozenset(t for p in PROFILES.values() for t in p.resource_types.node_pools)
CRD_CHARTS = crd_charts()
"""Charts whose releases hold CRDs (as templates, or cert-manager's): removing the release removes the data
(``addons``: each add-on's ``release_holds_crds``)."""


def chart_name(inputs: dict[str, Any]) -> str:
    chart = inputs.get("chart")
    return addon_chart_name(chart) if isinstance(chart, str) else ""


def is_stateful(res: dict[str, Any]) -> bool:
    if res["type"] == HELM_RELEASE:
        chart = chart_name(res.get("inputs") or {})
        return "crd" in chart or chart in CRD_CHARTS
    return res["type"] in STATEFUL_TYPES


# ------------------------------------------------------------------------------------------------
# Property paths
# ------------------------------------------------------------------------------------------------

_TOKEN = re.compile(r'\.?([^.\[\]"]+)|\[(\d+|\*)\]|\["((?:[^"\\]|\\.)*)"\]')


def parse_path(path: str) -> list[str | int]:
    """``a.b[0]["k.x"][*]`` -> ``["a", "b", 0, "k.x", "*"]``; a lone ``*`` matches everything."""
    parts: list[str | int] = []
    pos = 0
    while pos < len(path):
        m = _TOKEN.match(path, pos)
        if m is None or m.end() == pos:
            raise ValueError(f"bad property path {path!r}")
        name, index, quoted = m.groups()
        if name is not None:
            parts.append(name)
        elif index is not None:
            parts.append("*" if index == "*" else int(index))
        else:
            parts.append(quoted.replace('\\"', '"'))
        pos = m.end()
    return parts


def format_path(parts: list[str | int]) -> str:
    out = ""
    for p in parts:
        if isinstance(p, int):
            out += f"[{p}]"
        elif re.fullmatch(r"[A-Za-z_$][\w$-]*", p):
            out += f".{p}" if out else p
        else:
            out += f'["{p}"]'
    return out


def values_at(obj: Any, parts: list[str | int]) -> list[Any]:
    """Every value the path reaches (wildcards expand); missing branches reach nothing."""
    if not parts:
        return [obj]
    head, rest = parts[0], parts[1:]
    if head == "*":
        children: list[Any] = (
            list(obj.values()) if isinstance(obj, dict) else obj if isinstance(obj, list) else []
        )
        return [v for c in children for v in values_at(c, rest)]
    if isinstance(obj, dict) and isinstance(head, str) and head in obj:
        return values_at(obj[head], rest)
    if isinstance(obj, list) and isinstance(head, int) and 0 <= head < len(obj):
        return values_at(obj[head], rest)
    return []


def without(obj: Any, parts: list[str | int]) -> Any:
    """A copy of ``obj`` with the path removed (ignoreChanges)."""
    if not parts:
        return None
    head, rest = parts[0], parts[1:]
    if isinstance(obj, dict):
        out = dict(obj)
        keys = list(out) if head == "*" else [head] if head in out else []
        for k in keys:
            if rest:
                out[k] = without(out[k], rest)
            else:
                del out[k]
        return out
    if isinstance(obj, list):
        out_list = list(obj)
        idx = (
            range(len(out_list))
            if head == "*"
            else [head]
            if isinstance(head, int) and head < len(out_list)
            else []
        )
        for i in idx:
            out_list[i] = without(out_list[i], rest) if rest else None
        return out_list
    return obj


def changed_paths(old: Any, new: Any, prefix: list[str | int] | None = None) -> list[str]:
    """Leaf property paths whose value differs."""
    prefix = prefix or []
    if isinstance(old, dict) and isinstance(new, dict):
        out: list[str] = []
        for k in sorted(set(old) | set(new)):
            if old.get(k) != new.get(k):
                out += changed_paths(old.get(k), new.get(k), [*prefix, k])
        return out
    if isinstance(old, list) and isinstance(new, list) and len(old) == len(new):
        out = []
        for i, (a, b) in enumerate(zip(old, new, strict=True)):
            if a != b:
                out += changed_paths(a, b, [*prefix, i])
        return out
    return [] if old == new else [format_path(prefix) or "(all inputs)"]


def _find_key(obj: Any, key: str) -> Iterator[Any]:
    if isinstance(obj, dict):
        for k, v in obj.items():
            if k == key:
                yield v
            else:
                yield from _find_key(v, key)
    elif isinstance(obj, list):
        for v in obj:
            yield from _find_key(v, key)


def mig_label(inputs: dict[str, Any]) -> Any:
    return next(_find_key(inputs, MIG_LABEL), None)


def is_mig_parted_config(res: dict[str, Any]) -> bool:
    if res["type"] != "kubernetes:core/v1:ConfigMap":
        return False
    inputs = res.get("inputs") or {}
    meta = inputs.get("metadata") or {}
    data = inputs.get("data") or {}
    return "mig-parted" in str(meta.get("name", "")) or any(
        isinstance(v, str) and "mig-configs" in v for v in data.values()
    )


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

    @property
    def flagged(self) -> bool:
        return self.destructive or bool(self.mig_layout)


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


def _compare(old: dict[str, Any], new: dict[str, Any]) -> Change:
    ignore = [parse_path(p) for p in new["options"].get("ignoreChanges") or []]
    a, b = old["inputs"], new["inputs"]
    for parts in ignore:
        a, b = without(a, parts), without(b, parts)
    change = Change("changed", new["type"], new["name"], new["urn"], paths=changed_paths(a, b))
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
            change.replace_triggers.append(path)
    for key in sorted(set(old["options"]) | set(new["options"])):
        before, after = old["options"].get(key), new["options"].get(key)
        if key != "aliases" and before != after:
            change.options.append(f"{key}: {json.dumps(before)} -> {json.dumps(after)}")
    if change.replace_triggers:
        change.action = "replaced"
        change.delete_first = bool(new["options"].get("deleteBeforeReplace"))
        change.retained = bool(old["options"].get("retainOnDelete"))
        change.destructive = is_stateful(old) and not change.retained
    if new["type"] in NODE_POOL_TYPES:
        before_label, after_label = mig_label(old["inputs"]), mig_label(new["inputs"])
        if before_label != after_label:
            change.mig_layout = f"{MIG_LABEL}: {before_label or '(none)'} -> {after_label or '(none)'}"
    elif is_mig_parted_config(new) and old["inputs"].get("data") != new["inputs"].get("data"):
        change.mig_layout = "mig-parted config data changed"
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
            retained = bool(res["options"].get("retainOnDelete"))
            changes.append(
                Change(
                    "removed",
                    res["type"],
                    res["name"],
                    urn,
                    retained=retained,
                    destructive=is_stateful(res) and not retained,
                )
            )
    order = {"replaced": 0, "removed": 1, "changed": 2, "added": 3}
    changes.sort(key=lambda c: (not c.flagged, order[c.action], c.urn))
    return PlanDiff(_label(base), _label(head), changes, unchanged)


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


def describe(c: Change) -> str:
    """One line: what happens to the resource and why."""
    return f"{c.type} {c.name}{details(c)}"


def details(c: Change) -> str:
    text = ""
    if c.renamed_from:
        text += f" (renamed from {c.renamed_from.rsplit('::', 1)[-1]}"
        old_type = c.renamed_from.split("::")[2].rsplit("$", 1)[-1]
        text += f", was {old_type})" if old_type != c.type else ")"
    if c.action == "replaced":
        how = "delete first, then create" if c.delete_first else "create replacement, then delete"
        text += f": {how}, because {_paths(c.replace_triggers)} changed"
        others = [p for p in c.paths if not any(p.startswith(t) for t in c.replace_triggers)]
        if others:
            text += f"; also {_paths(others)}"
    elif c.action == "changed" and c.paths:
        text += f": {_paths(c.paths)}"
    if c.options:
        text += f" [options {'; '.join(c.options)}]"
    if c.retained:
        text += " (retained: retainOnDelete keeps the old one running, Pulumi forgets it)"
    if c.mig_layout:
        text += f" [MIG layout: {c.mig_layout}]"
    return text


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
    if d.destructive or d.mig_layout_changes:
        lines += ["> [!WARNING]"]
        if d.destructive:
            lines += [f"> **{len(d.destructive)} destructive change(s)**: state is lost."]
            lines += [f"> - **{c.action}** `{c.type}` `{c.name}`{_md(details(c))}" for c in d.destructive]
        if d.mig_layout_changes:
            lines += [f"> **{len(d.mig_layout_changes)} MIG layout change(s)**: GPU pods are evicted."]
            lines += [f"> - `{c.type}` `{c.name}`: {_md(c.mig_layout)}" for c in d.mig_layout_changes]
        lines += [""]
    if not d.changes:
        return "\n".join([*lines, "No changes."])
    lines += ["| | Action | Type | Name | Details |", "|---|---|---|---|---|"]
    for c in d.changes:
        flag = ":warning:" if c.flagged else ""
        lines.append(f"| {flag} | {c.action} | `{c.type}` | `{c.name}` | {_md(details(c).lstrip(': '))} |")
    return "\n".join(lines)


def render(d: PlanDiff, fmt: str = "text") -> str:
    if fmt == "json":
        return json.dumps(d.to_json(), indent=2, sort_keys=True)
    if fmt == "markdown":
        return render_markdown(d)
    return render_text(d)
