"""``pulumi up`` for real: the library's stack program on the ``existing`` cloud, run by the Pulumi CLI and the
Kubernetes provider built from their Go modules (``scripts/pulumi_tools.py``), against a local control plane of
its own, through Pulumi's Automation API with a local file backend: ``up``, a day-2 quota change and ``up``
again, then ``destroy``, checking what the cluster holds after each.

``make test`` runs it, building the binaries on the first run on a machine with Go (``make pulumi-tools`` builds
them alone: about 17 minutes on 2 cores, README; later runs reuse them); it is skipped with the reason where Go
is missing, or with ``GPU_PLATFORM_PULUMI_UP=0``. The stack is
``examples/existing-cluster``'s config without what needs servers this cluster cannot run (KServe's and the
Prometheus operator's webhooks, cert-manager): the GPU Operator and Kueue, their charts from the vendored charts
served as the stack's chart mirror on 127.0.0.1. Pods run on kwok nodes (nothing executes); Kueue's own
controller runs for real, its webhooks moved to loopback as soon as its chart has installed them. The program
runs inline (the Python SDK is its own language runtime): the Python language host is not on the Go proxy.
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import shutil
import signal
import socket
import subprocess
import threading
import time
import urllib.parse
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.support.chart_repo import serve
from tests.support.cluster_objects import (
    PlannedCluster,
    flavor_quotas,
    gpu_nodes,
    kwok_node,
    render_plan,
)
from tests.support.control_plane import ApiError, control_plane_script, missing_tools, wait_until
from tests.support.helm import CHARTS
from tests.support.scripts import load_script

REPO = control_plane_script.REPO
EXAMPLE = REPO / "examples" / "existing-cluster"
pulumi_tools: Any = load_script(REPO / "scripts" / "pulumi_tools.py", "pulumi_tools_script", register=True)

OPT_OUT = "GPU_PLATFORM_PULUMI_UP"
"""``0`` skips the ``pulumi up`` tests where the binaries are built."""
STACK = "up"
PROJECT = "existing-cluster-gpu-platform"
KUEUE_NS, OPERATOR_NS = "kueue-system", "gpu-operator"
LINUX = {"kubernetes.io/os": "linux", "kubernetes.io/arch": "amd64"}
STEP_TIMEOUT = 900.0
"""Each ``up``/``destroy`` is stopped (its CLI process ended) after this long: a test never hangs."""


def _skip_reason() -> str | None:
    """Why ``pulumi up`` cannot run here, or ``None`` once the binaries are there: built on the first run on a
    machine with Go (about 17 minutes on 2 cores, README), as the control plane is."""
    if os.environ.get(OPT_OUT) == "0":
        return f"{OPT_OUT}=0"
    if reason := missing_tools():
        return reason
    if (reason := pulumi_tools.missing()) is not None:
        if shutil.which("go") is None:
            return reason
        pulumi_tools.build()
    return None


def stack_config(chart_mirror: str, gpu_pools: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """``examples/existing-cluster``'s config, less KServe and observability, with the chart mirror."""
    config: dict[str, Any] = yaml.safe_load((EXAMPLE / "Pulumi.example.yaml").read_text())["config"]
    config.pop("gpu-platform:kserve")
    config["gpu-platform:observability"] = {"enabled": False}
    config["gpu-platform:mirror"] = {"charts": chart_mirror}
    if gpu_pools is not None:
        config["gpu-platform:gpuPools"] = gpu_pools
    return config


def planned(config: dict[str, Any], folder: Path) -> PlannedCluster:
    """``gpu-platform plan --render`` of ``config`` (the example's placeholder kubeconfig kept for the plan)."""
    project = folder / "project"
    project.mkdir(parents=True)
    shutil.copy(EXAMPLE / "Pulumi.yaml", project / "Pulumi.yaml")
    shutil.copy(EXAMPLE / "__main__.py", project / "__main__.py")
    (project / f"Pulumi.{STACK}.yaml").write_text(yaml.safe_dump({"config": config}, sort_keys=False))
    return render_plan(project, STACK, folder / "plan")


# --- the cluster side ------------------------------------------------------------------------------------------


def _start_workload_controllers(cp: Any) -> subprocess.Popen[bytes]:
    """A second kube-controller-manager with the DaemonSet, StatefulSet and ResourceQuota controllers: Helm waits
    for a DaemonSet's ``observedGeneration`` (helm/helm v3.18.6 pkg/kube/ready.go), which only that controller
    sets, and the Kubernetes provider for a ResourceQuota's ``status.hard`` (pulumi/pulumi-kubernetes v4.25.0
    provider/pkg/await/awaiters.go, ``untilCoreV1ResourceQuotaInitialized``), which only the quota controller
    fills (GKE's stacks create one for the GPU Operator's critical pods)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    kubeconfig = str(cp.kubeconfig)
    args = [
        f"--kubeconfig={kubeconfig}",
        f"--authentication-kubeconfig={kubeconfig}",
        f"--authorization-kubeconfig={kubeconfig}",
        "--leader-elect=false",
        "--bind-address=127.0.0.1",
        f"--secure-port={port}",
        "--controllers=daemonset-controller,statefulset-controller,resourcequota-controller",
    ]
    with open(cp.folder / "workload-controllers.log", "wb") as log:
        return subprocess.Popen(
            [str(cp.bin["kube-controller-manager"]), *args],
            stdout=log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
        )


def _exists(cp: Any, obj: dict[str, Any]) -> dict[str, Any] | None:
    try:
        found: dict[str, Any] = cp.get(cp.resource_path(obj))
    except ApiError as e:
        if e.status == 404:
            return None
        raise
    return found


@dataclass
class KueueHarness:
    """Moves Kueue's webhooks and CRD conversion to a real Kueue on loopback once its chart installed them.

    The chart points them at ``kueue-webhook-service``, which nothing serves here: every Kueue object would be
    refused. So, polling while ``up`` runs: each of the chart's CRDs and webhook configurations, once present,
    is rewritten with a loopback URL instead of the Service (a PUT: an apply would keep Helm's ``service``
    beside the URL), then ``start_kueue`` runs the controller with the chart's configuration."""

    cp: Any
    chart_objects: list[dict[str, Any]]
    errors: list[str] = field(default_factory=list)
    started: threading.Event = field(default_factory=threading.Event)
    _stop: threading.Event = field(default_factory=threading.Event)

    def __post_init__(self) -> None:
        self._thread = threading.Thread(target=self._run, name="kueue-harness", daemon=True)

    def __enter__(self) -> KueueHarness:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(30)

    def _targets(self) -> list[dict[str, Any]]:
        kinds = ("CustomResourceDefinition", "MutatingWebhookConfiguration", "ValidatingWebhookConfiguration")
        return [o for o in self.chart_objects if o["kind"] in kinds]

    def _run(self) -> None:
        pending = self._targets()
        try:
            while pending and not self._stop.is_set():
                pending = [o for o in pending if not self._point(o, "https://127.0.0.1:1")]
                time.sleep(0.1)
            if not pending:
                control_plane_script.start_kueue(self.cp, self.chart_objects)
                # start_kueue's apply may leave the placeholder where another manager owns the field: put
                # the URL of the Kueue that now runs on every one of them, and check it.
                config = json.loads((self.cp.folder / "kueue-config.json").read_text())
                url = f"https://127.0.0.1:{config['webhook']['port']}"
                for obj in self._targets():
                    _retry(functools.partial(self._point, obj, url))
                self.started.set()
        except Exception as e:  # reported by the test, which fails on it
            self.errors.append(f"{type(e).__name__}: {e}")

    def _point(self, obj: dict[str, Any], url: str) -> bool:
        """``obj`` rewritten (PUT) with its webhooks at ``url``; False when absent or written meanwhile."""
        live = _exists(self.cp, obj)
        if live is None:
            return False
        ca = control_plane_script._b64(self.cp.folder / "ca.crt")
        try:
            self.cp.request("PUT", self.cp.resource_path(obj), _on_loopback(live, url, ca))
        except ApiError as e:
            if e.status == 409:  # Helm or Kueue's CA injection wrote it meanwhile: next round
                return False
            raise
        return True


def _on_loopback(obj: dict[str, Any], url: str, ca: str) -> dict[str, Any]:
    """``obj`` with every webhook client (admission, CRD conversion) at ``url`` + its path, whether it names
    the Service (as the chart does) or a URL already."""
    obj = json.loads(json.dumps(obj))
    clients = [hook["clientConfig"] for hook in obj.get("webhooks", [])]
    conversion = obj.get("spec", {}).get("conversion", {}).get("webhook")
    if conversion:
        clients.append(conversion["clientConfig"])
    for client in clients:
        service = client.pop("service", None)
        path = service.get("path", "/") if service else urllib.parse.urlsplit(client["url"]).path
        client["url"], client["caBundle"] = url + path, ca
    return obj


def _retry(call: Callable[[], bool], attempts: int = 50) -> None:
    for _ in range(attempts):
        if call():
            return
        time.sleep(0.1)
    raise TimeoutError("the object kept changing or went away")


# --- the Pulumi side -------------------------------------------------------------------------------------------


@contextlib.contextmanager
def watchdog(what: str, timeout: float = STEP_TIMEOUT) -> Iterator[None]:
    """Ends the ``pulumi`` processes this test started (by pid, children of this process) after ``timeout``,
    so the Automation API call returns with an error instead of hanging."""
    fired = threading.Event()

    def fire() -> None:
        fired.set()
        for pid in _children(os.getpid()):
            with contextlib.suppress(OSError):
                if Path(f"/proc/{pid}/comm").read_text().strip() == "pulumi":
                    os.kill(pid, signal.SIGTERM)

    timer = threading.Timer(timeout, fire)
    timer.start()
    try:
        yield
    finally:
        timer.cancel()
        if fired.is_set():
            pytest.fail(f"{what}: not done within {timeout:.0f}s")


def _children(pid: int) -> list[int]:
    out: list[int] = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        with contextlib.suppress(OSError):
            out += [int(c) for c in (task / "children").read_text().split()]
    return out


@dataclass
class Deployment:
    cp: Any
    stack: Any
    project: Path
    plan: PlannedCluster
    harness: KueueHarness
    chart_mirror: str
    log: list[str]
    timings: dict[str, float] = field(default_factory=dict)

    def run(self, step: str, call: Callable[[], Any]) -> Any:
        started = time.monotonic()
        try:
            with watchdog(step):
                return call()
        finally:
            self.timings[step] = time.monotonic() - started

    def write_config(self, config: dict[str, Any]) -> None:
        """``config`` into the stack file, keeping what the stack put there (its salt, the secret kubeconfig)."""
        path = self.project / f"Pulumi.{STACK}.yaml"
        current = yaml.safe_load(path.read_text()) if path.exists() else {}
        kept = (current or {}).get("config", {}).get("gpu-platform:cluster", {}).get("kubeconfig")
        merged = json.loads(json.dumps(config))
        if kept is not None:
            merged["gpu-platform:cluster"]["kubeconfig"] = kept
        else:
            merged["gpu-platform:cluster"].pop("kubeconfig", None)
        path.write_text(yaml.safe_dump({**(current or {}), "config": merged}, sort_keys=False))


def local_stack(root: Path, project: Path, name: str, stack: str, program: Callable[[], None]) -> Any:
    """An Automation API stack of the inline ``program`` in ``project`` (made here), its state in a file backend
    under ``root``, run by the built CLI with the built provider as an ambient plugin."""
    from pulumi import automation as auto

    project.mkdir()
    (root / "state").mkdir()
    settings = auto.ProjectSettings(
        name=name, runtime="python", backend=auto.ProjectBackend(url=f"file://{root / 'state'}")
    )
    options = auto.LocalWorkspaceOptions(
        work_dir=str(project),
        pulumi_home=str(root / "pulumi-home"),
        project_settings=settings,
        secrets_provider="passphrase",
        pulumi_command=auto.PulumiCommand(root=str(pulumi_tools.install_root())),
        env_vars={
            "PULUMI_CONFIG_PASSPHRASE": "gpu-platform-tests",
            "PULUMI_SKIP_UPDATE_CHECK": "true",
            "PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION": "true",
            # The provider as an ambient plugin (found on PATH whatever version the SDK asks for).
            "PATH": pulumi_tools.env()["PATH"],
            # The provider's Helm keeps its repository index and settings here, not in ~.
            **{f"HELM_{k}_HOME": str(root / "helm" / k.lower()) for k in ("CACHE", "CONFIG", "DATA")},
        },
    )
    return auto.create_or_select_stack(stack_name=stack, project_name=name, program=program, opts=options)


@contextlib.contextmanager
def local_cluster(root: Path) -> Iterator[Any]:
    """A control plane of its own under ``root``, with the controllers Helm and the Kubernetes provider wait on;
    stopped again after the block."""
    (root / "control-plane").mkdir()
    cp = control_plane_script.start(root / "control-plane")
    controllers = _start_workload_controllers(cp)
    try:
        yield cp
    finally:
        controllers.terminate()
        with contextlib.suppress(subprocess.TimeoutExpired):
            controllers.wait(10)
        if controllers.poll() is None:
            controllers.kill()
        cp.stop()


@pytest.fixture(scope="module")
def deployment(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Deployment]:
    if reason := _skip_reason():
        pytest.skip(reason)
    from pulumi import automation as auto

    from gpu_platform.stack import main as stack_program

    root = tmp_path_factory.mktemp("pulumi-up")
    log: list[str] = []
    with local_cluster(root) as cp, serve(root / "charts") as chart_mirror:
        config = stack_config(chart_mirror)
        plan = planned(config, root / "plan-1")
        nodes = [
            *gpu_nodes(plan),
            # The labels a kubelet sets: the GPU Operator's pod selects kubernetes.io/os=linux.
            kwok_node("cpu-0", LINUX, [], {"cpu": "64", "memory": "256Gi", "pods": "250"}),
        ]
        cp.apply(nodes)
        project = root / "project"
        stack = local_stack(root, project, PROJECT, STACK, stack_program)
        dep = Deployment(
            cp, stack, project, plan, KueueHarness(cp, plan.releases["kueue"]), chart_mirror, log
        )
        dep.write_config(config)
        stack.set_config(
            "gpu-platform:cluster.kubeconfig",
            auto.ConfigValue(cp.kubeconfig.read_text(), secret=True),
            path=True,
        )
        with dep.harness:
            yield dep


# --- checks ----------------------------------------------------------------------------------------------------


def _live(cp: Any, kind: str, name: str, namespace: str | None = None) -> dict[str, Any] | None:
    api = {
        "Namespace": "v1",
        "ClusterQueue": "kueue.x-k8s.io/v1beta2",
        "ResourceFlavor": "kueue.x-k8s.io/v1beta2",
        "LocalQueue": "kueue.x-k8s.io/v1beta2",
        "CustomResourceDefinition": "apiextensions.k8s.io/v1",
    }[kind]
    meta = {"name": name, **({"namespace": namespace} if namespace else {})}
    return _exists(cp, {"apiVersion": api, "kind": kind, "metadata": meta})


def _helm_status(cp: Any, namespace: str, release: str) -> list[str]:
    """The statuses of ``release``'s revisions, as Helm stores them (Secrets labelled ``owner=helm``)."""
    selector = f"owner%3Dhelm%2Cname%3D{release}"
    items = cp.get(f"/api/v1/namespaces/{namespace}/secrets?labelSelector={selector}")["items"]
    return sorted(s["metadata"]["labels"]["status"] for s in items)


def _quotas(cp: Any, plan: PlannedCluster) -> tuple[dict[str, Any], dict[str, Any]]:
    """(live, planned) flavor -> resource -> nominal quota over the plan's ClusterQueues."""
    planned_cqs = [m for m in plan.manifests if m["kind"] == "ClusterQueue"]
    live = [_live(cp, "ClusterQueue", m["metadata"]["name"]) for m in planned_cqs]
    assert all(live), [m["metadata"]["name"] for m, cq in zip(planned_cqs, live, strict=True) if cq is None]
    return flavor_quotas([cq for cq in live if cq]), flavor_quotas(planned_cqs)


def _active(cp: Any, name: str) -> bool:
    status = (_live(cp, "ClusterQueue", name) or {}).get("status") or {}
    return any(c["type"] == "Active" and c["status"] == "True" for c in status.get("conditions", []))


def test_up_installs_the_operators_and_the_planned_queues(deployment: Deployment) -> None:
    d = deployment
    from pulumi.automation.errors import CommandError

    try:
        result = d.run("up", lambda: d.stack.up(on_output=d.log.append))
    except CommandError as e:
        # Kueue's objects follow its release within seconds, before the harness has Kueue serving its
        # webhooks on loopback: those creations (and only those) fail once; a second `up` creates them.
        failed = [line for line in str(e).splitlines() if "was not successfully created" in line]
        assert failed, str(e)[-3000:]
        assert all("kb.io" in line and "kueue.x-k8s.io" in line for line in failed), failed
        assert d.harness.started.wait(180), d.harness.errors
        result = d.run("up again", lambda: d.stack.up(on_output=d.log.append))
    assert not d.harness.errors, d.harness.errors
    assert d.harness.started.is_set()
    assert result.summary.result == "succeeded", "\n".join(d.log[-60:])
    # The releases, installed by Helm from the loopback chart mirror.
    assert _helm_status(d.cp, KUEUE_NS, "kueue") == ["deployed"]
    assert _helm_status(d.cp, OPERATOR_NS, "gpu-operator") == ["deployed"]
    for ns in (KUEUE_NS, OPERATOR_NS, "vision", "notebooks"):
        assert _live(d.cp, "Namespace", ns), ns
    # Kueue's objects, admitted by Kueue's own webhooks, with exactly the planned quotas.
    live, planned_quotas = _quotas(d.cp, d.plan)
    assert live == planned_quotas
    assert set(live) == {"a100", "l40s"}
    for team in ("vision", "notebooks"):
        assert _live(d.cp, "LocalQueue", "default", team), team
    # Kueue's controller finds every flavor and calls each queue active.
    for cq in ("research", "interactive"):
        wait_until(f"ClusterQueue {cq} active", functools.partial(_active, d.cp, cq), 60, every=0.5)
    outputs = d.stack.outputs()
    assert set(outputs["nodeSetup"].value) == {"a100", "l40s"}


def test_a_day_two_quota_change_updates_the_queue_in_place(deployment: Deployment) -> None:
    d = deployment
    pools = yaml.safe_load((EXAMPLE / "Pulumi.example.yaml").read_text())["config"]["gpu-platform:gpuPools"]
    l40s = next(p for p in pools if p["name"] == "l40s")
    l40s["maxNodes"] += 1
    config = stack_config(d.chart_mirror, pools)
    plan = planned(config, d.project.parent / "plan-2")
    before, _ = _quotas(d.cp, d.plan)
    d.write_config(config)
    result = d.run("day-2 up", lambda: d.stack.up(on_output=d.log.append))
    assert result.summary.result == "succeeded", "\n".join(d.log[-60:])
    changes = result.summary.resource_changes or {}
    assert "delete" not in changes and "replace" not in changes, changes
    assert changes.get("update", 0) >= 1, changes
    live, planned_quotas = _quotas(d.cp, plan)
    assert live == planned_quotas
    # One more l40s node: its flavor's quota grows by one node's worth, a100's stays.
    assert live["a100"] == before["a100"]
    per_node = {r: before["l40s"][r] / (l40s["maxNodes"] - 1) for r in before["l40s"]}
    assert live["l40s"] == {r: before["l40s"][r] + per_node[r] for r in before["l40s"]}
    assert _helm_status(d.cp, KUEUE_NS, "kueue") == ["deployed"]


def test_destroy_keeps_what_the_library_retains(deployment: Deployment) -> None:
    d = deployment
    result = d.run("destroy", lambda: d.stack.destroy(on_output=d.log.append))
    assert result.summary.result == "succeeded", "\n".join(d.log[-60:])
    # Gone: the queues and flavors the stack made, and the GPU Operator's release.
    for cq in ("research", "interactive"):
        assert _live(d.cp, "ClusterQueue", cq) is None, cq
    for flavor in ("a100", "l40s"):
        assert _live(d.cp, "ResourceFlavor", flavor) is None, flavor
    assert _helm_status(d.cp, OPERATOR_NS, "gpu-operator") == []
    # Kept (retainOnDelete): the namespaces, and Kueue's release, which holds its CRDs (so no Kueue object
    # anywhere in the cluster is deleted with them); the GPU Operator's CRDs Helm never deletes (crds/).
    for ns in (KUEUE_NS, OPERATOR_NS, "vision", "notebooks"):
        assert _live(d.cp, "Namespace", ns), ns
    assert _helm_status(d.cp, KUEUE_NS, "kueue") == ["deployed"]
    assert _live(d.cp, "CustomResourceDefinition", "clusterqueues.kueue.x-k8s.io")
    assert _live(d.cp, "CustomResourceDefinition", "clusterpolicies.nvidia.com")
    print("timings:", {k: round(v) for k, v in d.timings.items()})


def test_the_chart_mirror_serves_an_index_and_archives_helm_can_load(tmp_path: Path) -> None:
    """Runs without the binaries: the repository ``pulumi up`` installs from, read back over HTTP."""
    import hashlib
    import io
    import tarfile
    import urllib.request

    charts = [CHARTS / "kueue-0.19.2", CHARTS / "gpu-operator-v26.7.0"]
    with serve(tmp_path, charts) as url:
        with urllib.request.urlopen(f"{url}/index.yaml", timeout=10) as resp:
            index = yaml.safe_load(resp.read())
        assert index["apiVersion"] == "v1"
        assert {n: [e["version"] for e in v] for n, v in index["entries"].items()} == {
            "kueue": ["0.19.2"],
            "gpu-operator": ["v26.7.0"],
        }
        entry = index["entries"]["gpu-operator"][0]
        assert entry["urls"] == [f"{url}/gpu-operator-v26.7.0.tgz"]
        with urllib.request.urlopen(entry["urls"][0], timeout=10) as resp:
            archive = resp.read()
    assert hashlib.sha256(archive).hexdigest() == entry["digest"]
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        names = tar.getnames()
    # One top folder (Helm drops it); the subchart vendored unpacked in charts/, the CRDs in crds/.
    assert {n.split("/", 1)[0] for n in names} == {"gpu-operator"}
    assert "gpu-operator/Chart.yaml" in names
    assert "gpu-operator/charts/node-feature-discovery/Chart.yaml" in names
    assert any(n.startswith("gpu-operator/crds/") for n in names)
