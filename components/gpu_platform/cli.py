"""``gpu-platform`` command line: ``plan`` (offline preview), ``diff`` (two plans), ``schema`` (of a stack file),
``policy-pack write`` (the policy pack as a directory for ``pulumi preview --policy-pack``), ``mirror`` (what a
mirror of the stack's charts and images must hold), ``size`` (the pool, slice and parallelism a model needs) and
``verify`` (a live cluster against the plan)."""

import argparse
import dataclasses
import json
import os
import sys
import traceback
from pathlib import Path
from typing import Any

EXIT_CODES = """\
exit codes:
  0  success (for diff: nothing flagged)
  1  a mandatory policy violation (plan --policy), or the program failed (verify: the cluster could not be read)
  2  invalid input: project, stack file, config, component arguments, plan directory, or a cloud
     SDK the program needs is not installed (the message names the extra: gpu-platform[gke]); for verify
     also the kubeconfig, the --snapshot file, or the Kubernetes client (gpu-platform[verify])
  3  diff flagged a change: destructive (removal or replacement of stateful resources, data a rule says
     is deleted), disruptive (what the add-ons' and clouds' declared rules say reconfigures GPUs, reloads a
     driver, replaces nodes, ends jobs or strands queued work: docs/day2.md) or blocked (protect, an
     admission webhook, the cloud's API); verify found drift (an error finding: docs/day2.md)
"""


def _emit(text: str) -> None:
    """Print to stdout; once the reader has gone (``| head``) the rest is dropped quietly."""
    try:
        sys.stdout.write(text + "\n")
        sys.stdout.flush()
    except BrokenPipeError:
        _stdout_to_devnull()


def _stdout_to_devnull() -> None:
    # Python's documented recipe (signal docs, "Note on SIGPIPE"): point stdout at devnull so the
    # flush at exit does not raise again.
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)


def _err(text: str) -> None:
    print(text, file=sys.stderr)


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split())


def _plan_failed(exc: Exception, args: argparse.Namespace) -> int:
    """Report why the program could not be planned, in one line per problem; the exit code."""
    import pulumi

    from gpu_platform.errors import ConfigError
    from gpu_platform.offline.errors import PlanInputError
    from gpu_platform.offline.sdk_internals import SdkMismatch
    from gpu_platform.sdk import MissingExtraError

    if isinstance(exc, (PlanInputError, MissingExtraError)):
        _err(f"error: {exc}")
        return 2
    if isinstance(exc, ConfigError):
        _err(f"error: invalid configuration for stack '{args.stack}':")
        _err(str(exc))
        return 2
    if isinstance(exc, pulumi.InputPropertiesError):
        component = getattr(exc, "component", "")
        _err(
            f"error: invalid arguments for {component}:"
            if component
            else "error: invalid component arguments:"
        )
        for item in exc.errors or []:
            _err(f"  {item['property_path']}: {item['reason']}")
        if not exc.errors:
            _err(f"  {_one_line(exc)}")
        return 2
    if isinstance(exc, SdkMismatch):
        _err(f"error: {exc}")
        return 1
    if args.debug:
        traceback.print_exception(exc)
    _err(f"error: the program failed: {type(exc).__name__}: {_one_line(exc)}")
    if not args.debug:
        _err("hint: re-run with --debug to see the traceback")
    return 1


def _cmd_plan(args: argparse.Namespace) -> int:
    from gpu_platform.offline import (
        plan_document,
        render_node_setup,
        render_requires,
        render_tree,
        run_plan,
        write_plan,
    )

    project = Path(args.project) if args.project else Path.cwd()
    out = Path(args.out) if args.out else project / "build" / "plan" / args.stack
    try:
        plan = run_plan(project, args.stack, config_file=args.config_file, use_env_config=args.use_env_config)
    except Exception as exc:
        return _plan_failed(exc, args)
    write_plan(plan, out)
    if args.render:
        from gpu_platform.offline.chart_cache import default_cache, fetch_charts
        from gpu_platform.offline.render import RenderError, render_releases

        charts = Path(args.charts) if args.charts else project / "tests" / "upstream" / "charts"
        try:
            if not args.charts and not charts.is_dir():  # no checkout: the pinned charts, fetched once
                charts = default_cache()
                for line in fetch_charts(plan, charts):
                    _err(line)
            rendered = render_releases(plan, charts, out)
        except RenderError as exc:
            _err(f"error: {exc}")
            return 2
        for line in rendered:
            _err(f"rendered {line}")
    if args.format == "json":
        _emit(json.dumps(plan_document(plan), indent=2, sort_keys=True))
    else:
        _emit(render_tree(plan))
        if (node_setup := render_node_setup(plan)) is not None:
            _emit(f"\n{node_setup}")
        if (requires := render_requires(plan)) is not None:
            _emit(f"\n{requires}")
        _emit(f"\nPlan written to {out / 'plan.json'}")
    if args.policy:
        from gpu_platform.policy.offline import check_plan, policy_config
        from gpu_platform.policy.rules import RULES

        try:
            config, levels = policy_config(_read_policy_config(args.policy_config))
        except (OSError, ValueError) as exc:  # PolicyConfigError and YAML errors are ValueErrors
            _err(f"error: --policy-config {args.policy_config}: {_one_line(exc)}")
            return 2
        violations = check_plan(plan, config, levels)
        for v in violations:
            _err(f"{v.level}: [{v.policy}] {v.urn}: {v.message}")
        # Always one closing line, so a clean run is told apart from a run that skipped the rules.
        _err(_policy_summary(violations, len(RULES), len(plan.resources)))
        if any(v.level == "mandatory" for v in violations):
            return 1
    return 0


def _read_policy_config(path: str | None) -> Any:
    """The ``--policy-config`` file (JSON or YAML, as ``pulumi preview --policy-pack-config`` takes), or ``{}``."""
    if path is None:
        return {}
    import yaml

    return yaml.safe_load(Path(path).read_text()) or {}


def _cmd_mirror(args: argparse.Namespace) -> int:
    from gpu_platform.errors import Problems
    from gpu_platform.offline.mirror_list import RENDERERS, mirror_listing, stack_mirror
    from gpu_platform.resolve.mirror import resolve_mirror

    project = Path(args.project) if args.project else Path.cwd()
    try:
        mirror = stack_mirror(project, args.stack, args.config_file, args.use_env_config)
        if args.charts is not None or args.images is not None:
            p = Problems()
            given = {"charts": args.charts or mirror.charts, "images": args.images or mirror.images}
            mirror = resolve_mirror({k: v for k, v in given.items() if v}, p.at("mirror")) or mirror
            p.raise_for_config()
        listing = mirror_listing(project, args.stack, args.config_file, args.use_env_config, mirror)
    except Exception as exc:
        return _plan_failed(exc, args)
    _emit(RENDERERS[args.format](listing))
    return 0


def _cmd_verify(args: argparse.Namespace) -> int:
    from gpu_platform.sdk import MissingExtraError
    from gpu_platform.verify.findings import findings, subjects
    from gpu_platform.verify.load import load_expected
    from gpu_platform.verify.reader import ClusterError, KubeconfigError
    from gpu_platform.verify.report import junit, summary, table
    from gpu_platform.verify.source import SnapshotFileError, save_snapshot, smoke_findings, take_snapshot

    project = Path(args.project) if args.project else Path.cwd()
    try:
        expected = load_expected(project, args.stack, args.config_file, args.use_env_config)
    except Exception as exc:
        return _plan_failed(exc, args)
    if args.nccl_image:
        expected = dataclasses.replace(expected, nccl_image=args.nccl_image)
    try:
        snapshot = take_snapshot(expected, args.kubeconfig, args.context, args.snapshot)
        smoke = smoke_findings(expected, args) if args.smoke else []
    except (KubeconfigError, SnapshotFileError, MissingExtraError) as exc:
        _err(f"error: {exc}")
        return 2
    except ClusterError as exc:
        _err(f"error: {exc}")
        return 1
    if args.save_snapshot:
        save_snapshot(snapshot, args.save_snapshot)
    found, checked = findings(expected, snapshot) + smoke, subjects(expected, smoke=args.smoke)
    if args.junit:
        Path(args.junit).write_text(junit(found, checked, f"gpu-platform verify {args.stack}"))
    _emit(table(found))
    _err(summary(found, len(checked)))
    return 3 if any(f.severity == "error" for f in found) else 0


def _policy_summary(violations: list[Any], rules: int, resources: int) -> str:
    """``policy: ...`` after the violations: how many of each level, or that every rule passed."""
    checked = f"{rules} rules on {resources} resources"
    if not violations:
        return f"policy: passed, no violations ({checked})"
    mandatory = sum(1 for v in violations if v.level == "mandatory")
    advisory = len(violations) - mandatory
    verdict = "failed" if mandatory else "passed with advisories"
    return f"policy: {verdict}, {mandatory} mandatory and {advisory} advisory violations ({checked})"


def _cmd_diff(args: argparse.Namespace) -> int:
    from gpu_platform.offline.diff import diff_dirs, render
    from gpu_platform.offline.errors import PlanInputError

    try:
        result = diff_dirs(Path(args.base), Path(args.head))
    except PlanInputError as exc:
        _err(f"error: {exc}")
        return 2
    _emit(render(result, args.format))
    return 3 if result.flagged else 0


def _cmd_schema(args: argparse.Namespace) -> int:
    from gpu_platform.stack.schema import json_schema, stack_file_schema

    _emit(json.dumps(json_schema() if args.keys else stack_file_schema(), indent=2, sort_keys=True))
    return 0


def _cmd_policy_pack_write(args: argparse.Namespace) -> int:
    from gpu_platform import __version__
    from gpu_platform.policy.project import PackExists, write_pack

    try:
        written = write_pack(
            Path(args.directory),
            __version__,
            requirement=args.requirement,
            virtualenv=args.virtualenv,
            force=args.force,
        )
    except PackExists as exc:
        _err(f"error: {exc}")
        return 2
    for w in written:
        _emit(f"{'wrote' if w.changed else 'unchanged'} {w.path}")
    _emit(f"run it with: pulumi preview --policy-pack {args.directory}")
    return 0


def _add_policy_pack_parser(sub: Any, fmt: Any) -> None:
    pp = sub.add_parser(
        "policy-pack",
        help="the policy pack (the rules of `plan --policy`) as a directory for `pulumi preview --policy-pack`",
    )
    pp_sub = pp.add_subparsers(dest="action", required=True)
    w = pp_sub.add_parser(
        "write",
        help="write __main__.py, PulumiPolicy.yaml and requirements.txt into DIRECTORY",
        description="Write a policy pack that runs the installed library's rules: "
        "`pulumi preview --policy-pack DIRECTORY` then enforces what `gpu-platform plan --policy` checks.",
        epilog=EXIT_CODES,
        formatter_class=fmt,
    )
    w.add_argument("directory", metavar="DIRECTORY")
    w.add_argument(
        "--requirement",
        metavar="SPEC",
        help="what the pack's virtualenv installs (default: gpu-platform[policy]==<installed version>); "
        "e.g. 'gpu-platform[policy] @ git+https://github.com/gpu-platform/gpu-platform@v0.1.0'",
    )
    w.add_argument(
        "--virtualenv",
        default="venv",
        metavar="PATH",
        help="the pack's virtualenv, relative to DIRECTORY (default: venv)",
    )
    w.add_argument("--force", action="store_true", help="replace files that differ")
    w.set_defaults(func=_cmd_policy_pack_write)


def _add_plan_parser(sub: Any, fmt: Any) -> None:
    """The ``plan`` subcommand and its options, kept apart so ``build_parser`` fits a screen."""
    p = sub.add_parser(
        "plan",
        help="render what `pulumi up` would create, offline (no cloud, no CLI)",
        description="Run the Pulumi project's program under mocks for one stack and write plan.json, "
        "Helm values and manifests.",
        epilog=EXIT_CODES,
        formatter_class=fmt,
    )
    p.add_argument("--project", help="Pulumi project directory (default: the current directory)")
    p.add_argument(
        "--stack", default="dev", help="stack name; config from Pulumi.<stack>.yaml (default: dev)"
    )
    p.add_argument("--out", help="output directory (default: <project>/build/plan/<stack>)")
    p.add_argument("--format", choices=("text", "json"), default="text")
    p.add_argument(
        "--policy", action="store_true", help="also run the policy rules; exit 1 on a mandatory violation"
    )
    p.add_argument(
        "--policy-config",
        metavar="FILE",
        help="JSON or YAML configuring the rules as `pulumi preview --policy-pack-config` does "
        '(e.g. {"mirror-required": {"images": "registry.acme/mirror"}}); with --policy',
    )
    p.add_argument(
        "--config-file",
        metavar="FILE",
        help="YAML with a config: mapping (like a stack file) applied over the stack file; use it for "
        "values a Pulumi ESC environment (environment:) would provide",
    )
    p.add_argument(
        "--use-env-config",
        action="store_true",
        help="also read PULUMI_CONFIG / PULUMI_CONFIG_SECRET_KEYS from the environment (ignored by default "
        "so the plan is reproducible)",
    )
    p.add_argument("--debug", action="store_true", help="show the traceback when the program fails")
    p.add_argument(
        "--render",
        action="store_true",
        help="also render every Helm release offline into <out>/rendered/<release>/ (needs the [render] extra)",
    )
    p.add_argument(
        "--charts",
        metavar="DIR",
        help="unpacked charts named <chart>-<version> for --render (default: <project>/tests/upstream/charts "
        "in a checkout, else each release's chart fetched at its pin into ~/.cache/gpu-platform/charts, "
        "or $GPU_PLATFORM_CHART_CACHE)",
    )
    p.set_defaults(func=_cmd_plan)


def _add_diff_parser(sub: Any, fmt: Any) -> None:
    """The ``diff`` subcommand and its options, kept apart so ``build_parser`` fits a screen."""
    d = sub.add_parser(
        "diff",
        help="compare two plan directories: added, removed, changed, replaced; flag what evicts or destroys",
        description="Compare BASE_DIR/plan.json with HEAD_DIR/plan.json (as written by `plan`).",
        epilog=EXIT_CODES,
        formatter_class=fmt,
    )
    d.add_argument("base", metavar="BASE_DIR")
    d.add_argument("head", metavar="HEAD_DIR")
    d.add_argument("--format", choices=("text", "json", "markdown"), default="text")
    d.set_defaults(func=_cmd_diff)


def _add_schema_parser(sub: Any) -> None:
    """The ``schema`` subcommand and its options, kept apart so ``build_parser`` fits a screen."""
    s = sub.add_parser(
        "schema",
        help="print the JSON schema of a Pulumi.<stack>.yaml (gpu-platform:<key> settings under config:)",
        description="Print the JSON schema of a whole stack file: top-level config: with the "
        "gpu-platform:<key> settings (other namespaces' keys allowed). Point the YAML language server "
        "at it for Pulumi.*.yaml, or validate in CI (check-jsonschema --schemafile).",
    )
    s.add_argument(
        "--keys",
        action="store_true",
        help="the schema of the gpu-platform settings object alone (keys without the namespace)",
    )
    s.set_defaults(func=_cmd_schema)


def _add_mirror_parser(sub: Any, fmt: Any) -> None:
    """The ``mirror`` subcommand: what a mirror of the stack must hold."""
    m = sub.add_parser(
        "mirror",
        help="list every chart and image the stack installs, and where each goes in its mirror",
        description="Plan the stack offline without its mirror setting and list each Helm chart (at its pinned "
        "version) and each image (at its pinned tag) it installs, with its place in the mirror (the stack file's "
        "mirror, or --charts/--images). --format script prints helm pull/push and crane copy lines.",
        epilog=EXIT_CODES,
        formatter_class=fmt,
    )
    m.add_argument("--project", help="Pulumi project directory (default: the current directory)")
    m.add_argument("--stack", default="dev", help="stack name (default: dev)")
    m.add_argument("--config-file", metavar="FILE", help="config applied over the stack file, as for plan")
    m.add_argument("--use-env-config", action="store_true", help="also read PULUMI_CONFIG, as for plan")
    m.add_argument("--charts", metavar="URL", help="chart mirror (oci://... or https://...) over the stack's")
    m.add_argument(
        "--images", metavar="REGISTRY", help="image mirror (registry.acme/mirror) over the stack's"
    )
    m.add_argument("--format", choices=("text", "json", "script"), default="text")
    m.add_argument("--debug", action="store_true", help="show the traceback when the program fails")
    m.set_defaults(func=_cmd_mirror)


def _cmd_size(args: argparse.Namespace) -> int:
    from gpu_platform.addons.kserve.llm_sizing import Request, SizingError
    from gpu_platform.offline.size_report import ARCHITECTURE, cli_pools, model_of, size_report, stack_raw

    try:
        model = model_of(args.model, {k: getattr(args, k) for k in ARCHITECTURE})
        if args.pool:
            pools = cli_pools(args.pool)
        else:
            from gpu_platform.stack.spec import load_platform

            project = Path(args.project) if args.project else Path.cwd()
            pools = list(load_platform(stack_raw(project, args.stack, args.config_file, False)).pools)
        request = Request(model, args.precision, args.context, args.concurrency)
        _emit(size_report(request, pools, args.format))
    except SizingError as exc:
        _err(f"error: {exc}")
        return 2
    except Exception as exc:
        return _plan_failed(exc, args)
    return 0


def _add_size_parser(sub: Any, fmt: Any) -> None:
    """The ``size`` subcommand: the sizing step for one model."""
    z = sub.add_parser(
        "size",
        help="the pool, GPU or MIG slice, parallelism and vLLM arguments one replica of a model needs",
        description="Size MODEL (a catalog key such as llama-3.1-70b, or a Hugging Face ID with its numbers) for "
        "vLLM: weights + KV cache + headroom, the smallest shape of the pools (--pool, or a stack file's "
        "gpuPools with --stack) that holds it, and --tensor-parallel-size, --pipeline-parallel-size, "
        "--max-model-len, --gpu-memory-utilization. docs/serving.md gives the formulas.",
        epilog=EXIT_CODES,
        formatter_class=fmt,
    )
    z.add_argument("model", metavar="MODEL")
    z.add_argument("--precision", choices=("bf16", "fp16", "fp8", "int4"), default="bf16")
    z.add_argument(
        "--context", type=int, help="--max-model-len (default: the model's max_position_embeddings)"
    )
    z.add_argument("--concurrency", type=int, default=1, help="sequences held at once at full context")
    z.add_argument("--pool", action="append", metavar="GPU:GPUS[:NODES]", help="a whole-GPU pool (repeat)")
    z.add_argument("--stack", default="dev", help="without --pool: the stack file whose gpuPools to use")
    z.add_argument("--project", help="Pulumi project directory (default: the current directory)")
    z.add_argument("--config-file", metavar="FILE", help="config applied over the stack file, as for plan")
    for flag, key, kind in (
        ("--params", "params_b", float),
        ("--layers", "layers", int),
        ("--heads", "attention_heads", int),
        ("--kv-heads", "kv_heads", int),
        ("--head-dim", "head_dim", int),
        ("--max-context", "max_context", int),
    ):
        z.add_argument(
            flag, dest=key, type=kind, help="a model outside the catalog: its config.json's number"
        )
    z.add_argument("--format", choices=("text", "json"), default="text")
    z.add_argument("--debug", action="store_true", help="show the traceback when the program fails")
    z.set_defaults(func=_cmd_size)


def _add_verify_parser(sub: Any, fmt: Any) -> None:
    """The ``verify`` subcommand: a live cluster against the stack's plan."""
    v = sub.add_parser(
        "verify",
        help="compare a live cluster with the stack's plan: GPU nodes, Kueue, releases, GPU Operator operands",
        description="Plan the stack offline, read the cluster through the Kubernetes API (the [verify] extra) and "
        "report every difference: GPU nodes per pool with their labels (the device-plugin config label), taints "
        "and allocatable GPUs for the pool's sharing; ClusterQueues Active with the planned quotas, ResourceFlavors "
        "and LocalQueues; each Helm release deployed at its pin; the GPU Operator's validator and DCGM exporter on "
        "every GPU node. docs/day2.md: Verify a live cluster.",
        epilog=EXIT_CODES,
        formatter_class=fmt,
    )
    v.add_argument("--project", help="Pulumi project directory (default: the current directory)")
    v.add_argument("--stack", default="dev", help="stack name (default: dev)")
    v.add_argument("--config-file", metavar="FILE", help="config applied over the stack file, as for plan")
    v.add_argument("--use-env-config", action="store_true", help="also read PULUMI_CONFIG, as for plan")
    v.add_argument("--kubeconfig", metavar="FILE", help="default: $KUBECONFIG, then ~/.kube/config")
    v.add_argument("--context", help="the kubeconfig context (default: its current context)")
    v.add_argument("--snapshot", metavar="FILE", help="compare a --save-snapshot file instead of a cluster")
    v.add_argument("--save-snapshot", metavar="FILE", help="also write what was read as JSON")
    v.add_argument("--junit", metavar="FILE", help="also write the result as JUnit XML for CI")
    v.add_argument(
        "--smoke",
        action="store_true",
        help="also run NVIDIA's CUDA vectorAdd sample on one GPU of each pool, and an NCCL all-reduce across two "
        "nodes of each multi-node whole-GPU pool, each submitted through a LocalQueue that admits it (Jobs are "
        "created, awaited and deleted)",
    )
    v.add_argument("--smoke-timeout", type=float, default=900, metavar="SECONDS", help="(default: 900)")
    v.add_argument(
        "--nccl-image",
        metavar="IMAGE",
        help="the image the NCCL all-reduce runs in (default: the pinned NGC PyTorch image, from the stack's mirror "
        "when it has one); it needs torchrun, and on EFA pools the aws-ofi-nccl plugin, or NCCL falls back to TCP "
        "(reported as an error)",
    )
    v.add_argument("--debug", action="store_true", help="show the traceback when the program fails")
    v.set_defaults(func=_cmd_verify)


def build_parser() -> argparse.ArgumentParser:
    fmt = argparse.RawDescriptionHelpFormatter
    parser = argparse.ArgumentParser(
        prog="gpu-platform", description=__doc__, epilog=EXIT_CODES, formatter_class=fmt
    )
    sub = parser.add_subparsers(dest="command", required=True)
    _add_plan_parser(sub, fmt)
    _add_diff_parser(sub, fmt)
    _add_schema_parser(sub)
    _add_policy_pack_parser(sub, fmt)
    _add_mirror_parser(sub, fmt)
    _add_verify_parser(sub, fmt)
    _add_size_parser(sub, fmt)
    return parser


def main(argv: list[str] | None = None) -> int:
    args: Any = build_parser().parse_args(argv)
    try:
        return int(args.func(args))
    except BrokenPipeError:
        _stdout_to_devnull()
        return 141
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
