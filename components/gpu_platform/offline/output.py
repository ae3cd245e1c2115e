"""Write a plan for reviewers: ``plan.json``, Helm values and Kubernetes manifests, and a tree."""

import json
import re
import shutil
from pathlib import Path
from typing import Any

import yaml

from gpu_platform.addons.serving.plan import REQUIRES_OUTPUT
from gpu_platform.offline.recorder import Registration
from gpu_platform.offline.runner import Plan
from gpu_platform.offline.stack_file import SECURE_PLACEHOLDER

HELM_RELEASE = "kubernetes:helm.sh/v3:Release"
PLAIN_TEXT_SECRET = "[plain-text secret]"
"""Written where a ``secure:`` value reached an input that is not secret: ``pulumi up`` would store the
decrypted value in the state in clear. Only an input the program registered as a secret Output is
written ``[secret]``."""


def mask(value: Any) -> Any:
    """Any string carrying a ``secure:`` config placeholder outside a secret Output (the program used a
    secret as plain text) is written as :data:`PLAIN_TEXT_SECRET`, so the leak shows in the plan."""
    if isinstance(value, str):
        return PLAIN_TEXT_SECRET if SECURE_PLACEHOLDER in value else value
    if isinstance(value, dict):
        return {k: mask(v) for k, v in value.items()}
    if isinstance(value, list):
        return [mask(v) for v in value]
    return value


def plan_document(plan: Plan) -> dict[str, Any]:
    return {
        "project": plan.project,
        "stack": plan.stack,
        "resources": [
            {
                "urn": r.urn,
                "type": r.type,
                "name": r.name,
                "parent": r.parent,
                "provider": r.provider,
                "dependsOn": r.depends_on,
                "inputs": mask(r.inputs),
                "options": r.options,
            }
            for r in sorted(plan.resources, key=lambda r: r.urn)
        ],
    }


def _dump_yaml(doc: Any) -> str:
    return yaml.safe_dump(doc, sort_keys=True, default_flow_style=False, width=120)


def _safe(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", text).strip("_")


def _manifest(r: Registration) -> dict[str, Any] | None:
    """A Kubernetes object as kubectl would see it, from a ``kubernetes:<group>/<ver>:<Kind>`` resource."""
    if (
        not r.type.startswith("kubernetes:")
        or r.type == HELM_RELEASE
        or r.type.startswith("pulumi:providers")
    ):
        return None
    inputs = mask(dict(r.inputs))
    if "apiVersion" not in inputs or "kind" not in inputs:
        _, api, kind = r.type.split(":")
        group, _, version = api.rpartition("/")
        inputs.setdefault("apiVersion", version if group in ("core", "") else f"{group}/{version}")
        inputs.setdefault("kind", kind)
    return inputs


def write_plan(plan: Plan, out: Path) -> None:
    """Write ``plan.json``, ``values/<release>.yaml`` and ``manifests/`` (replacing old contents)."""
    out.mkdir(parents=True, exist_ok=True)
    for sub in ("values", "manifests"):
        shutil.rmtree(out / sub, ignore_errors=True)
    (out / "plan.json").write_text(json.dumps(plan_document(plan), indent=2, sort_keys=True) + "\n")
    for r in plan.resources:
        if r.type == HELM_RELEASE:
            d = out / "values"
            d.mkdir(exist_ok=True)
            # Named after the Helm release (what `helm get values <release>` shows), not the Pulumi name.
            name = r.inputs.get("name")
            release = name if isinstance(name, str) else r.name
            (d / f"{_safe(release)}.yaml").write_text(_dump_yaml(mask(r.inputs.get("values") or {})))
            continue
        manifest = _manifest(r)
        if manifest is not None:
            d = out / "manifests"
            d.mkdir(exist_ok=True)
            meta = manifest.get("metadata") or {}
            ns = meta.get("namespace", "") if isinstance(meta, dict) else ""
            name = meta.get("name", r.name) if isinstance(meta, dict) else r.name
            fname = _safe(f"{manifest['kind']}-{ns + '-' if ns else ''}{name}") + ".yaml"
            (d / fname).write_text(_dump_yaml(manifest))


def render_tree(plan: Plan) -> str:
    """A ``pulumi preview``-like tree: each resource under its parent, with its type."""
    children: dict[str, list[Registration]] = {}
    urns = {r.urn for r in plan.resources}
    for r in plan.resources:
        parent = r.parent if r.parent in urns else ""
        children.setdefault(parent, []).append(r)
    lines = [f"Previewing update ({plan.stack}) of project {plan.project} (offline, mocks):", ""]
    lines.append(f"     Type{' ' * 52}Name")
    lines.append(f" +   pulumi:pulumi:Stack{' ' * 37}{plan.project}-{plan.stack}")

    def walk(parent: str, prefix: str) -> None:
        kids = sorted(children.get(parent, []), key=lambda r: (r.type, r.name))
        for i, r in enumerate(kids):
            last = i == len(kids) - 1
            label = prefix + ("└─ " if last else "├─ ") + r.type
            lines.append(f" +   {label:<55} {r.name}")
            walk(r.urn, prefix + ("   " if last else "│  "))

    walk("", "")
    lines.append("")
    lines.append(f"Resources:\n    + {len(plan.resources)} to create")
    return "\n".join(lines)


NODE_SETUP_OUTPUT = "nodeSetup"
"""The stack output with the labels, taints and ``kubectl`` commands of each pool whose nodes the library does
not create (``plans.node_setup``)."""


def render_node_setup(plan: Plan) -> str | None:
    """The "nodes to label and taint" section: each pool's commands from the ``nodeSetup`` output the program
    exported (``None`` when there is none: the library labels and taints the nodes it creates itself)."""
    setup = plan.outputs.get(NODE_SETUP_OUTPUT)
    if not isinstance(setup, dict) or not setup:
        return None
    lines = [
        f"Nodes to label and taint (the stack creates none of these pools' nodes; also `pulumi stack output "
        f"{NODE_SETUP_OUTPUT}`).",
        "Replace <pool-node> with the names of the pool's nodes; give nodes added later the same labels and taints:",
    ]
    for pool, entry in setup.items():
        commands = entry.get("commands") if isinstance(entry, dict) else None
        if isinstance(commands, list):
            lines += ["", f"  {pool}:", *(f"    {command}" for command in commands)]
    return "\n".join(lines)


def render_requires(plan: Plan) -> str | None:
    """The "needed beyond the stack" section: what the cluster or the cloud must offer that the stack does not
    create (the serving add-on's ``servingRequires`` output: a gateway's proxy-only subnet on a cluster made
    elsewhere, the weights' bucket grants, KEDA's read grant), each with the command or setting that provides it;
    ``None`` when the stack needs nothing it does not create."""
    requires = plan.outputs.get(REQUIRES_OUTPUT)
    if not isinstance(requires, list) or not requires:
        return None
    lines = [
        "Needed beyond the stack (it relies on these and creates none of them: check each before `pulumi up`; "
        f"also `pulumi stack output {REQUIRES_OUTPUT}`):"
    ]
    lines += [f"  - {item}" for item in requires]
    return "\n".join(lines)
