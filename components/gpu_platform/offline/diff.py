"""``gpu-platform diff``: what changes between two offline plans, and which changes destroy state.

Resources are matched by URN, and through ``options.aliases`` (a resource registered under a new
name or parent that lists its old URN as an alias is a rename, as the engine treats it). For a
matched pair, inputs are compared with ``options.ignoreChanges`` left out; the pair is *replaced*
when a property changed that the provider cannot update in place: the resource's own
``options.replaceOnChanges`` or a known force-new property of its type (:data:`FORCE_NEW`).

*Destructive*: removing or replacing a stateful kind (:func:`is_stateful`), unless the old
resource has ``retainOnDelete`` (then it is reported as retained: Pulumi forgets it and leaves it
running). *Disruptive*: changes that keep state but evict or strand GPU work (:func:`disruptions`):
MIG layout changes (a GPU node pool's ``nvidia.com/mig.config`` label, or the mig-parted ConfigMap's
data: mig-manager repartitions the GPUs, evicting their pods), a new node driver from the GPU
Operator, node pools the cloud recreates in place, Karpenter NodePools that go, Kueue queues that go,
Volcano queues that go (refused by Volcano unless Closed). *Blocked*: a removal or replacement that
``protect`` makes ``pulumi up`` refuse. Every flagged change makes ``gpu-platform diff`` exit 3.
"""

import json
import re
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from gpu_platform.catalog.drivers import GPU_OPERATOR_DEFAULT_DRIVER
from gpu_platform.cloud_facts import PROFILES
from gpu_platform.offline.errors import PlanInputError
from gpu_platform.releases import GPU_OPERATOR, crd_charts
from gpu_platform.releases import chart_name as addon_chart_name

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


RECREATES_NODES: dict[str, tuple[str, ...]] = {
    t: paths for p in PROFILES.values() for t, paths in p.resource_types.recreates_nodes.items()
}


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


class Named(str):
    """A list item matched by its ``name`` (a pool's flavor, a queue's resource), shown as ``[name=x]``."""


def format_path(parts: list[str | int]) -> str:
    out = ""
    for p in parts:
        if isinstance(p, Named):
            out += f"[name={p}]"
        elif isinstance(p, int):
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


_MISSING = object()


def _by_name(items: list[Any]) -> dict[str, Any] | None:
    """A list of objects with unique ``name`` keys, by name (else ``None``: compared by position)."""
    if not items or not all(isinstance(i, dict) and isinstance(i.get("name"), str) for i in items):
        return None
    named = {i["name"]: i for i in items}
    return named if len(named) == len(items) else None


def changed_values(old: Any, new: Any, prefix: list[str | int] | None = None) -> list[tuple[str, Any, Any]]:
    """``(path, old, new)`` for each leaf whose value differs (``_MISSING`` where one side has none). List
    items with a ``name`` are matched by name (``flavors[name=h100]``), so paths name pools and queues and
    a reorder or an added item is not a change of every index."""
    prefix = prefix or []
    if isinstance(old, dict) and isinstance(new, dict):
        out: list[tuple[str, Any, Any]] = []
        for k in sorted(set(old) | set(new)):
            if old.get(k, _MISSING) != new.get(k, _MISSING):
                out += changed_values(old.get(k, _MISSING), new.get(k, _MISSING), [*prefix, k])
        return out
    if isinstance(old, list) and isinstance(new, list):
        a, b = _by_name(old), _by_name(new)
        if a is not None and b is not None:
            out = []
            for k in [*a, *(k for k in b if k not in a)]:
                if a.get(k, _MISSING) != b.get(k, _MISSING):
                    out += changed_values(a.get(k, _MISSING), b.get(k, _MISSING), [*prefix, Named(k)])
            return out
        if len(old) == len(new):
            out = []
            for i, (x, y) in enumerate(zip(old, new, strict=True)):
                if x != y:
                    out += changed_values(x, y, [*prefix, i])
            return out
    return [] if old == new else [(format_path(prefix) or "(all inputs)", old, new)]


def changed_paths(old: Any, new: Any, prefix: list[str | int] | None = None) -> list[str]:
    """Leaf property paths whose value differs."""
    return [path for path, _, _ in changed_values(old, new, prefix)]


def show_value(value: Any, width: int = 48) -> str:
    """A value for ``old -> new``: JSON, shortened; ``(none)`` where the property is absent."""
    if value is _MISSING or value is None:
        return "(none)"
    text = value if isinstance(value, str) and "\n" not in value else json.dumps(value, sort_keys=True)
    if isinstance(value, str) and "\n" in value:
        text = f"<{len(value.splitlines())} lines>"
    return text if len(text) <= width else text[: width - 3] + "..."


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
    values: list[str] = field(default_factory=list)
    """``path: old -> new`` for each changed path."""
    disruptions: list[str] = field(default_factory=list)
    """What the change does to running or queued GPU work although no state is lost (MIG aside)."""
    blocked: str = ""
    """Why ``pulumi up`` refuses the change (``protect``)."""

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
# Disruptions: state is kept, GPU work is not
# ------------------------------------------------------------------------------------------------

KUEUE_GONE = {
    "ClusterQueue": "Kueue deletes the queue: its pending workloads are never admitted (stranded)",
    "LocalQueue": "jobs submitted to this LocalQueue stay suspended: nothing admits them",
    "ResourceFlavor": "ClusterQueues naming this flavor stop admitting workloads to it",
    "WorkloadPriorityClass": "workloads naming this priority class are no longer admitted",
}
"""Kueue kinds (``kueue.x-k8s.io``) whose deletion strands queued work (Kueue concepts docs)."""
VOLCANO_QUEUE_GONE = (
    "Volcano refuses to delete a Queue that is not Closed (its admission webhook), so `pulumi up` fails "
    "here: close the queue and let its jobs finish first (docs/day2.md)"
)
KARPENTER_GONE = "Karpenter terminates every node it launched for this {kind}, and the GPU pods on them"


def _kind(type_: str) -> tuple[str, str]:
    """``kubernetes:karpenter.sh/v1:NodePool`` -> (``karpenter.sh``, ``NodePool``)."""
    if not type_.startswith("kubernetes:"):
        return "", ""
    _, api, kind = type_.split(":", 2)
    return api.split("/", 1)[0], kind


def gone_disruptions(res: dict[str, Any]) -> list[str]:
    """What removing (or replacing) the resource does to GPU work although no state is lost."""
    group, kind = _kind(res["type"])
    if group.startswith("karpenter.") and (kind == "NodePool" or kind.endswith("NodeClass")):
        return [KARPENTER_GONE.format(kind=kind)]
    if group == "kueue.x-k8s.io" and kind in KUEUE_GONE:
        return [KUEUE_GONE[kind]]
    if group == "scheduling.volcano.sh" and kind == "Queue":
        return [VOLCANO_QUEUE_GONE]
    return []


def node_driver(inputs: dict[str, Any]) -> str:
    """The driver the GPU Operator release installs on the nodes (``""``: it installs none): the
    ``driver.version`` value, else the chart version's default (``catalog.drivers``)."""
    driver = (inputs.get("values") or {}).get("driver") or {}
    if driver.get("enabled", True) is False:
        return ""
    version = driver.get("version") or GPU_OPERATOR_DEFAULT_DRIVER.get(str(inputs.get("version")), "")
    return str(version or f"the default of {inputs.get('version')}")


RELOAD = (
    "the operator reloads it on every node it serves, evicting their GPU or RDMA work "
    "(its upgradePolicy waits for jobs to finish; docs/day2.md)"
)
DRIFT = (
    "Karpenter replaces every node of the pools that use it (drift), evicting pods that do not carry "
    "karpenter.sh/do-not-disrupt (docs/autoscaling.md)"
)
NODE_SOFTWARE_OBJECTS: dict[tuple[str, str], tuple[str, tuple[tuple[str, ...], ...], str]] = {
    ("nvidia.com", "ClusterPolicy"): (
        "NVIDIA GPU driver",
        (
            ("spec", "driver", "enabled"),
            ("spec", "driver", "version"),
            ("spec", "driver", "image"),
            ("spec", "driver", "repository"),
            ("spec", "driver", "kernelModuleType"),
        ),
        RELOAD,
    ),
    ("nvidia.com", "NVIDIADriver"): (
        "NVIDIA GPU driver",
        (("spec", "version"), ("spec", "image"), ("spec", "repository"), ("spec", "kernelModuleType")),
        RELOAD,
    ),
    ("mellanox.com", "NicClusterPolicy"): (
        "DOCA (MOFED) network driver",
        (
            ("spec", "ofedDriver", "version"),
            ("spec", "ofedDriver", "image"),
            ("spec", "ofedDriver", "repository"),
        ),
        RELOAD,
    ),
    ("karpenter.k8s.aws", "EC2NodeClass"): ("node image", (("spec", "amiSelectorTerms"),), DRIFT),
}
"""Custom resources whose fields select what every node they serve runs: a kernel driver an operator loads (the
GPU Operator's ``ClusterPolicy`` under OLM and its ``NVIDIADriver``, the Network Operator's ``NicClusterPolicy``)
or the node image (Karpenter's ``EC2NodeClass``). A change reloads or replaces it on those nodes, which evicts or
drops their GPU and RDMA work, whatever installs the object."""


def _at(obj: Any, path: tuple[str, ...]) -> Any:
    for key in path:
        obj = obj.get(key) if isinstance(obj, dict) else None
    return obj


def driver_object_disruptions(old: dict[str, Any], new: dict[str, Any]) -> list[str]:
    """What a change of a node-software field does (``NODE_SOFTWARE_OBJECTS``)."""
    entry = NODE_SOFTWARE_OBJECTS.get(_kind(new["type"]))
    if entry is None:
        return []
    what, paths, consequence = entry
    changed = [p for p in paths if _at(old["inputs"], p) != _at(new["inputs"], p)]
    if not changed:
        return []
    shown = "; ".join(
        f"{'.'.join(p)} {show_value(_at(old['inputs'], p))} -> {show_value(_at(new['inputs'], p))}"
        for p in changed
    )
    return [f"{what}: {shown}: {consequence}"]


def changed_disruptions(old: dict[str, Any], new: dict[str, Any], paths: list[str]) -> list[str]:
    """What an update in place does to GPU work: a new node driver, nodes the cloud recreates."""
    out: list[str] = driver_object_disruptions(old, new)
    if new["type"] == HELM_RELEASE and chart_name(new["inputs"]) == GPU_OPERATOR.chart_name:
        before, after = node_driver(old["inputs"]), node_driver(new["inputs"])
        if before != after:
            out.append(
                f"node driver {before or '(not the operator)'} -> {after or '(not the operator)'}: the driver "
                "is reloaded on every GPU node, their GPU pods evicted (driver.upgradePolicy; docs/day2.md)"
            )
    recreated = [p for p in paths if any(p.startswith(t) for t in RECREATES_NODES.get(new["type"], ()))]
    if recreated:
        out.append(f"{_paths(recreated)} change in place by recreating every node of the pool (pods evicted)")
    return out


VOLCANO_QUEUE_BLOCK = (
    "blocked by Volcano: its webhook refuses to delete a Queue that is not Closed; close it first "
    "(`vcctl queue operate --name <queue> --action close`, docs/day2.md)"
)


def protect_block(old: dict[str, Any], new: dict[str, Any] | None) -> str:
    """``pulumi up`` refuses to delete a protected resource, and to replace one that stays protected
    (pulumi/pulumi pkg/resource/deploy/step_generator.go: unprotecting and replacing in one update is allowed).
    Volcano's admission webhook refuses the deletion of an open Queue the same way, whatever the options."""
    if _kind(old["type"]) == ("scheduling.volcano.sh", "Queue") and not old["options"].get("retainOnDelete"):
        return VOLCANO_QUEUE_BLOCK
    if not old["options"].get("protect"):
        return ""
    if new is None:
        return "blocked by protect: `pulumi up` refuses to delete it (docs/day2.md, Protection)"
    if new["options"].get("protect"):
        return "blocked by protect: `pulumi up` refuses to replace it (docs/day2.md, Protection)"
    return ""


def _compare(old: dict[str, Any], new: dict[str, Any]) -> Change:
    ignore = [parse_path(p) for p in new["options"].get("ignoreChanges") or []]
    a, b = old["inputs"], new["inputs"]
    for parts in ignore:
        a, b = without(a, parts), without(b, parts)
    leaves = changed_values(a, b)
    change = Change("changed", new["type"], new["name"], new["urn"], paths=[p for p, _, _ in leaves])
    change.values = [f"{p}: {show_value(x)} -> {show_value(y)}" for p, x, y in leaves]
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
        change.blocked = protect_block(old, new)
        if not change.retained:
            change.disruptions += gone_disruptions(old)
    change.disruptions += changed_disruptions(old, new, change.paths)
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
            changes.append(_removed(res))
    order = {"replaced": 0, "removed": 1, "changed": 2, "added": 3}
    changes.sort(key=lambda c: (not c.flagged, order[c.action], c.urn))
    return PlanDiff(_label(base), _label(head), changes, unchanged)


def _removed(res: dict[str, Any]) -> Change:
    retained = bool(res["options"].get("retainOnDelete"))
    return Change(
        "removed",
        res["type"],
        res["name"],
        res["urn"],
        retained=retained,
        destructive=is_stateful(res) and not retained,
        disruptions=[] if retained else gone_disruptions(res),
        blocked=protect_block(res, None),
    )


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
    if c.action == "replaced" and c.blocked:
        text += f": {c.blocked}, because {_paths(c.replace_triggers)} changed"
    elif c.action == "replaced":
        how = "delete first, then create" if c.delete_first else "create replacement, then delete"
        text += f": {how}, because {_paths(c.replace_triggers)} changed"
    elif c.action == "removed" and c.blocked:
        text += f": {c.blocked}"
    if c.values:
        text += f"{': ' if c.action == 'changed' else '; '}{_paths(c.values)}"
    if c.options:
        text += f" [options {'; '.join(c.options)}]"
    if c.retained:
        text += " (retained: retainOnDelete keeps the old one running, Pulumi forgets it)"
    if c.mig_layout:
        text += f" [MIG layout: {c.mig_layout}]"
    for d in c.disruptions:
        text += f" [{d}]"
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
    if d.disruptive:
        lines += ["", f"DISRUPTIVE changes ({len(d.disruptive)}): GPU work is evicted, stranded or refused"]
        lines += [f"  !! {c.action:<8} {c.type} {c.name}: {'; '.join(c.disruptions)}" for c in d.disruptive]
    if d.blocked:
        lines += ["", f"BLOCKED ({len(d.blocked)}): `pulumi up` fails until each is unprotected or closed"]
        lines += [f"  !! {c.action:<8} {c.type} {c.name}: {c.blocked}" for c in d.blocked]
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
