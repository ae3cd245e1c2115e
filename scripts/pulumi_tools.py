"""The Pulumi CLI and the Kubernetes provider, built from their Go modules for ``pulumi up`` in the tests.

``tools/pulumi/cli`` (``github.com/pulumi/pulumi/pkg/v3``, ``cmd/pulumi``) and ``tools/pulumi/kubernetes``
(``github.com/pulumi/pulumi-kubernetes/provider/v4``, ``cmd/pulumi-resource-kubernetes``) are Go main modules
whose go.mod/go.sum pin every version; ``build()`` runs ``go build -trimpath`` once into
``$GPU_PLATFORM_CACHE`` (or ``~/.cache/gpu-platform``) ``/pulumi/<cli version>/<pin>/bin`` and later runs reuse
it.
Two modules, not one: the provider is built against the Pulumi SDK its own go.mod names (v3.215.0), which
one module shared with the CLI (v3.274.0) would raise.

Versions. The Python SDKs are pulumi 3.272.x and pulumi_kubernetes 4.34.x (pyproject.toml); the Go module proxy
serves neither at those versions, so the nearest it serves is built (``PINS`` says which and why). Any CLI at or
above the SDK's version runs that SDK; the provider is found on ``PATH`` (Pulumi's "ambient" plugins, whatever
version the program asks for), so ``env()`` puts the cache folder first on ``PATH``.

The Python language host (``github.com/pulumi/pulumi/sdk/python/cmd/pulumi-language-python/v3``) is not built:
the proxy refuses that module at every version. The tests run the stack program through the Automation API's
inline programs instead, whose language runtime is the Python SDK itself (``pulumi up --client``).

    python scripts/pulumi_tools.py build    # build into the cache (minutes the first time)
    python scripts/pulumi_tools.py where    # the folder holding the binaries (exit 1 when not built)
"""

from __future__ import annotations

import argparse
import fcntl
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
TOOLS = REPO / "tools" / "pulumi"
GO_TOOLCHAIN = "go1.27.3"
"""pkg/v3 v3.274.0 says ``go 1.26.6``; Go fetches this toolchain through the module proxy."""


@dataclass(frozen=True)
class Pin:
    """One binary: the Go module that provides it, the version it reports and why that version."""

    folder: str
    binary: str
    module: str
    package: str
    release: str
    """The release the binary reports (``pulumi version``, the provider's ``GetPluginInfo``)."""
    ldflags: str
    why: str


PINS = (
    Pin(
        "cli",
        "pulumi",
        "github.com/pulumi/pulumi/pkg/v3",
        "github.com/pulumi/pulumi/pkg/v3/cmd/pulumi",
        "3.274.0",
        # As pulumi/pulumi's release build stamps it (its Makefile's -ldflags).
        "-X github.com/pulumi/pulumi/sdk/v3/go/common/version.Version=v{release}",
        "the proxy serves pkg/v3 v3.260.0 and v3.274.0 onwards, none of v3.261.0-v3.273.0 (403): v3.274.0 is "
        "the nearest at or above the Python SDK's 3.272",
    ),
    Pin(
        "kubernetes",
        "pulumi-resource-kubernetes",
        "github.com/pulumi/pulumi-kubernetes/provider/v4",
        "github.com/pulumi/pulumi-kubernetes/provider/v4/cmd/pulumi-resource-kubernetes",
        "4.25.0",
        # pulumi/pulumi-kubernetes's Makefile stamps the provider's version package the same way.
        "-X github.com/pulumi/pulumi-kubernetes/provider/v4/pkg/version.Version={release}",
        "the proxy serves provider/v4 only as v4.0.0-20260115033456-f47bc2d6f199 (no tagged versions: the "
        "repository tags releases at its root, v4.x.y, not provider/v4.x.y); that commit is tag v4.25.0",
    ),
)


class BuildError(RuntimeError):
    """A binary did not build; the message carries the tail of Go's output."""


def cache_root() -> Path:
    base = os.environ.get("GPU_PLATFORM_CACHE") or str(Path.home() / ".cache" / "gpu-platform")
    return Path(base) / "pulumi"


def _digest() -> str:
    """Both modules' go.mod, go.sum and Go files and the pins: a changed pin builds afresh."""
    digest = hashlib.sha256(repr(PINS).encode())
    for path in sorted(TOOLS.rglob("*")):
        if path.is_file() and path.suffix in (".mod", ".sum", ".go"):
            digest.update(path.relative_to(TOOLS).as_posix().encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:12]


def install_root() -> Path:
    """``pulumi/<cli version>/<provider version and pins digest>``: laid out as a Pulumi install (``bin/pulumi``),
    the ``root`` of the Automation API's ``PulumiCommand``."""
    return cache_root() / PINS[0].release / f"kubernetes-{PINS[1].release}-{_digest()}"


def bin_dir() -> Path:
    """Where the binaries are (built or not)."""
    return install_root() / "bin"


def binaries() -> dict[str, Path]:
    return {pin.binary: bin_dir() / pin.binary for pin in PINS}


def missing() -> str | None:
    """Why ``pulumi up`` cannot run here, or ``None``."""
    absent = [name for name, path in binaries().items() if not path.exists()]
    if absent:
        return f"{', '.join(absent)} not built (make pulumi-tools, about 17 minutes on 2 cores; needs Go)"
    return None


def env(base: dict[str, str] | None = None) -> dict[str, str]:
    """``base`` (the process's environment) with the built binaries first on ``PATH``: the CLI, and the
    provider as an ambient plugin."""
    out = dict(os.environ if base is None else base)
    out["PATH"] = f"{bin_dir()}{os.pathsep}{out.get('PATH', '')}"
    return out


def _go_env() -> dict[str, str]:
    out = dict(os.environ)
    out["GOTOOLCHAIN"] = GO_TOOLCHAIN
    # go.mod and go.sum are complete (``go mod tidy`` with the ``tools`` build tag): a build never edits them.
    out["GOFLAGS"] = (out.get("GOFLAGS", "") + " -mod=readonly").strip()
    return out


def _go(args: list[str], cwd: Path, timeout: float) -> str:
    try:
        done = subprocess.run(
            ["nice", "-n", "19", "go", *args],
            cwd=cwd,
            env=_go_env(),
            capture_output=True,
            text=True,
            timeout=timeout,
        )
    except subprocess.TimeoutExpired as e:
        raise BuildError(f"go {' '.join(args[:2])} in {cwd} did not finish within {timeout:.0f}s") from e
    if done.returncode != 0:
        raise BuildError(f"go {' '.join(args[:2])} in {cwd} failed:\n{done.stderr[-4000:]}")
    return done.stdout


def build(log: Callable[[str], None] = print, timeout: float = 3600) -> dict[str, Path]:
    """Every binary in the cache, building what is missing; one build at a time across processes."""
    out = bin_dir()
    out.mkdir(parents=True, exist_ok=True)
    with open(cache_root() / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        for pin in PINS:
            if not (out / pin.binary).exists():
                _build(pin, out, log, timeout)
    return binaries()


def _build(pin: Pin, out: Path, log: Callable[[str], None], timeout: float) -> None:
    started = time.monotonic()
    log(f"pulumi tools: building {pin.binary} {pin.release} into {out} ({pin.why})")
    staging = Path(tempfile.mkdtemp(prefix=".build-", dir=out))
    ldflags = f"-s -w {pin.ldflags.format(release=pin.release)}"
    try:
        if pin.folder == "kubernetes":
            src = _provider_main(pin, staging, timeout)
            _go(
                ["build", "-trimpath", f"-ldflags={ldflags}", "-o", str(staging / pin.binary), "."],
                src,
                timeout,
            )
        else:
            cmd = ["build", "-trimpath", f"-ldflags={ldflags}", "-o", str(staging / pin.binary), pin.package]
            _go(cmd, TOOLS / pin.folder, timeout)
        os.replace(staging / pin.binary, out / pin.binary)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    size = (out / pin.binary).stat().st_size / 2**20
    log(f"pulumi tools: built {pin.binary} in {time.monotonic() - started:.0f}s ({size:.0f} MiB)")


def _provider_main(pin: Pin, staging: Path, timeout: float) -> Path:
    """The provider's main package in a build folder of ``tools/pulumi/kubernetes``'s module: its main.go
    embeds ``schema-embed.json`` and ``terraform-mapping-embed.json``, which its Makefile generates (``go
    generate``: cmd/pulumi-resource-kubernetes/generate.go, pulumi-kubernetes v4.25.0) and the module zip
    lacks; they are made here as that generator makes them (the schema with its ``version`` set, both
    re-serialised compactly)."""
    module = TOOLS / pin.folder
    # ``go mod download`` rather than ``go list -m``: on a fresh machine the module is not yet in the module
    # cache, and ``go list -m -json`` then prints no ``Dir``.
    listing = _go(["mod", "download", "-json", pin.module], module, timeout)
    upstream = Path(json.loads(listing)["Dir"]) / "cmd" / pin.binary
    src = staging / "src"
    src.mkdir()
    for name in ("go.mod", "go.sum"):
        shutil.copy(module / name, src / name)
    shutil.copy(upstream / "main.go", src / "main.go")
    schema = json.loads((upstream / "schema.json").read_text())
    schema["version"] = pin.release
    (src / "schema-embed.json").write_text(json.dumps(schema, separators=(",", ":")))
    mapping = json.loads((upstream / "terraform-mapping.json").read_text())
    (src / "terraform-mapping-embed.json").write_text(json.dumps(mapping, separators=(",", ":")))
    return src


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("command", choices=["build", "where"])
    args = parser.parse_args(argv)
    if args.command == "where":
        if reason := missing():
            print(reason, file=sys.stderr)
            return 1
        print(bin_dir())
        return 0
    started = time.monotonic()
    try:
        built = build()
    except BuildError as e:
        print(e, file=sys.stderr)
        return 1
    for name, path in built.items():
        print(f"{name}: {path} ({path.stat().st_size / 2**20:.0f} MiB)")
    print(f"ready in {time.monotonic() - started:.0f}s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
