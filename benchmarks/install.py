"""Install size and time: a GKE-only platform (``gpu-platform[gke]``) against every cloud (``[all]``).

Real installs with pip into fresh virtualenvs in a temporary directory:

1. the checkout is built into a wheel (``pip wheel``) and everything ``[all]`` needs is downloaded
   once into a wheelhouse (``pip download``; this needs the network, and its time is printed);
2. each variant is installed into a new virtualenv from that wheelhouse only (``--no-index``), so
   the install time is pip's own work (resolve, unpack, byte-compile), not the network's;
3. per variant: the wheels it took and their download size, the size of the virtualenv's
   site-packages (and what the install added to a fresh virtualenv's pip and setuptools), the files
   it added, the install time, which cloud SDKs it contains and the largest packages;
4. the GKE-only virtualenv plans ``examples/gke-gpu-pools`` offline with its installed
   ``gpu-platform``, and an EKS program there stops with the one-line missing-extra error.

``[all]`` is what every install was before the cloud extras (all three SDKs were base
dependencies). Target: the GKE-only install at most 40% of that.

    python benchmarks/install.py [--keep]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
VARIANTS = ("gke", "all")
CLOUD_SDKS = ("pulumi_gcp", "pulumi_aws", "pulumi_azure_native")
TARGET_RATIO = 0.40
MB = 1_000_000


def run(
    *cmd: str | Path, cwd: Path | None = None, env: dict[str, str] | None = None
) -> tuple[float, str, int]:
    t = time.perf_counter()
    res = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, cwd=cwd, env=env)
    return time.perf_counter() - t, res.stdout + res.stderr, res.returncode


def check(step: str, result: tuple[float, str, int]) -> float:
    seconds, output, code = result
    if code != 0:
        raise SystemExit(f"{step} failed (exit {code}):\n{output[-3000:]}")
    return seconds


def tree_size(path: Path) -> tuple[int, int]:
    """(bytes, files) under ``path``, symlinks not followed."""
    total = files = 0
    for root, _, names in os.walk(path):
        for name in names:
            p = Path(root) / name
            if not p.is_symlink():
                total += p.stat().st_size
                files += 1
    return total, files


def canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def wheels_of(venv: Path, wheelhouse: Path) -> list[Path]:
    """The wheelhouse files of every distribution installed in ``venv``."""
    _, out, _ = run(venv / "bin" / "python", "-m", "pip", "list", "--format", "json")
    installed = {(canonical(d["name"]), d["version"]) for d in json.loads(out.strip().splitlines()[-1])}
    found = []
    for wheel in wheelhouse.iterdir():
        name, version = wheel.name.split("-")[:2]
        if (canonical(name), version) in installed:
            found.append(wheel)
    return found


def largest(venv: Path, n: int) -> list[tuple[str, int]]:
    """The ``n`` largest top-level entries of a virtualenv's site-packages."""
    root = site_packages(venv)
    sizes = [(p.name, tree_size(p)[0] if p.is_dir() else p.stat().st_size) for p in root.iterdir()]
    return sorted(sizes, key=lambda item: -item[1])[:n]


def site_packages(venv: Path) -> Path:
    return next((venv / "lib").glob("python3*/site-packages"))


def install(variant: str, tmp: Path, wheelhouse: Path) -> dict:
    venv = tmp / f"venv-{variant}"
    check(f"venv {variant}", run(sys.executable, "-m", "venv", venv))
    pip = (venv / "bin" / "python", "-m", "pip", "install", "--quiet", "--disable-pip-version-check")
    check("pip upgrade", run(*pip, "--no-index", "--find-links", wheelhouse, "--upgrade", "pip"))
    bare, bare_files = tree_size(site_packages(venv))  # pip and setuptools of the fresh virtualenv
    seconds = check(
        f"install [{variant}]",
        run(*pip, "--no-index", "--find-links", wheelhouse, f"gpu-platform[{variant}]"),
    )
    size, files = tree_size(site_packages(venv))
    wheels = wheels_of(venv, wheelhouse)
    probe = f"import importlib.util as u; print(' '.join(m for m in {CLOUD_SDKS!r} if u.find_spec(m)))"
    _, sdks, _ = run(venv / "bin" / "python", "-c", probe)
    return {
        "variant": variant,
        "venv": venv,
        "seconds": seconds,
        "installed_bytes": size,
        "added_bytes": size - bare,
        "files": files - bare_files,
        "wheels": len(wheels),
        "download_bytes": sum(w.stat().st_size for w in wheels),
        "cloud_sdks": sdks.split(),
    }


def plan_in(venv: Path, example: str, out: Path) -> tuple[float, str, int]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHONPATH", "PULUMI_CONFIG"))}
    return run(
        venv / "bin" / "gpu-platform",
        "plan",
        "--project",
        REPO / "examples" / example,
        "--stack",
        "example",
        "--out",
        out,
        env=env,
        cwd=out.parent,
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--keep", action="store_true", help="keep the temporary directory and print it")
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="gpu-platform-install-"))
    wheelhouse = tmp / "wheelhouse"
    try:
        print("== install size and time: GKE-only platform vs every cloud (pip, fresh virtualenvs)")
        built = check(
            "pip wheel",
            run(sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "-w", wheelhouse, REPO),
        )
        wheel = next(wheelhouse.glob("gpu_platform-*.whl"))
        fetched = check(
            "pip download",
            run(sys.executable, "-m", "pip", "download", "--quiet", "-d", wheelhouse, f"{wheel}[all]", "pip"),
        )
        total, _ = tree_size(wheelhouse)
        print(
            f"wheel of the checkout built in {built:.1f} s; wheelhouse for [all] downloaded in {fetched:.1f} s "
            f"({total / MB:.0f} MB)"
        )
        print(
            f"{'variant':9s} {'wheels':>6s} {'download':>9s} {'site-packages':>14s} {'added':>8s} {'files':>7s} "
            f"{'install':>8s}  cloud SDKs"
        )
        rows = {v: install(v, tmp, wheelhouse) for v in VARIANTS}
        for r in rows.values():
            print(
                f"{'[' + r['variant'] + ']':9s} {r['wheels']:6d} {r['download_bytes'] / MB:6.0f} MB "
                f"{r['installed_bytes'] / MB:11.0f} MB {r['added_bytes'] / MB:5.0f} MB {r['files']:7d} "
                f"{r['seconds']:6.1f} s  {' '.join(r['cloud_sdks'])}"
            )
        gke, every = rows["gke"], rows["all"]
        ratio = gke["installed_bytes"] / every["installed_bytes"]
        print(
            f"[gke] / [all]: site-packages {ratio:.2f} (target <= {TARGET_RATIO:.2f}), "
            f"added {gke['added_bytes'] / every['added_bytes']:.2f}, "
            f"download {gke['download_bytes'] / every['download_bytes']:.2f}, "
            f"install time {gke['seconds'] / every['seconds']:.2f}"
        )
        print("largest in [gke]: " + ", ".join(f"{n} {b / MB:.0f} MB" for n, b in largest(gke["venv"], 6)))
        others = [m for m in gke["cloud_sdks"] if m != "pulumi_gcp"]
        print(
            f"[gke] installs pulumi_aws or pulumi_azure_native: {'yes: ' + ' '.join(others) if others else 'no'}"
        )

        seconds, output, code = plan_in(gke["venv"], "gke-gpu-pools", tmp / "plan-gke")
        if code == 0:
            count = len(json.loads((tmp / "plan-gke" / "plan.json").read_text())["resources"])
            print(
                f"[gke] venv plans examples/gke-gpu-pools offline: ok, {count} resources in {seconds:.1f} s"
            )
        else:
            print(f"[gke] venv plans examples/gke-gpu-pools offline: FAILED (exit {code})\n{output[-2000:]}")
        _, output, code = plan_in(gke["venv"], "eks-gpu-pools", tmp / "plan-eks")
        print(f"[gke] venv plans examples/eks-gpu-pools: exit {code}: {output.strip().splitlines()[-1]}")
        ok = ratio <= TARGET_RATIO and not others
        return 0 if ok else 1
    finally:
        if args.keep:
            print(f"kept {tmp}")
        else:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
