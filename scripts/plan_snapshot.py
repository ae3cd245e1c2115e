"""Plan every stack and every example offline and fingerprint what was planned.

A refactor that must not change behaviour is checked with it: take a snapshot before, one after, and
compare. Every ``plan.json``, every Helm values file and every manifest is hashed byte for byte.

    python scripts/plan_snapshot.py write build/snapshot-before
    python scripts/plan_snapshot.py write build/snapshot-after
    python scripts/plan_snapshot.py compare build/snapshot-before build/snapshot-after

``compare`` prints one line per plan (``same`` or ``DIFFERS``) and exits 1 if any file differs.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import io
import json
import sys
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parent.parent


def _projects() -> list[tuple[str, Path, str]]:
    """(label, project directory, stack) for every stack of the repo and every example project."""
    found = [
        (f"stacks/{p.name.split('.')[1]}", REPO, p.name.split(".")[1])
        for p in sorted((REPO / "stacks").glob("Pulumi.*.yaml"))
    ]
    for project_file in sorted((REPO / "examples").glob("*/Pulumi.yaml")):
        project = project_file.parent
        for stack_file in sorted(project.glob("Pulumi.*.yaml")):
            found.append((f"examples/{project.name}", project, stack_file.name.split(".")[1]))
    return found


def _is_yaml_program(project: Path) -> bool:
    return (yaml.safe_load((project / "Pulumi.yaml").read_text()).get("runtime") or "") == "yaml"


def _digest_tree(root: Path) -> dict[str, str]:
    return {
        str(f.relative_to(root)): hashlib.sha256(f.read_bytes()).hexdigest()
        for f in sorted(root.rglob("*"))
        if f.is_file()
    }


def write(out: Path) -> int:
    from gpu_platform.cli import main

    out.mkdir(parents=True, exist_ok=True)
    index: dict[str, dict[str, object]] = {}
    for label, project, stack in _projects():
        if _is_yaml_program(project):
            continue
        target = out / label.replace("/", "__") / stack
        captured = io.StringIO()
        with contextlib.redirect_stdout(captured), contextlib.redirect_stderr(captured):
            code = main(["plan", "--project", str(project), "--stack", stack, "--out", str(target)])
        index[f"{label}:{stack}"] = {"exit": code, "files": _digest_tree(target) if target.exists() else {}}
        print(f"{label}:{stack}: exit {code}, {len(index[f'{label}:{stack}']['files'])} files")  # type: ignore[arg-type]
    (out / "index.json").write_text(json.dumps(index, indent=2, sort_keys=True) + "\n")
    return 0


def compare(before: Path, after: Path) -> int:
    a = json.loads((before / "index.json").read_text())
    b = json.loads((after / "index.json").read_text())
    differs = 0
    for key in sorted(set(a) | set(b)):
        if a.get(key) == b.get(key):
            print(f"same     {key} ({len(a[key]['files'])} files)")
            continue
        differs += 1
        print(f"DIFFERS  {key}")
        fa, fb = (a.get(key) or {}).get("files", {}), (b.get(key) or {}).get("files", {})
        for name in sorted(set(fa) | set(fb)):
            if fa.get(name) != fb.get(name):
                print(f"         {name}")
    print(f"{len(set(a) | set(b)) - differs} identical, {differs} different")
    return 1 if differs else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    sub = parser.add_subparsers(dest="command", required=True)
    w = sub.add_parser("write", help="plan everything into DIR and write DIR/index.json")
    w.add_argument("dir", type=Path)
    c = sub.add_parser("compare", help="compare two snapshot directories")
    c.add_argument("before", type=Path)
    c.add_argument("after", type=Path)
    args = parser.parse_args(argv)
    if args.command == "write":
        return write(args.dir)
    return compare(args.before, args.after)


if __name__ == "__main__":
    sys.exit(main())
