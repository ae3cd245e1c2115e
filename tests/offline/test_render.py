"""`gpu-platform plan --render`: each Helm release rendered with its pinned local chart.

The wiring is tested against a stand-in for ``helm_python`` (always runs); the real Helm engine is
tested when the optional ``[render]`` extra (helm-python-sdk) is installed, on the vendored charts.
"""

import importlib.util
import sys
import types
from pathlib import Path
from typing import Any

import pytest
import yaml

from gpu_platform.cli import main
from gpu_platform.offline import Plan, run_plan, write_plan
from gpu_platform.offline.recorder import Registration
from gpu_platform.offline.render import RenderError, render_releases
from gpu_platform.plans.node_daemonsets import GPU_NODE_DAEMONSET_REQUESTS
from tests.conftest import REPO, UPSTREAM

RELEASE = "kubernetes:helm.sh/v3:Release"


def release(name: str, chart: str, version: str, values: dict[str, Any], **extra: Any) -> Registration:
    inputs = {
        "name": name,
        "namespace": f"{name}-ns",
        "chart": chart,
        "version": version,
        "values": values,
        **extra,
    }
    return Registration(
        f"urn:pulumi:s::p::{RELEASE}::{name}-helm", RELEASE, f"{name}-helm", "", "", True, [], inputs, {}
    )


class FakeChart:
    loads: list[str] = []
    renders: list[tuple[str, dict[str, Any], str | None, str | None]] = []

    def __init__(self, path: str) -> None:
        self.path = path
        self.rendered = False

    @classmethod
    def load(cls, path: Any) -> "FakeChart":
        cls.loads.append(str(path))
        return cls(str(path))

    def render(
        self, values: Any = None, *, name: Any = None, namespace: Any = None, **_: Any
    ) -> dict[str, str]:
        assert not self.rendered, "a loaded chart is rendered once (helm-python-sdk 0.2.2 mutates it)"
        self.rendered = True
        FakeChart.renders.append((Path(self.path).name, values, name, namespace))
        replicas = (values or {}).get("replicas", 1)
        return {
            "c/templates/NOTES.txt": "Thank you: see our docs: https://example\n",
            "c/templates/deploy.yaml": (
                f"apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {name}\n  namespace: {namespace}\n"
                f"spec:\n  replicas: {replicas}\n---# a comment Helm tolerates\napiVersion: v1\nkind: ServiceAccount\n"
                f"metadata:\n  name: {name}\n  namespace: {namespace}\n"
            ),
            "c/templates/empty.yaml": "\n",
        }


@pytest.fixture
def fake_helm(monkeypatch: pytest.MonkeyPatch) -> type[FakeChart]:
    module = types.ModuleType("helm_python")
    module.Chart = FakeChart  # type: ignore[attr-defined]
    module.HelmError = RuntimeError  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "helm_python", module)
    FakeChart.loads, FakeChart.renders = [], []
    return FakeChart


def _charts(tmp_path: Path) -> Path:
    charts = tmp_path / "charts"
    (charts / "kueue-0.19.2").mkdir(parents=True)
    crds = charts / "cert-manager-v1.21.1" / "crds"
    crds.mkdir(parents=True)
    (crds / "certs.yaml").write_text(
        "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: certificates.cert-manager.io\n"
    )
    return charts


def test_each_release_is_rendered_from_its_pinned_chart(tmp_path: Path, fake_helm: type[FakeChart]) -> None:
    plan = Plan(
        "p",
        "s",
        [
            release("kueue", "oci://registry.k8s.io/kueue/charts/kueue", "0.19.2", {"replicas": 2}),
            release("cert-manager", "cert-manager", "v1.21.1", {"replicas": 3}),
        ],
    )
    lines = render_releases(plan, _charts(tmp_path), tmp_path / "out")
    assert [Path(p).name for p in fake_helm.loads] == ["cert-manager-v1.21.1", "kueue-0.19.2"]
    assert fake_helm.renders == [
        ("cert-manager-v1.21.1", {"replicas": 3}, "cert-manager", "cert-manager-ns"),
        ("kueue-0.19.2", {"replicas": 2}, "kueue", "kueue-ns"),
    ]
    kueue = tmp_path / "out" / "rendered" / "kueue"
    assert sorted(p.name for p in kueue.iterdir()) == [
        "Deployment-kueue-ns-kueue.yaml",
        "ServiceAccount-kueue-ns-kueue.yaml",
    ]
    assert yaml.safe_load((kueue / "Deployment-kueue-ns-kueue.yaml").read_text())["spec"]["replicas"] == 2
    # CRDs shipped in the chart's crds/ are installed by Helm too.
    cm = {p.name for p in (tmp_path / "out" / "rendered" / "cert-manager").iterdir()}
    assert "CustomResourceDefinition-certificates.cert-manager.io.yaml" in cm
    assert lines[0].startswith("cert-manager: cert-manager-v1.21.1, 3 objects")


def test_skip_crds_and_missing_chart(tmp_path: Path, fake_helm: type[FakeChart]) -> None:
    charts = _charts(tmp_path)
    skip = Plan("p", "s", [release("cert-manager", "cert-manager", "v1.21.1", {}, skipCrds=True)])
    render_releases(skip, charts, tmp_path / "out")
    assert not any("CustomResourceDefinition" in p.name for p in (tmp_path / "out" / "rendered").rglob("*"))
    missing = Plan("p", "s", [release("kserve-crd", "oci://ghcr.io/kserve/charts/kserve-crd", "v0.20.0", {})])
    with pytest.raises(RenderError, match=r"release kserve-crd: chart kserve-crd-v0\.20\.0 not found"):
        render_releases(missing, charts, tmp_path / "out")


def test_without_the_extra_the_cli_says_how_to_install_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "helm_python", None)  # import fails
    fixture = REPO / "tests" / "fixtures" / "existing-minimal"
    code = main(["plan", "--project", str(fixture), "--stack", "test", "--out", str(tmp_path), "--render"])
    err = capsys.readouterr().err
    assert code == 2 and "--render needs the [render] extra: pip install 'gpu-platform[render]'" in err


def test_real_helm_renders_the_prod_releases(tmp_path: Path) -> None:
    # helm-python-sdk comes with the [dev] extra (through [render]); the suite fails rather than skips.
    assert importlib.util.find_spec("helm_python") is not None, "install the [dev] extra: make setup"
    assert (UPSTREAM / "charts").is_dir(), "no vendored charts: see tests/upstream/README.md"
    plan = run_plan(REPO, "prod")
    write_plan(plan, tmp_path)
    # The vendored charts as they are, what the CLI's --render reads: kube-prometheus-stack's subcharts are
    # vendored beside it, and the render puts them under its charts/ as `helm dependency build` would.
    lines = render_releases(plan, UPSTREAM / "charts", tmp_path)
    assert len(lines) == len(plan.by_type(RELEASE))
    monitoring = {p.name for p in (tmp_path / "rendered" / "kube-prometheus-stack").iterdir()}
    assert "DaemonSet-monitoring-kube-prometheus-stack-prometheus-node-exporter.yaml" in monitoring
    assert not list((UPSTREAM / "charts" / "kube-prometheus-stack-88.5.3" / "charts").glob("prometheus-*"))
    policy = yaml.safe_load(
        (tmp_path / "rendered" / "gpu-operator" / "ClusterPolicy-cluster-policy.yaml").read_text()
    )
    values = plan.one(RELEASE, "gpu-operator-helm").inputs["values"]
    assert policy["spec"]["driver"]["enabled"] is values["driver"]["enabled"]
    # The requests Kueue takes off every GPU node's allocatable reach the ClusterPolicy the operator reads.
    for section, requests in GPU_NODE_DAEMONSET_REQUESTS.items():
        assert policy["spec"][section]["resources"] == {"requests": requests.quantities()}, section
    kueue = list((tmp_path / "rendered" / "kueue").glob("Deployment-*"))
    assert kueue and yaml.safe_load(kueue[0].read_text())["metadata"]["namespace"] == "kueue-system"


def test_real_helm_renders_the_karpenter_example(tmp_path: Path) -> None:
    """Both Karpenter charts are vendored with their provider in the name (``karpenter-aws-1.14.1``,
    ``karpenter-crd-aws-1.14.1``): ``--render`` finds them and renders the CRDs and the controller."""
    assert importlib.util.find_spec("helm_python") is not None, "install the [dev] extra: make setup"
    plan = run_plan(REPO / "examples" / "eks-karpenter-gpu", "example")
    write_plan(plan, tmp_path)
    lines = render_releases(plan, UPSTREAM / "charts", tmp_path)
    assert len(lines) == len(plan.by_type(RELEASE))
    crds = {p.name for p in (tmp_path / "rendered").rglob("CustomResourceDefinition-*")}
    assert "CustomResourceDefinition-nodepools.karpenter.sh.yaml" in crds
    assert list((tmp_path / "rendered").rglob("Deployment-kube-system-karpenter.yaml"))
