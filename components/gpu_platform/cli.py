"""``gpu-platform`` command line: ``plan`` (offline preview) and ``schema`` (stack config JSON schema)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]


def _cmd_plan(args: argparse.Namespace) -> int:
    from gpu_platform.errors import ConfigError
    from gpu_platform.plan import plan_document, render_tree, run_plan, write_plan

    project = Path(args.project or REPO_ROOT)
    out = Path(args.out) if args.out else project / "build" / "plan" / args.stack
    try:
        plan = run_plan(project, args.stack)
    except ConfigError as exc:
        print(f"error: invalid configuration for stack '{args.stack}':", file=sys.stderr)
        print(str(exc), file=sys.stderr)
        return 2
    except FileNotFoundError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    write_plan(plan, out)
    if args.format == "json":
        print(json.dumps(plan_document(plan), indent=2, sort_keys=True))
    else:
        print(render_tree(plan))
        print(f"\nPlan written to {out / 'plan.json'}")
    if args.policy:
        from gpu_platform.policy.offline import check_plan

        violations = check_plan(plan)
        for v in violations:
            print(f"{v.level}: [{v.policy}] {v.urn}: {v.message}", file=sys.stderr)
        if any(v.level == "mandatory" for v in violations):
            return 1
    return 0


def _cmd_schema(_: argparse.Namespace) -> int:
    from gpu_platform.stack.schema import json_schema

    print(json.dumps(json_schema(), indent=2, sort_keys=True))
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="gpu-platform", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("plan", help="render what `pulumi up` would create, offline (no cloud, no CLI)")
    p.add_argument("--project", help="Pulumi project directory (default: this repository)")
    p.add_argument(
        "--stack", default="dev", help="stack name; config from Pulumi.<stack>.yaml (default: dev)"
    )
    p.add_argument("--out", help="output directory (default: <project>/build/plan/<stack>)")
    p.add_argument("--format", choices=("text", "json"), default="text")
    p.add_argument(
        "--policy", action="store_true", help="also run the policy rules; exit 1 on a mandatory violation"
    )
    p.set_defaults(func=_cmd_plan)
    s = sub.add_parser("schema", help="print the JSON schema of the gpu-platform: stack config")
    s.set_defaults(func=_cmd_schema)
    args = parser.parse_args(argv)
    return int(args.func(args))


if __name__ == "__main__":
    sys.exit(main())
