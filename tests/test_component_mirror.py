"""Every component takes the same ``mirror`` argument as the stack file: each Helm release the library creates is
given it (one place, ``helm_release``, applies it), and a component used on its own pulls its chart and images
from it as the stack does."""

from __future__ import annotations

import ast
from collections.abc import Callable
from typing import Any

import pytest

from gpu_platform import GpuPlatform
from gpu_platform.addons.cert_manager.component import CertManager
from gpu_platform.addons.gpu_operator.component import GpuOperator
from gpu_platform.addons.workloads.component import KubeflowTrainer
from gpu_platform.args.mirror import MirrorArgs
from gpu_platform.errors import ArgumentsError
from gpu_platform.offline import Plan
from tests.conftest import REPO
from tests.stack.test_gpu_platform import DEV_PYTHON
from tests.support.docker_host import plan_for

PACKAGE = REPO / "components" / "gpu_platform"
MIRROR_ARGS: MirrorArgs = {"charts": "oci://registry.acme/helm", "images": "registry.acme/mirror"}
RELEASE = "kubernetes:helm.sh/v3:Release"
L4 = {"name": "l4", "machine_type": "g2-standard-8", "max_nodes": 2}


def _release_calls() -> list[tuple[str, ast.Call]]:
    calls = []
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "helm_release":
                calls.append((str(path.relative_to(PACKAGE)), node))
    return calls


def test_every_helm_release_the_library_creates_is_given_its_plan_s_mirror() -> None:
    calls = _release_calls()
    assert len(calls) >= 20
    missing = [
        f"{path}:{call.lineno}" for path, call in calls if "mirror" not in {k.arg for k in call.keywords}
    ]
    assert missing == []


def test_a_component_on_its_own_pulls_chart_and_images_from_its_mirror(
    run_component: Callable[..., Plan],
) -> None:
    plan = run_component(lambda: CertManager("cm", {"mirror": MIRROR_ARGS}))
    release = plan.one(RELEASE)
    assert release.inputs["chart"] == "oci://registry.acme/helm/cert-manager"
    assert "repositoryOpts" not in release.inputs
    assert release.inputs["values"]["webhook"]["image"]["repository"] == (
        "registry.acme/mirror/jetstack/cert-manager-webhook"
    )


def test_the_gpu_operator_s_release_and_google_s_installer_follow_its_mirror(
    run_component: Callable[..., Plan],
) -> None:
    args: Any = {"cloud": "gke", "pools": [L4], "mirror": {"images": "registry.acme/mirror"}}
    plan = run_component(lambda: GpuOperator("op", args))
    release = plan.one(RELEASE)
    # Only images: the chart stays upstream.
    assert release.inputs["chart"] == "gpu-operator" and release.inputs["repositoryOpts"]["repo"]
    assert release.inputs["values"]["devicePlugin"]["repository"] == "registry.acme/mirror/nvidia"
    (installer,) = [r for r in plan.by_type("kubernetes:apps/v1:DaemonSet") if "driver-installer" in r.name]
    images = [c["image"] for c in installer.inputs["spec"]["template"]["spec"]["initContainers"]]
    assert images[0] == "cos-nvidia-installer:fixed"  # preloaded on COS (pull policy Never)
    assert all(i.startswith("registry.acme/mirror/") for i in images[1:])


def test_trainer_s_runtimes_run_mirrored_images(run_component: Callable[..., Plan]) -> None:
    plan = run_component(lambda: KubeflowTrainer("trainer", {"mirror": MIRROR_ARGS}))
    runtimes = plan.by_type("kubernetes:trainer.kubeflow.org/v1alpha1:ClusterTrainingRuntime")
    images = {
        c["image"]
        for r in runtimes
        for job in r.inputs["spec"]["template"]["spec"]["replicatedJobs"]
        for c in job["template"]["spec"]["template"]["spec"]["containers"]
    }
    assert images and all(i.startswith("registry.acme/mirror/") for i in images), images


@pytest.mark.parametrize(
    ("component", "args"),
    [
        (CertManager, {"mirror": {"images": "https://registry.acme"}}),
        (KubeflowTrainer, {"mirror": {"images": "https://registry.acme"}}),
    ],
)
def test_a_bad_mirror_argument_is_refused_naming_it(component: Any, args: dict[str, Any]) -> None:
    with pytest.raises(ArgumentsError) as err:
        component("c", args)
    assert "mirror.images: 'https://registry.acme' is a URL" in str(err.value)


def test_a_docker_host_pulls_its_services_from_the_image_mirror() -> None:
    host = plan_for("gke", mirror={"images": "registry.acme/mirror"})
    assert {s["image"] for s in host.compose["services"].values()} >= {
        "registry.acme/mirror/vllm/vllm-openai:v0.10.1"
    }
    assert all(s["image"].startswith("registry.acme/mirror/") for s in host.compose["services"].values())
    assert "registry.acme/mirror/vllm/vllm-openai:v0.10.1" in host.user_data
    plain = plan_for("gke")
    assert {s["image"] for s in plain.compose["services"].values()} >= {"vllm/vllm-openai:v0.10.1"}


def test_gpu_platform_passes_its_mirror_to_every_release(run_component: Callable[..., Plan]) -> None:
    args: Any = {**DEV_PYTHON, "mirror": MIRROR_ARGS}
    plan = run_component(lambda: GpuPlatform("platform", args), config={"gcp:project": "gpu-platform-dev"})
    releases = plan.by_type(RELEASE)
    assert releases and all(r.inputs["chart"].startswith("oci://registry.acme/helm/") for r in releases)
    kueue = plan.one(RELEASE, "kueue-helm").inputs["values"]["controllerManager"]["manager"]["image"]
    assert kueue["repository"] == "registry.acme/mirror/kueue/kueue"
