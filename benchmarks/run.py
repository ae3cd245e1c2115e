"""Benchmarks: what the library adds to Pulumi's own cost. Prints ratios measured in one run.

1. ``import gpu_platform`` vs ``import pulumi``, and which cloud SDK modules get loaded;
2. offline plan time of each stack vs a floor program that registers the same resources with the same SDK
   classes (types, names, parents, inputs, options, providers, dependencies) and no library logic, under the
   same mocks (``floor.py``);
3. plan time, peak memory and plan.json size for 10, 100 and 1,000 GPU pools with as many ClusterQueues
   (cohorts of 10) and teams, and the growth ratio t(1,000)/t(100); for the largest size also the floor's
   time and memory, what the SDK alone costs for those resources;
4. the time to refuse an invalid config of 1,000 queues in one cohort (each would list 1,000 flavors);
5. peak memory (max RSS) of each plan;
6. ``make test`` wall time (skip with ``--skip-make-test``).

Every measurement runs in a fresh interpreter (median of ``--repeat`` runs; the stack ratios also as the
ratio of each side's fastest run, the least disturbed on a shared machine). The package is byte-compiled
first, as installing a wheel does, so no run pays for compiling the library's sources. Standard library only,
plus the project's own plan runner. The targets are printed next to each figure.
"""

from __future__ import annotations

import argparse
import compileall
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PY = sys.executable

IMPORT_SNIPPET = """
import sys, time
t = time.perf_counter()
import {module}
elapsed = time.perf_counter() - t
clouds = sorted(m for m in sys.modules if m.split('.')[0] in ('pulumi_aws', 'pulumi_gcp', 'pulumi_azure_native'))
print(elapsed, len(clouds))
"""

# Runs one plan (library, floor, or a config the library must refuse) in a fresh interpreter; prints
# seconds, peak RSS KiB, the RSS the plan added to what was loaded before the clock started (Linux; the
# floor loads its recorded spec first), resource count, dependsOn links and the plan.json size (bytes).
PLAN_SNIPPET = r"""
import json, resource, sys, time
def rss_kib(field):
    try:
        return next(int(l.split()[1]) for l in open("/proc/self/status") if l.startswith(field + ":"))
    except (OSError, StopIteration):
        return 0
sys.path.insert(0, {bench_dir!r})
import pulumi  # both sides pay for the SDK itself before the clock starts
from gpu_platform.errors import ConfigError
from gpu_platform.offline.output import plan_document
from gpu_platform.offline.runner import run_plan, run_program
from floor import floor_program
mode, project, stack, config_file = {mode!r}, {project!r}, {stack!r}, {config_file!r}
config = json.loads(open(config_file).read()) if config_file else None
spec = json.loads(open({spec_file!r}).read()) if mode == "floor" else None
before = rss_kib("VmRSS")
t, cpu = time.perf_counter(), time.process_time()
if mode == "refuse":
    try:
        run_plan(project, stack, config_override=config)
        raise SystemExit("the invalid config was planned")
    except ConfigError as exc:
        plan, count = None, len(exc.problems)
elif mode == "library":
    plan = run_plan(project, stack, config_override=config)
    count = len(plan.resources)
else:
    plan = run_program(lambda: floor_program(spec))
    count = len(plan.resources)
elapsed, cpu = time.perf_counter() - t, time.process_time() - cpu
rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
added = rss_kib("VmHWM") - before if before else 0
size = len(json.dumps(plan_document(plan), indent=2, sort_keys=True)) + 1 if plan is not None else 0
links = sum(len(r.depends_on) for r in plan.resources) if plan is not None else 0
print(json.dumps({{"seconds": elapsed, "cpu": cpu, "rss_kib": rss, "added_kib": added, "resources": count, "bytes": size, "links": links}}))
"""


def run_snippet(code: str) -> str:
    res = subprocess.run([PY, "-c", code], capture_output=True, text=True, cwd=REPO)
    if res.returncode != 0:
        raise RuntimeError(res.stderr[-3000:])
    return res.stdout.strip().splitlines()[-1]


def median_import(module: str, repeat: int) -> tuple[float, int]:
    runs = [run_snippet(IMPORT_SNIPPET.format(module=module)).split() for _ in range(repeat)]
    return statistics.median(float(r[0]) for r in runs), int(runs[-1][1])


def _config_file(config: dict | None, spec_file: str) -> str | None:
    """The config override as a file: a 1,000-pool config does not fit on a command line."""
    if config is None:
        return None
    path = Path(f"{spec_file}.config.json")
    path.write_text(json.dumps(config))
    return str(path)


def measure_plan(
    mode: str, project: str, stack: str, config: dict | None, spec_file: str, repeat: int
) -> dict:
    code = PLAN_SNIPPET.format(
        bench_dir=str(REPO / "benchmarks"),
        mode=mode,
        project=project,
        stack=stack,
        config_file=_config_file(config, spec_file),
        spec_file=spec_file,
    )
    runs = [json.loads(run_snippet(code)) for _ in range(repeat)]
    return {
        "seconds": statistics.median(r["seconds"] for r in runs),
        "cpu": statistics.median(r["cpu"] for r in runs),
        "best": min(r["seconds"] for r in runs),
        "rss_mib": max(r["rss_kib"] for r in runs) / 1024,
        "added_mib": max(r["added_kib"] for r in runs) / 1024,
        "resources": runs[-1]["resources"],
        "mb": runs[-1]["bytes"] / 1e6,
        "links": runs[-1]["links"],
    }


def measure_paired(
    project: str, stack: str, spec_file: str, repeat: int, config: dict | None = None
) -> tuple[dict, dict, dict]:
    """Library and floor alternately (library, floor, library, ...), so both see the same machine load.

    Besides each side's median (and its highest peak memory), returns the ratios a shared machine disturbs
    least: the median of the ratios of back-to-back pairs (wall and CPU time) and the ratio of each side's
    fastest run."""
    lib_runs, floor_runs = [], []
    for _ in range(repeat):
        lib_runs.append(measure_plan("library", project, stack, config, spec_file, 1))
        floor_runs.append(measure_plan("floor", project, stack, None, spec_file, 1))

    def median(runs: list[dict]) -> dict:
        return {
            **runs[-1],
            "seconds": statistics.median(r["seconds"] for r in runs),
            "best": min(r["seconds"] for r in runs),
            "rss_mib": max(r["rss_mib"] for r in runs),
            "added_mib": max(r["added_mib"] for r in runs),
        }

    pairs = list(zip(lib_runs, floor_runs, strict=True))
    ratios = {
        "wall": statistics.median(lib["seconds"] / floor["seconds"] for lib, floor in pairs),
        "cpu": statistics.median(lib["cpu"] / floor["cpu"] for lib, floor in pairs),
        "fastest": min(r["seconds"] for r in lib_runs) / min(r["seconds"] for r in floor_runs),
    }
    return median(lib_runs), median(floor_runs), ratios


def plan_spec(project: str, stack: str, config: dict | None, out: Path) -> None:
    """Record the library's registrations, with the SDK class of each, so the floor replays the same ones."""
    config_file = _config_file(config, str(out))
    code = (
        f"import json, sys\nsys.path.insert(0, {str(REPO / 'benchmarks')!r})\n"
        "from floor import recording_classes\nfrom gpu_platform.offline.runner import run_plan\n"
        f"config = json.loads(open({config_file!r}).read()) if {config_file!r} else None\n"
        "with recording_classes() as classes:\n"
        f"    plan = run_plan({project!r}, {stack!r}, config_override=config)\n"
        "rows = [dict(urn=r.urn, type=r.type, name=r.name, parent=r.parent, custom=r.custom, inputs=r.inputs,"
        " options=r.options, provider=r.provider, dependsOn=r.depends_on, **classes[(r.type, r.name)])"
        " for r in plan.resources]\n"
        f"open({str(out)!r}, 'w').write(json.dumps(rows))\nprint(len(rows))"
    )
    run_snippet(code)


def scaled_config(n: int, cohort_size: int = 10) -> dict:
    """``n`` GKE pools (time-sliced L4s and MIG H100s), one ClusterQueue per pool and one team per queue; the MIG
    pools' queues in cohorts of ``cohort_size`` (a time-sliced pool other teams could borrow is refused: time-slicing
    isolates no memory). ``cohort_size = n`` (more than Kueue's 64 flavors) is refused."""
    pools = []
    for i in range(n):
        if i % 2 == 0:
            pools.append(
                {
                    "name": f"l4-{i}",
                    "machineType": "g2-standard-8",
                    "maxNodes": 4,
                    "spot": True,
                    "sharing": {"mode": "time-slicing", "replicas": 4},
                }
            )
        else:
            pools.append(
                {
                    "name": f"h100-{i}",
                    "machineType": "a3-highgpu-8g",
                    "minNodes": 1,  # operator-MIG pools do not scale up from zero on GKE
                    "maxNodes": 2,
                    "sharing": {"mode": "mig", "mig": {"layout": "all-balanced"}},
                }
            )
    queues = [
        {"name": f"q{i}", "pools": [p["name"]], **({"cohort": f"c{i // cohort_size}"} if i % 2 else {})}
        for i, p in enumerate(pools)
    ]
    teams = [{"name": f"team-{i}", "clusterQueue": f"q{i}"} for i in range(n)]
    return {
        "gpu-platform:cloud": "gke",
        "gpu-platform:cluster": {"name": "bench", "project": "bench", "region": "us-central1"},
        "gpu-platform:gpuPools": pools,
        "gpu-platform:kueue": {"clusterQueues": queues, "teams": teams},
        "gcp:project": "bench",
    }


def stack_section(stacks: list[str], tmp: Path, repeat: int) -> list[tuple[str, dict, dict, float]]:
    print(
        f"\n== 2. plan time vs floor (same resources, same SDK classes, no library logic; paired, {repeat} runs)"
    )
    rows = []
    for stack in stacks:
        spec_file = tmp / f"{stack}.json"
        plan_spec(str(REPO), stack, None, spec_file)
        lib, floor, ratios = measure_paired(str(REPO), stack, str(spec_file), repeat)
        rows.append((stack, lib, floor, ratios["wall"]))
        print(
            f"{stack:8s} {lib['resources']:4d} resources  library {lib['seconds']:6.3f} s  floor "
            f"{floor['seconds']:6.3f} s  ratio (median of pairs) {ratios['wall']:4.2f}x wall, "
            f"{ratios['cpu']:4.2f}x CPU; fastest runs {ratios['fastest']:4.2f}x (target <= 1.10x)"
        )
    return rows


def scaling_section(sizes: list[int], tmp: Path, repeat: int) -> dict[int, dict]:
    print("\n== 3. scaling: n GPU pools, n ClusterQueues (cohorts of 10), n teams (GKE)")
    times = {}
    largest = max(sizes)
    for n in sizes:
        if n == largest:  # paired with the floor, which replays this size's registrations
            spec_file = tmp / f"scale-{largest}.spec.json"
            plan_spec(str(REPO), "bench", scaled_config(largest), spec_file)
            res, floor, ratios = measure_paired(
                str(REPO), "bench", str(spec_file), repeat, scaled_config(largest)
            )
        else:
            res = measure_plan(
                "library", str(REPO), "bench", scaled_config(n), str(tmp / f"scale-{n}"), repeat
            )
        times[n] = res
        print(
            f"{n:5d} pools/queues  {res['resources']:5d} resources  {res['links']:6d} dependsOn  "
            f"{res['seconds']:7.3f} s  peak RSS {res['rss_mib']:7.1f} MiB  plan.json {res['mb']:7.2f} MB"
        )
    print(
        f"{largest:5d} floor (SDK only)  {floor['resources']:5d} resources  {floor['seconds']:7.3f} s  peak RSS "
        f"{floor['rss_mib']:7.1f} MiB, {floor['added_mib']:.1f} MiB added (library: {res['rss_mib']:.1f} MiB peak, "
        f"{res['added_mib']:.1f} MiB added); library/floor {ratios['wall']:.2f}x wall, {ratios['cpu']:.2f}x CPU "
        "(median of pairs)"
    )
    if 1000 in times:
        big = times[1000]
        print(
            f"1,000 x 1,000: {big['seconds']:.1f} s (target <= 20 s), {big['rss_mib']:.0f} MiB (target <= 500 MB)"
        )
    if 100 in times and 1000 in times:
        growth = times[1000]["seconds"] / times[100]["seconds"]
        print(f"t(1,000) / t(100) = {growth:.2f} (target <= 12; linear would be 10)")
    return times


def refusal_section(n: int, tmp: Path, repeat: int) -> None:
    if n <= 0:
        return
    print(f"\n== 4. refusing an invalid config: {n:,} queues in one cohort")
    res = measure_plan(
        "refuse", str(REPO), "bench", scaled_config(n, cohort_size=n), str(tmp / "refuse"), repeat
    )
    print(f"refused with {res['resources']} problems in {res['seconds']:.3f} s (target < 5 s)")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--skip-make-test", action="store_true")
    ap.add_argument("--stacks", default="dev,staging,prod")
    ap.add_argument("--sizes", default="10,100,1000", help="pools (= queues = teams) per scaling plan")
    ap.add_argument("--refuse", type=int, default=1000, help="queues in the one-cohort invalid config")
    args = ap.parse_args()
    tmp = REPO / "build" / "bench"
    tmp.mkdir(parents=True, exist_ok=True)
    compileall.compile_dir(REPO / "components" / "gpu_platform", quiet=1)

    print(f"== 1. import cost (median of {args.repeat} fresh interpreters)")
    t_pulumi, _ = median_import("pulumi", args.repeat)
    t_lib, clouds = median_import("gpu_platform, gpu_platform.stack.program", args.repeat)
    print(f"import pulumi            {t_pulumi:6.3f} s")
    print(f"import gpu_platform      {t_lib:6.3f} s   (+{t_lib - t_pulumi:.3f} s; target <= +0.300 s)")
    print(f"cloud SDK modules loaded by import gpu_platform: {clouds} (target 0)")

    stack_rows = stack_section(args.stacks.split(","), tmp, args.repeat)
    sizes = [int(n) for n in args.sizes.split(",")]
    times = scaling_section(sizes, tmp, args.repeat)
    refusal_section(args.refuse, tmp, args.repeat)

    print("\n== 5. peak memory of the plan (max RSS of the planning process)")
    for stack, lib, floor, _ in stack_rows:
        print(f"{stack:8s} library {lib['rss_mib']:6.1f} MiB   floor {floor['rss_mib']:6.1f} MiB")
    for n, res in times.items():
        print(f"{n:5d} pools/queues {res['rss_mib']:7.1f} MiB")

    print("\n== 6. make test wall time")
    if args.skip_make_test:
        print("skipped (--skip-make-test)")
    else:
        t = time.perf_counter()
        proc = subprocess.run(["make", "test"], cwd=REPO, capture_output=True, text=True)
        wall = time.perf_counter() - t
        status = "passed" if proc.returncode == 0 else f"FAILED (exit {proc.returncode})"
        print(f"make test: {wall:6.1f} s, {status} (target < 180 s on 2 cores)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
