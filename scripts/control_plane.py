"""A local Kubernetes control plane for the tests, built from upstream Go modules at pinned versions.

``tools/control-plane/kubernetes`` (k8s.io/kubernetes with its staging modules as ``k8s.io/<module>``
requirements, and an embedded etcd) and ``tools/control-plane/controllers`` (Kueue, kwok, JobSet) are Go main modules
whose go.mod/go.sum pin every version; ``build()`` runs ``go build -trimpath`` once into a cache folder keyed
by those files (``$GPU_PLATFORM_CACHE`` or ``~/.cache/gpu-platform``, then ``control-plane/<pin>/bin``) and
later runs reuse it. ``ControlPlane`` starts etcd, kube-apiserver, kube-scheduler, kube-controller-manager and
kwok on 127.0.0.1 with free ports and a bearer token, writes a kubeconfig, and stops them; ``start_kueue``
adds Kueue's controller with its webhooks served on loopback, ``start_jobset`` JobSet's. Every wait is bounded.

    python scripts/control_plane.py build      # build into the cache (minutes the first time)
    python scripts/control_plane.py up         # start, print the kubeconfig path, stop on Ctrl-C
"""

from __future__ import annotations

import argparse
import fcntl
import hashlib
import json
import os
import secrets
import shutil
import signal
import socket
import ssl
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
TOOLS = REPO / "tools" / "control-plane"


@dataclass(frozen=True)
class GoModule:
    """One Go main module under ``tools/control-plane`` and the binaries built from it."""

    folder: str
    packages: dict[str, str]
    """Binary name -> Go package."""
    stamp: tuple[str, ...] = ()
    """``-X`` settings for ``-ldflags``: the version the binaries report (``/version``), as the upstream
    release build sets it (kubernetes ``hack/lib/version.sh``)."""

    def ldflags(self) -> str:
        version = module_version(self)
        major, minor = version.lstrip("v").split(".")[:2]
        stamps = (s.format(version=version, major=major, minor=minor) for s in self.stamp)
        return " ".join(["-s", "-w", *(f"-X {s}" for s in stamps)])


MODULES = (
    GoModule(
        "kubernetes",
        {
            "etcd": "./etcd",
            "kube-apiserver": "k8s.io/kubernetes/cmd/kube-apiserver",
            "kube-scheduler": "k8s.io/kubernetes/cmd/kube-scheduler",
            "kube-controller-manager": "k8s.io/kubernetes/cmd/kube-controller-manager",
        },
        (
            "k8s.io/component-base/version.gitVersion={version}",
            "k8s.io/component-base/version.gitMajor={major}",
            "k8s.io/component-base/version.gitMinor={minor}",
            "k8s.io/component-base/version.gitTreeState=clean",
            "k8s.io/client-go/pkg/version.gitVersion={version}",
            "k8s.io/client-go/pkg/version.gitMajor={major}",
            "k8s.io/client-go/pkg/version.gitMinor={minor}",
        ),
    ),
    GoModule(
        "controllers",
        {
            "kueue": "sigs.k8s.io/kueue/cmd/kueue",
            "kwok": "sigs.k8s.io/kwok/cmd/kwok",
            # JobSet's manager is its module's root package (sigs.k8s.io/jobset v0.12.0 main.go).
            "jobset": "sigs.k8s.io/jobset",
        },
    ),
)
TOKEN_USER = "gpu-platform-admin"
APPLY_PATCH = "application/apply-patch+yaml"
STRICT_DECODING = "strict decoding error: "
"""What the API server's message says when ``fieldValidation=Strict`` refuses a request body's fields
(k8s.io/apimachinery v0.36.3 pkg/runtime/error.go, ``strictDecodingError``), after ``<Kind> in version "<v>"
cannot be handled as a <Kind>: `` (k8s.io/apiserver v0.36.3 pkg/endpoints/handlers/rest.go,
``transformDecodeError``)."""


class ControlPlaneError(RuntimeError):
    """A component did not build or start; the message carries the tail of its log."""


def cache_root() -> Path:
    base = os.environ.get("GPU_PLATFORM_CACHE") or str(Path.home() / ".cache" / "gpu-platform")
    return Path(base) / "control-plane"


def pin(module: GoModule) -> str:
    """The cache key of one module: its main dependency's version and a digest of its go.mod, go.sum and Go
    sources, so a bumped pin builds afresh and an unchanged one is reused."""
    folder = TOOLS / module.folder
    digest = hashlib.sha256(module.ldflags().encode())
    for path in sorted(folder.rglob("*")):
        if path.is_file() and path.suffix in (".mod", ".sum", ".go"):
            digest.update(path.relative_to(folder).as_posix().encode() + b"\0" + path.read_bytes())
    return f"{module.folder}-{module_version(module)}-{digest.hexdigest()[:12]}"


def module_version(module: GoModule) -> str:
    """The version ``go.mod`` requires of the module's first binary's module (k8s.io/kubernetes, ...)."""
    main = next(p for p in module.packages.values() if not p.startswith("."))
    for line in (TOOLS / module.folder / "go.mod").read_text().splitlines():
        parts = line.split()
        if len(parts) >= 2 and main.startswith(parts[0] + "/"):
            return parts[1]
    raise ControlPlaneError(f"tools/control-plane/{module.folder}/go.mod does not require {main}")


def binaries() -> dict[str, Path]:
    """Binary name -> where the cache keeps it (built or not)."""
    return {name: cache_root() / pin(m) / name for m in MODULES for name in m.packages}


def go_available() -> bool:
    return shutil.which("go") is not None


def _go_env() -> dict[str, str]:
    # The modules say ``go 1.26.0`` (as k8s.io/kubernetes v1.36.3 and sigs.k8s.io/kueue v0.19.2 do): an older
    # local Go fetches that toolchain through the module proxy (GOTOOLCHAIN=auto, Go's default).
    env = dict(os.environ)
    env["GOFLAGS"] = (env.get("GOFLAGS", "") + " -mod=mod").strip()
    return env


def build(log: Callable[[str], None] = print, timeout: float = 3600) -> dict[str, Path]:
    """Every binary in the cache, building what is missing; one build at a time across processes."""
    root = cache_root()
    root.mkdir(parents=True, exist_ok=True)
    with open(root / ".lock", "w") as lock:
        # Another process building: wait for it (bounded), then reuse what it built.
        wait_for("the build lock", lambda: _locked(lock), timeout, interval=1)
        for module in MODULES:
            out = root / pin(module)
            if any(not (out / name).exists() for name in module.packages):
                _build_module(module, out, log, timeout)
    return binaries()


def _locked(lock: Any) -> bool:
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True


def _build_module(module: GoModule, out: Path, log: Callable[[str], None], timeout: float) -> None:
    staging = Path(tempfile.mkdtemp(prefix=".build-", dir=out.parent))
    started = time.monotonic()
    names = list(module.packages)
    log(f"control plane: building {', '.join(names)} into {out} (the first build takes a while)")
    cmd = [
        "go",
        "build",
        "-trimpath",
        f"-ldflags={module.ldflags()}",
        "-o",
        str(staging) + "/",
        *module.packages.values(),
    ]
    try:
        done = subprocess.run(
            cmd, cwd=TOOLS / module.folder, env=_go_env(), capture_output=True, text=True, timeout=timeout
        )
        if done.returncode != 0:
            raise ControlPlaneError(f"go build of {names} failed:\n{done.stderr[-4000:]}")
        out.mkdir(parents=True, exist_ok=True)
        for name in names:
            os.replace(staging / name, out / name)
    except subprocess.TimeoutExpired as e:
        raise ControlPlaneError(f"go build of {names} did not finish within {timeout:.0f}s") from e
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    log(f"control plane: built {', '.join(names)} in {time.monotonic() - started:.0f}s")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_for(what: str, check: Callable[[], bool], timeout: float, interval: float = 0.2) -> None:
    """Poll ``check`` until true; ``TimeoutError`` naming ``what`` after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if check():
                return
        except (OSError, ValueError, KeyError, ApiError):
            pass
        time.sleep(interval)
    raise TimeoutError(f"{what} not ready within {timeout:.0f}s")


def openssl(*args: str) -> None:
    subprocess.run(["openssl", *args], check=True, capture_output=True, timeout=60)


KUEUE_CA = "kueue-ca"
KUEUE_WEBHOOK_DNS = "kueue-webhook-service.kueue-system.svc"
"""Kueue's internal certificate management keeps a certificate it finds in its Secret only if the CA verifies
for ``kueue-ca`` and the serving certificate for ``<webhook service>.<namespace>.svc``, both valid beyond its
90-day lookahead, with the CA key in PKCS#1 (sigs.k8s.io/kueue v0.19.2 pkg/util/cert/cert.go,
open-policy-agent/cert-controller v0.16.0 pkg/rotator/rotator.go); otherwise it makes its own, which names
no loopback address. So the CA and the serving certificate here satisfy both."""


def make_certs(folder: Path) -> None:
    """A CA, a serving certificate for 127.0.0.1 signed by it (kube-apiserver, Kueue's webhooks) and the
    service-account signing key: self-made with openssl."""
    f = {
        n: str(folder / n) for n in ("ca.key", "ca.crt", "tls.key", "tls.csr", "tls.crt", "sa.key", "sa.pub")
    }
    openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "3650", "-subj", f"/CN={KUEUE_CA}",
            "-addext", f"subjectAltName=DNS:{KUEUE_CA}", "-addext", "basicConstraints=critical,CA:TRUE",
            "-addext", "keyUsage=critical,keyCertSign,cRLSign", "-keyout", f["ca.key"], "-out", f["ca.crt"])  # fmt: skip
    openssl("rsa", "-in", f["ca.key"], "-traditional", "-out", f["ca.key"])
    openssl("req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=127.0.0.1", "-keyout", f["tls.key"],
            "-out", f["tls.csr"])  # fmt: skip
    ext = folder / "san.ext"
    ext.write_text(
        f"subjectAltName=IP:127.0.0.1,DNS:localhost,DNS:{KUEUE_WEBHOOK_DNS}\nextendedKeyUsage=serverAuth\n"
    )
    openssl("x509", "-req", "-in", f["tls.csr"], "-CA", f["ca.crt"], "-CAkey", f["ca.key"], "-CAcreateserial",
            "-days", "3650", "-extfile", str(ext), "-out", f["tls.crt"])  # fmt: skip
    openssl("genrsa", "-out", f["sa.key"], "2048")
    openssl("rsa", "-in", f["sa.key"], "-pubout", "-out", f["sa.pub"])


@dataclass
class Process:
    name: str
    popen: subprocess.Popen[bytes]
    log: Path

    def tail(self, lines: int = 30) -> str:
        try:
            return "\n".join(self.log.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return ""


@dataclass
class ControlPlane:
    """A running control plane: its kubeconfig, a small REST client and the processes it started."""

    folder: Path
    bin: dict[str, Path]
    port: int = 0
    etcd_url: str = ""
    token: str = field(default_factory=lambda: secrets.token_hex(16))
    processes: list[Process] = field(default_factory=list)
    _resources: dict[tuple[str, str], tuple[str, bool]] = field(default_factory=dict)

    @property
    def kubeconfig(self) -> Path:
        return self.folder / "kubeconfig"

    @property
    def server(self) -> str:
        return f"https://127.0.0.1:{self.port}"

    # --- processes -------------------------------------------------------------------------------

    def spawn(self, name: str, args: list[str], env: dict[str, str] | None = None) -> Process:
        log = self.folder / f"{name}.log"
        with open(log, "wb") as out:
            popen = subprocess.Popen(
                [str(self.bin[name]), *args],
                env={**os.environ, **(env or {})},
                stdout=out,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                cwd=self.folder,
                start_new_session=True,
            )
        process = Process(name, popen, log)
        self.processes.append(process)
        return process

    def alive(self, process: Process) -> bool:
        if process.popen.poll() is not None:
            raise ControlPlaneError(f"{process.name} exited ({process.popen.returncode}):\n{process.tail()}")
        return True

    def stop(self, timeout: float = 5) -> None:
        """SIGTERM every process started (newest first), SIGKILL what is left after ``timeout``."""
        for process in reversed(self.processes):
            if process.popen.poll() is None:
                process.popen.send_signal(signal.SIGTERM)
        deadline = time.monotonic() + timeout
        for process in reversed(self.processes):
            try:
                process.popen.wait(max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                process.popen.kill()
                process.popen.wait(5)
        self.processes.clear()

    # --- REST ------------------------------------------------------------------------------------

    def _context(self) -> ssl.SSLContext:
        return ssl.create_default_context(cafile=str(self.folder / "ca.crt"))

    def request(
        self, method: str, path: str, body: Any = None, content_type: str = "application/json"
    ) -> Any:
        """One API call; ``ApiError`` with the server's status on anything but 2xx. ``body`` is sent as JSON, or
        as it is when bytes (a YAML document the server is to parse itself)."""
        data = None if body is None else body if isinstance(body, bytes) else json.dumps(body).encode()
        req = urllib.request.Request(self.server + path, data=data, method=method)
        req.add_header("Authorization", f"Bearer {self.token}")
        req.add_header("Accept", "application/json")
        if data is not None:
            req.add_header("Content-Type", content_type)
        try:
            with urllib.request.urlopen(req, context=self._context(), timeout=30) as resp:
                text = resp.read()
        except urllib.error.HTTPError as e:
            raise ApiError(e.code, e.read().decode(errors="replace")) from None
        return json.loads(text) if text else None

    def get(self, path: str) -> Any:
        return self.request("GET", path)

    def resource_path(self, obj: dict[str, Any], *, named: bool = True) -> str:
        """The REST path of ``obj`` from discovery (refreshed once on a miss: a CRD just established)."""
        api_version, kind = obj["apiVersion"], obj["kind"]
        if (api_version, kind) not in self._resources:
            self._discover(api_version)
        if (api_version, kind) not in self._resources:
            raise ApiError(404, f"the server does not serve {kind} in {api_version}")
        plural, namespaced = self._resources[(api_version, kind)]
        base = f"/api/{api_version}" if "/" not in api_version else f"/apis/{api_version}"
        meta = obj.get("metadata", {})
        if namespaced:
            base += f"/namespaces/{meta.get('namespace') or 'default'}"
        return f"{base}/{plural}" + (f"/{meta['name']}" if named else "")

    def _discover(self, api_version: str) -> None:
        base = f"/api/{api_version}" if "/" not in api_version else f"/apis/{api_version}"
        try:
            listing = self.get(base)
        except ApiError:
            return
        for r in listing.get("resources", []):
            if "/" not in r["name"]:
                self._resources[(api_version, r["kind"])] = (r["name"], bool(r["namespaced"]))

    def apply_path(
        self, obj: dict[str, Any], *, dry_run: bool = False, manager: str = "gpu-platform-tests"
    ) -> str:
        """The server-side apply request of ``obj``: its REST path with ``fieldValidation=Strict``, so the server
        refuses a duplicate field in the patch rather than warn (the one check the directive adds to an apply;
        k8s.io/apiserver v0.36.3 pkg/endpoints/handlers/patch.go, ``applyPatchToCurrentObject``)."""
        query = {"fieldManager": manager, "force": "true", "fieldValidation": "Strict"}
        if dry_run:
            query["dryRun"] = "All"
        return self.resource_path(obj) + "?" + urllib.parse.urlencode(query)

    def check_fields(self, obj: dict[str, Any]) -> None:
        """``ApiError`` when strict decoding finds a field ``obj``'s schema does not declare, or one given twice.
        An apply does not say so for every such field: it refuses an undeclared field only where its schema's
        types leave none (structured-merge-diff's typed patch, k8s.io/apimachinery v0.36.3
        pkg/util/managedfields/internal/structuredmerge.go), and a custom resource's fields under an object
        schema with no properties (a controller-gen CRD's nested ``metadata``) pass that and are then pruned
        without a word, ``Strict`` or not. A create decodes its body strictly before anything else
        (k8s.io/apiserver v0.36.3 pkg/endpoints/handlers/create.go; pruned paths are strict decoding errors,
        k8s.io/apiextensions-apiserver v0.36.3 pkg/apiserver/customresource_handler.go), so ``obj`` is created
        as a dry run with ``fieldValidation=Strict`` and any other outcome (it exists, a webhook's answer) is
        left to the apply that follows."""
        query = urllib.parse.urlencode({"dryRun": "All", "fieldValidation": "Strict"})
        try:
            self.request("POST", self.resource_path(obj, named=False) + "?" + query, obj)
        except ApiError as e:
            if e.status == 400 and STRICT_DECODING in e.message:
                raise

    def apply_one(
        self, obj: dict[str, Any], *, dry_run: bool = False, manager: str = "gpu-platform-tests"
    ) -> Any:
        """Server-side apply (the API server's validation, defaulting, CEL rules and admission webhooks) of an
        object whose every field its schema declares once (``check_fields``); ``dry_run``: all of that, nothing
        stored."""
        self.check_fields(obj)
        path = self.apply_path(obj, dry_run=dry_run, manager=manager)
        return self.request("PATCH", path, obj, content_type=APPLY_PATCH)

    def try_apply(
        self, objects: Iterable[dict[str, Any]], *, dry_run: bool = False, manager: str = "gpu-platform-tests"
    ) -> list[Refusal]:
        """Apply every object as field manager ``manager``; the ones the server refused, with its message."""
        refused = []
        for obj in objects:
            try:
                self.apply_one(obj, dry_run=dry_run, manager=manager)
            except ApiError as e:
                refused.append(Refusal(obj["kind"], _name(obj), e.status, e.message))
        return refused

    def apply(self, objects: Iterable[dict[str, Any]], *, dry_run: bool = False) -> None:
        """Apply every object; ``ApplyError`` listing each refusal when the server refused any."""
        refused = self.try_apply(objects, dry_run=dry_run)
        if refused:
            raise ApplyError(refused)

    def delete(self, obj: dict[str, Any]) -> None:
        try:
            self.request("DELETE", self.resource_path(obj), {"propagationPolicy": "Background"})
        except ApiError as e:
            if e.status != 404:
                raise

    def wait_established(self, crds: Iterable[dict[str, Any]], timeout: float = 60) -> None:
        names = [c["metadata"]["name"] for c in crds]
        for name in names:
            path = f"/apis/apiextensions.k8s.io/v1/customresourcedefinitions/{name}"
            wait_for(f"CRD {name}", lambda p=path: _established(self.get(p)), timeout)  # type: ignore[misc]
        self._resources.clear()


def _established(crd: dict[str, Any]) -> bool:
    conds = (crd.get("status") or {}).get("conditions") or []
    return any(c["type"] == "Established" and c["status"] == "True" for c in conds)


def _name(obj: dict[str, Any]) -> str:
    meta = obj.get("metadata", {})
    return f"{meta['namespace']}/{meta['name']}" if meta.get("namespace") else str(meta.get("name"))


class ApiError(Exception):
    def __init__(self, status: int, message: str) -> None:
        super().__init__(f"{status}: {message}")
        self.status = status
        self.message = _status_message(message)


def _status_message(text: str) -> str:
    try:
        return str(json.loads(text).get("message", text))
    except ValueError:
        return text


@dataclass(frozen=True)
class Refusal:
    kind: str
    name: str
    status: int
    message: str

    def __str__(self) -> str:
        return f"{self.kind} {self.name}: {self.status} {self.message}"


class ApplyError(Exception):
    def __init__(self, refused: list[Refusal]) -> None:
        super().__init__("the API server refused:\n" + "\n".join(f"  {r}" for r in refused))
        self.refused = refused


# --- starting ------------------------------------------------------------------------------------


def start(folder: Path | None = None, *, timeout: float = 120) -> ControlPlane:
    """etcd, kube-apiserver, kube-scheduler, kube-controller-manager and kwok on 127.0.0.1, built if needed;
    stopped again (and ``ControlPlaneError`` raised with the failing log) if any is not ready in time."""
    built = build()
    folder = folder or Path(tempfile.mkdtemp(prefix="gpu-platform-cp-"))
    cp = ControlPlane(folder=folder, bin=built)
    try:
        make_certs(folder)
        _start_etcd(cp, timeout)
        _start_apiserver(cp, timeout)
        _write_kubeconfig(cp)
        _start_controllers(cp, timeout)
    except BaseException:
        cp.stop()
        raise
    return cp


def _start_etcd(cp: ControlPlane, timeout: float) -> None:
    client, peer = free_port(), free_port()
    cp.etcd_url = f"http://127.0.0.1:{client}"
    etcd = cp.spawn(
        "etcd",
        [
            f"--data-dir={cp.folder / 'etcd'}",
            f"--listen-client-url={cp.etcd_url}",
            f"--listen-peer-url=http://127.0.0.1:{peer}",
        ],
    )
    wait_for("etcd", lambda: cp.alive(etcd) and _http_ok(f"{cp.etcd_url}/health"), timeout)


def _http_ok(url: str, context: ssl.SSLContext | None = None, token: str | None = None) -> bool:
    req = urllib.request.Request(url)
    if token:
        req.add_header("Authorization", f"Bearer {token}")
    with urllib.request.urlopen(req, timeout=5, context=context) as resp:
        return bool(resp.status == 200)


def _start_apiserver(cp: ControlPlane, timeout: float) -> None:
    cp.port = free_port()
    f = cp.folder
    (f / "tokens.csv").write_text(f"{cp.token},{TOKEN_USER},{TOKEN_USER},system:masters\n")
    apiserver = cp.spawn(
        "kube-apiserver",
        [
            f"--etcd-servers={cp.etcd_url}",
            "--bind-address=127.0.0.1",
            "--advertise-address=127.0.0.1",
            f"--secure-port={cp.port}",
            f"--cert-dir={f / 'apiserver'}",
            f"--tls-cert-file={f / 'tls.crt'}",
            f"--tls-private-key-file={f / 'tls.key'}",
            f"--client-ca-file={f / 'ca.crt'}",
            f"--token-auth-file={f / 'tokens.csv'}",
            "--authorization-mode=RBAC",
            "--service-cluster-ip-range=10.96.0.0/16",
            f"--service-account-issuer=https://127.0.0.1:{cp.port}",
            f"--service-account-key-file={f / 'sa.pub'}",
            f"--service-account-signing-key-file={f / 'sa.key'}",
            # No token controller or kubelet here: pods need no service-account token mounted. No node
            # lifecycle controller either: kwok's nodes are Ready at once, so no not-ready taint to lift.
            "--disable-admission-plugins=ServiceAccount,TaintNodesByCondition",
            "--allow-privileged=true",
            "--profiling=false",
        ],
    )
    ready = cp.server + "/readyz"
    wait_for(
        "kube-apiserver", lambda: cp.alive(apiserver) and _http_ok(ready, cp._context(), cp.token), timeout
    )


def _write_kubeconfig(cp: ControlPlane) -> None:
    config = {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [
            {
                "name": "local",
                "cluster": {"server": cp.server, "certificate-authority": str(cp.folder / "ca.crt")},
            }
        ],
        "users": [{"name": TOKEN_USER, "user": {"token": cp.token}}],
        "contexts": [{"name": "local", "context": {"cluster": "local", "user": TOKEN_USER}}],
        "current-context": "local",
    }
    cp.kubeconfig.write_text(json.dumps(config, indent=2))


def _start_controllers(cp: ControlPlane, timeout: float) -> None:
    kubeconfig = f"--kubeconfig={cp.kubeconfig}"
    auth = [f"--authentication-kubeconfig={cp.kubeconfig}", f"--authorization-kubeconfig={cp.kubeconfig}"]
    common = [kubeconfig, *auth, "--leader-elect=false", "--bind-address=127.0.0.1"]
    ports = {"kube-scheduler": free_port(), "kube-controller-manager": free_port()}
    started = [cp.spawn("kube-scheduler", [*common, f"--secure-port={ports['kube-scheduler']}"])]
    # Only what the tests exercise: Jobs (Kueue's batch/job integration), Deployments, namespaces, GC.
    controllers = "job-controller,deployment-controller,replicaset-controller,namespace-controller,garbage-collector-controller,serviceaccount-controller"
    started.append(
        cp.spawn(
            "kube-controller-manager",
            [*common, f"--secure-port={ports['kube-controller-manager']}", f"--controllers={controllers}"],
        )
    )
    started.append(
        cp.spawn(
            "kwok",
            [
                kubeconfig,
                f"--config={TOOLS / 'controllers' / 'kwok-stages.yaml'}",
                "--manage-nodes-with-annotation-selector=kwok.x-k8s.io/node=fake",
                "--cidr=10.0.0.1/16",
                "--node-ip=10.0.0.1",
            ],
        )
    )
    # Their /healthz is served to anyone on the secure port (the components' always-allowed paths).
    insecure = ssl._create_unverified_context()
    for name, port in ports.items():
        url = f"https://127.0.0.1:{port}/healthz"
        wait_for(name, lambda u=url: all(map(cp.alive, started)) and _http_ok(u, insecure), timeout)  # type: ignore[misc]
    wait_for(
        "the default service account", lambda: all(map(cp.alive, started)) and _has_default_sa(cp), timeout
    )


def _has_default_sa(cp: ControlPlane) -> bool:
    cp.get("/api/v1/namespaces/default/serviceaccounts/default")
    return True


# --- Kueue ---------------------------------------------------------------------------------------


def start_kueue(cp: ControlPlane, chart_objects: list[dict[str, Any]], timeout: float = 120) -> Process:
    """Kueue's controller from its rendered chart (``chart_objects``): the CRDs and webhook configurations with
    the webhook service replaced by ``https://127.0.0.1:<port>``, the chart's own manager configuration with
    loopback ports, and its certificate Secret holding ours (``KUEUE_CA``; its rotator waits for the files in
    ``certDir`` as its pod would mount them). Started once per control plane."""
    return _start_controller(
        cp,
        LoopbackController(
            "kueue",
            "kueue-system",
            kueue_config,
            ("ca.crt", "tls.crt", "tls.key"),
            ("--feature-gates=VisibilityOnDemand=false",),
            lambda config: _kueue_cert_secret(cp, config),
        ),
        chart_objects,
        timeout,
    )


@dataclass(frozen=True)
class LoopbackController:
    """A controller-runtime manager run from its rendered chart as a process on loopback."""

    name: str
    """The binary and process name."""
    namespace: str
    configure: Callable[[list[dict[str, Any]], int, int, Path], dict[str, Any]]
    """The chart's manager configuration for a loopback process: (chart objects, webhook port, health port,
    certificate folder) -> Configuration."""
    cert_files: tuple[str, ...]
    """The files of ours its webhook server reads from ``certDir``."""
    args: tuple[str, ...] = ()
    secret: Callable[[dict[str, Any]], dict[str, Any]] | None = None
    """A Secret the controller reads its certificates from, made from its configuration."""


def _start_controller(
    cp: ControlPlane, c: LoopbackController, chart_objects: list[dict[str, Any]], timeout: float
) -> Process:
    """The chart's CRDs and webhook configurations pointed at ``https://127.0.0.1:<port>`` with our CA, then the
    controller with its configuration, once per control plane; bounded wait for its readiness."""
    running = [p for p in cp.processes if p.name == c.name and p.popen.poll() is None]
    if running:
        return running[0]
    port, health = free_port(), free_port()
    url, ca = f"https://127.0.0.1:{port}", _b64(cp.folder / "ca.crt")
    crds = [_on_loopback(o, url, ca) for o in chart_objects if o["kind"] == "CustomResourceDefinition"]
    cp.apply(crds)
    cp.wait_established(crds)
    cp.apply([{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": c.namespace}}])
    certs = cp.folder / f"{c.name}-certs"
    config = c.configure(chart_objects, port, health, certs)
    if c.secret is not None:
        cp.apply([c.secret(config)])
    certs.mkdir(exist_ok=True)
    for name in c.cert_files:
        shutil.copy(cp.folder / name, certs / name)
    webhooks = [o for o in chart_objects if o["kind"].endswith("WebhookConfiguration")]
    cp.apply([_on_loopback(o, url, ca) for o in webhooks])
    config_file = cp.folder / f"{c.name}-config.json"
    config_file.write_text(json.dumps(config, indent=2))
    process = cp.spawn(c.name, [f"--config={config_file}", *c.args], env={"KUBECONFIG": str(cp.kubeconfig)})
    ready = f"http://127.0.0.1:{health}/readyz"
    wait_for(c.name, lambda: cp.alive(process) and _http_ok(ready), timeout)
    return process


def _kueue_cert_secret(cp: ControlPlane, config: dict[str, Any]) -> dict[str, Any]:
    name = config["internalCertManagement"]["webhookSecretName"]
    files = {"ca.crt": "ca.crt", "ca.key": "ca.key", "tls.crt": "tls.crt", "tls.key": "tls.key"}
    return {
        "apiVersion": "v1",
        "kind": "Secret",
        "metadata": {"name": name, "namespace": "kueue-system"},
        "data": {key: _b64(cp.folder / file) for key, file in files.items()},
    }


def _b64(path: Path) -> str:
    import base64

    return base64.b64encode(path.read_bytes()).decode()


def _on_loopback(obj: dict[str, Any], url: str, ca: str) -> dict[str, Any]:
    """``obj`` with every ``clientConfig.service`` (webhooks, CRD conversion) turned into a loopback URL."""
    obj = json.loads(json.dumps(obj))

    def fix(client: dict[str, Any]) -> None:
        service = client.pop("service", None)
        if service is not None:
            client["url"] = url + service.get("path", "/")
            client["caBundle"] = ca

    for hook in obj.get("webhooks", []):
        fix(hook["clientConfig"])
    conversion = obj.get("spec", {}).get("conversion", {}).get("webhook")
    if conversion:
        fix(conversion["clientConfig"])
    return obj


def kueue_config(
    chart_objects: list[dict[str, Any]], port: int, health: int, cert_dir: Path
) -> dict[str, Any]:
    """The chart's ``controller_manager_config.yaml`` with what a loopback process needs changed."""
    import yaml

    maps = [
        o
        for o in chart_objects
        if o["kind"] == "ConfigMap" and o["metadata"]["name"].endswith("manager-config")
    ]
    if len(maps) != 1:
        raise ControlPlaneError("the rendered Kueue chart has no single kueue-manager-config ConfigMap")
    config: dict[str, Any] = yaml.safe_load(maps[0]["data"]["controller_manager_config.yaml"])
    config["internalCertManagement"] = {
        "enable": True,
        "webhookServiceName": KUEUE_WEBHOOK_DNS.split(".")[0],
        "webhookSecretName": config.get("internalCertManagement", {}).get(
            "webhookSecretName", "kueue-webhook-server-cert"
        ),
    }
    config["webhook"] = {"host": "127.0.0.1", "port": port, "certDir": str(cert_dir)}
    config["leaderElection"] = {"leaderElect": False}
    config["metrics"] = {"bindAddress": "0"}
    config["health"] = {"healthProbeBindAddress": f"127.0.0.1:{health}"}
    config["namespace"] = "kueue-system"
    return config


# --- JobSet --------------------------------------------------------------------------------------


def start_jobset(cp: ControlPlane, chart_objects: list[dict[str, Any]], timeout: float = 120) -> Process:
    """JobSet's controller from its rendered chart (``chart_objects``), as ``start_kueue`` runs Kueue. Its internal
    certificate management is off: it writes its serving certificate to a fixed ``/tmp`` folder and names only
    the in-cluster service (sigs.k8s.io/jobset v0.12.0 pkg/util/cert/cert.go), so the webhook server serves ours
    from ``webhook.certDir`` instead. Started once per control plane."""
    return _start_controller(
        cp,
        LoopbackController("jobset", "jobset-system", jobset_config, ("tls.crt", "tls.key")),
        chart_objects,
        timeout,
    )


def jobset_config(
    chart_objects: list[dict[str, Any]], port: int, health: int, cert_dir: Path
) -> dict[str, Any]:
    """The chart's ``controller_manager_config.yaml`` (JobSet's ``Configuration``) for a loopback process."""
    import yaml

    maps = [
        o
        for o in chart_objects
        if o["kind"] == "ConfigMap" and "controller_manager_config.yaml" in (o.get("data") or {})
    ]
    if len(maps) != 1:
        raise ControlPlaneError("the rendered JobSet chart has no single controller configuration ConfigMap")
    config: dict[str, Any] = yaml.safe_load(maps[0]["data"]["controller_manager_config.yaml"])
    config["internalCertManagement"] = {"enable": False}
    config["webhook"] = {"host": "127.0.0.1", "port": port, "certDir": str(cert_dir)}
    config["leaderElection"] = {"leaderElect": False}
    config["metrics"] = {"bindAddress": "0"}
    config["health"] = {"healthProbeBindAddress": f"127.0.0.1:{health}"}
    return config


def stop_process(cp: ControlPlane, name: str, timeout: float = 10) -> None:
    """Stop the running processes called ``name`` (Kueue, to start it again with another configuration)."""
    for process in [p for p in cp.processes if p.name == name]:
        if process.popen.poll() is None:
            process.popen.send_signal(signal.SIGTERM)
            try:
                process.popen.wait(timeout)
            except subprocess.TimeoutExpired:
                process.popen.kill()
                process.popen.wait(5)
        cp.processes.remove(process)


# --- command line --------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("command", choices=["build", "up", "where"])
    args = parser.parse_args(argv)
    if args.command == "where":
        print(cache_root())
        return 0
    if args.command == "build":
        started = time.monotonic()
        print(build())
        print(f"ready in {time.monotonic() - started:.0f}s")
        return 0
    cp = start()
    print(f"control plane up: KUBECONFIG={cp.kubeconfig} (logs in {cp.folder}); Ctrl-C stops it")
    try:
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})
        signal.sigwait({signal.SIGINT, signal.SIGTERM})
    finally:
        cp.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
