"""Benchmarks: what the library adds to Pulumi's own cost. Prints ratios measured in one run.

1. ``import gpu_platform`` vs ``import pulumi``, and which cloud SDK modules get loaded;
2. offline plan time of each stack vs a floor program that registers the same resources
   (same types, names, parents and inputs, same SDK modules imported) directly under the same mocks;
3. plan time for 1, 10, 50 and 100 GPU pools and the growth ratio t(100)/t(10);
4. peak memory (max RSS) of each plan;
5. ``make test`` wall time (skip with ``--skip-make-test``).

Every measurement runs in a fresh interpreter (median of ``--repeat`` runs). Standard library only,
plus the project's own plan runner. The targets are printed next to each figure.
"""

from __future__ import annotations

import argparse
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

# Runs one plan (library or floor) in a fresh interpreter; prints seconds, peak RSS KiB, resource count.
PLAN_SNIPPET = r"""
import json, resource, sys, time
sys.path.insert(0, {bench_dir!r})
import pulumi  # both sides pay for the SDK itself before the clock starts
from gpu_platform.offline.runner import run_plan, run_program
from floor import floor_program
mode, project, stack, config = {mode!r}, {project!r}, {stack!r}, {config!r}
spec = json.loads(open({spec_file!r}).read()) if mode == "floor" else None
t = time.perf_counter()
if mode == "library":
    plan = run_plan(project, stack, config_override=config)
    count = len(plan.resources)
else:
    plan = run_program(lambda: floor_program(spec))
    count = len(plan.resources)
elapsed = time.perf_counter() - t
print(json.dumps({{"seconds": elapsed, "rss_kib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, "resources": count}}))
"""


def run_snippet(code: str) -> str:
    res = subprocess.run([PY, "-c", code], capture_output=True, text=True, cwd=REPO)
    if res.returncode != 0:
        raise RuntimeError(res.stderr[-3000:])
    return res.stdout.strip().splitlines()[-1]


def median_import(module: str, repeat: int) -> tuple[float, int]:
    runs = [run_snippet(IMPORT_SNIPPET.format(module=module)).split() for _ in range(repeat)]
    return statistics.median(float(r[0]) for r in runs), int(runs[-1][1])


def measure_plan(
    mode: str, project: str, stack: str, config: dict | None, spec_file: str, repeat: int
) -> dict:
    code = PLAN_SNIPPET.format(
        bench_dir=str(REPO / "benchmarks"),
        mode=mode,
        project=project,
        stack=stack,
        config=config,
        spec_file=spec_file,
    )
    runs = [json.loads(run_snippet(code)) for _ in range(repeat)]
    return {
        "seconds": statistics.median(r["seconds"] for r in runs),
        "rss_mib": max(r["rss_kib"] for r in runs) / 1024,
        "resources": runs[-1]["resources"],
    }


def plan_spec(project: str, stack: str, config: dict | None, out: Path) -> None:
    """Record the library's registrations so the floor can replay exactly the same ones."""
    code = (
        "import json\nfrom gpu_platform.offline.runner import run_plan\n"
        f"plan = run_plan({project!r}, {stack!r}, config_override={config!r})\n"
        "rows = [dict(urn=r.urn, type=r.type, name=r.name, parent=r.parent, custom=r.custom, inputs=r.inputs,"
        " options=r.options)"
        " for r in plan.resources]\n"
        f"open({str(out)!r}, 'w').write(json.dumps(rows))\nprint(len(rows))"
    )
    run_snippet(code)


def scaled_config(n: int) -> dict:
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
                    "maxNodes": 2,
                    "sharing": {"mode": "mig", "mig": {"layout": "all-balanced"}},
                }
            )
    queues = [
        {"name": f"q{g}", "pools": [p["name"] for p in pools[g * 10 : (g + 1) * 10]]}
        for g in range((n + 9) // 10)
    ]
    return {
        "gpu-platform:cloud": "gke",
        "gpu-platform:cluster": {"name": "bench", "project": "bench", "region": "us-central1"},
        "gpu-platform:gpuPools": pools,
        "gpu-platform:kueue": {"clusterQueues": queues},
        "gcp:project": "bench",
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--skip-make-test", action="store_true")
    ap.add_argument("--stacks", default="dev,staging,prod")
    args = ap.parse_args()
    tmp = REPO / "build" / "bench"
    tmp.mkdir(parents=True, exist_ok=True)

    print(f"== 1. import cost (median of {args.repeat} fresh interpreters)")
    t_pulumi, _ = median_import("pulumi", args.repeat)
    t_lib, clouds = median_import("gpu_platform, gpu_platform.stack.program", args.repeat)
    print(f"import pulumi            {t_pulumi:6.3f} s")
    print(f"import gpu_platform      {t_lib:6.3f} s   (+{t_lib - t_pulumi:.3f} s; target <= +0.300 s)")
    print(f"cloud SDK modules loaded by import gpu_platform: {clouds} (target 0)")

    print("\n== 2. plan time vs floor (same resources registered directly, same mocks)")
    stack_rows = []
    for stack in args.stacks.split(","):
        spec_file = tmp / f"{stack}.json"
        plan_spec(str(REPO), stack, None, spec_file)
        lib = measure_plan("library", str(REPO), stack, None, str(spec_file), args.repeat)
        floor = measure_plan("floor", str(REPO), stack, None, str(spec_file), args.repeat)
        ratio = lib["seconds"] / floor["seconds"]
        stack_rows.append((stack, lib, floor, ratio))
        print(
            f"{stack:8s} {lib['resources']:4d} resources  library {lib['seconds']:6.3f} s  floor "
            f"{floor['seconds']:6.3f} s  ratio {ratio:4.2f}x (target <= 1.30x)"
        )

    print("\n== 3. scaling with the number of GPU pools (GKE, operator config and Kueue flavors)")
    times = {}
    for n in (1, 10, 50, 100):
        cfg = scaled_config(n)
        spec_file = tmp / f"scale-{n}.json"
        res = measure_plan("library", str(REPO), "bench", cfg, str(spec_file), args.repeat)
        times[n] = res
        print(
            f"{n:4d} pools  {res['resources']:5d} resources  {res['seconds']:6.3f} s  peak RSS {res['rss_mib']:6.1f} MiB"
        )
    growth = times[100]["seconds"] / times[10]["seconds"]
    print(f"t(100 pools) / t(10 pools) = {growth:.2f} (target <= 12; linear would be 10)")

    print("\n== 4. peak memory of the plan (max RSS of the planning process)")
    for stack, lib, floor, _ in stack_rows:
        print(f"{stack:8s} library {lib['rss_mib']:6.1f} MiB   floor {floor['rss_mib']:6.1f} MiB")
    print(f"100 pools {times[100]['rss_mib']:6.1f} MiB")

    print("\n== 5. make test wall time")
    if args.skip_make_test:
        print("skipped (--skip-make-test)")
    else:
        t = time.perf_counter()
        res = subprocess.run(["make", "test"], cwd=REPO, capture_output=True, text=True)
        wall = time.perf_counter() - t
        status = "passed" if res.returncode == 0 else f"FAILED (exit {res.returncode})"
        print(f"make test: {wall:6.1f} s, {status} (target < 180 s on 2 cores)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
