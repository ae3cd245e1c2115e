"""docs/UPGRADE.md says what changed and what the old spelling now does: each claim is checked here.

For every renamed or removed argument and stack setting listed there, the old spelling is refused with
the message the document shows, the new one is accepted, and the document names both.
"""

import re
import tomllib
from collections.abc import Callable
from typing import Any

import pulumi
import pytest

from gpu_platform.addons.gpu_operator.checks import resolve_gpu_operator
from gpu_platform.addons.kserve.service_plan import gpu_inference_service_plan
from gpu_platform.errors import ArgumentsError, ConfigError
from gpu_platform.offline import run_program
from gpu_platform.stack import load_platform
from tests.conftest import REPO
from tests.support.plans import plan_eks_node_pool, plan_gke_node_pool, plan_kueue

UPGRADE = (REPO / "docs" / "UPGRADE.md").read_text()
CHANGELOG = (REPO / "CHANGELOG.md").read_text()
L4 = {"name": "l4", "machine_type": "g2-standard-8", "max_nodes": 2}
L4_UBUNTU = {**L4, "image": "UBUNTU_CONTAINERD"}  # the GPU Operator installs drivers on GKE only on Ubuntu
H100 = {
    "name": "h100",
    "machine_type": "p5.48xlarge",
    "max_nodes": 2,
    "capacity_type": "CAPACITY_BLOCK",
    "zones": ["us-east-1a"],
}
GKE = {"cluster": "c", "location": "us-central1"}
EKS = {
    "cluster_name": "c",
    "node_role_arn": "arn:aws:iam::123456789012:role/nodes",
    "subnet_ids": ["subnet-0123456789abcdef0"],
}
A100 = {"name": "a100", "machine_type": "a2-highgpu-1g", "max_nodes": 2}
STACK = {"cloud": "gke", "cluster": {"name": "c", "region": "us-central1", "project": "p"}}
A100_STACK = {"name": "a100", "machineType": "a2-highgpu-1g", "maxNodes": 2}

# (old spelling in the doc, new spelling in the doc, plan function, old args, new args, message of the old)
ARGUMENTS: list[tuple[str, str, Callable[[Any], Any], dict[str, Any], dict[str, Any], str]] = [
    (
        'driver_owner="operator"',
        'driver={"owner": "operator"}',
        plan_gke_node_pool,
        {**GKE, "pool": L4_UBUNTU, "driver_owner": "operator"},
        {**GKE, "pool": L4_UBUNTU, "driver": {"owner": "operator"}},
        "driver_owner: unknown key 'driver_owner'; did you mean 'driver'?",
    ),
    (
        'driver_version="570.124.06"',
        'driver={"version": "570.124.06"}',
        resolve_gpu_operator,
        {"cloud": "gke", "pools": [L4_UBUNTU], "driver_version": "570.124.06"},
        {"cloud": "gke", "pools": [L4_UBUNTU], "driver": {"owner": "operator", "version": "570.124.06"}},
        "driver_version: unknown key 'driver_version'",
    ),
    (
        'host_driver_version="550.54.15"',
        'driver={"host_version": "550.54.15"}',
        plan_gke_node_pool,
        {**GKE, "pool": L4, "host_driver_version": "550.54.15"},
        {**GKE, "pool": L4, "driver": {"host_version": "550.54.15"}},
        "host_driver_version: unknown key 'host_driver_version'",
    ),
    (
        'capacity_reservation_id="cr-…"',
        '"capacity_type": "CAPACITY_BLOCK", "reservation": "cr-…"',
        plan_eks_node_pool,
        {**EKS, "pool": H100, "capacity_reservation_id": "cr-0123456789abcdef0"},
        {**EKS, "pool": {**H100, "reservation": "cr-0123456789abcdef0"}},
        "pool.reservation: capacity_type CAPACITY_BLOCK needs the Capacity Block ID (cr-...)",
    ),
    (
        "dcgm_exporter=True, dcgm_service_monitor=True",
        'dcgm_exporter={"enabled": True, "service_monitor": True}',
        resolve_gpu_operator,
        {"cloud": "gke", "pools": [L4], "dcgm_exporter": True, "dcgm_service_monitor": True},
        {"cloud": "gke", "pools": [L4], "dcgm_exporter": {"enabled": True, "service_monitor": True}},
        "dcgm_exporter: true (a boolean) is not a mapping",
    ),
    (
        "helm_values={…}",
        "values={…}",
        plan_kueue,
        {"cloud": "gke", "pools": [L4], "helm_values": {}},
        {"cloud": "gke", "pools": [L4], "values": {}},
        "helm_values: unknown key 'helm_values'; did you mean 'values'?",
    ),
    (
        '"layout": ["3g.40gb", …]',
        '"profiles": ["3g.40gb", …]',
        plan_gke_node_pool,
        {**GKE, "pool": {**A100, "sharing": {"mode": "mig", "mig": {"layout": ["3g.20gb"] * 2}}}},
        # One node always up: GKE cannot scale operator-MIG pools up from zero (the row below).
        {
            **GKE,
            "pool": {
                **A100,
                "min_nodes": 1,
                "sharing": {"mode": "mig", "mig": {"profiles": ["3g.20gb"] * 2}},
            },
        },
        "pool.sharing.mig.layout: a list is not text",
    ),
]


def _message(fn: Callable[[Any], Any], args: dict[str, Any]) -> str:
    with pytest.raises((ArgumentsError, ConfigError)) as err:
        fn(args)
    return str(err.value)


@pytest.mark.parametrize(
    ("old", "new", "fn", "before", "after", "message"), ARGUMENTS, ids=[a[0] for a in ARGUMENTS]
)
def test_component_argument_changes(
    old: str, new: str, fn: Callable[[Any], Any], before: dict, after: dict, message: str
) -> None:
    assert old in UPGRADE and new in UPGRADE
    assert message in _message(fn, before)
    assert message in UPGRADE
    fn(after)


def test_an_output_for_gpus_is_refused_as_the_doc_says() -> None:
    def program() -> None:  # an Output needs Pulumi's runtime
        args: dict[str, Any] = {
            "cloud": "gke",
            "pool": L4,
            "model_format": "huggingface",
            "storage_uri": "hf://org/model",
            "gpus": pulumi.Output.from_input(1),
        }
        gpu_inference_service_plan("svc", args)

    with pytest.raises(ArgumentsError) as err:
        run_program(program)
    line = next(line for line in str(err.value).splitlines() if line.startswith("gpus:"))
    assert line in UPGRADE


STACK_CHANGES: list[tuple[str, dict[str, Any], dict[str, Any], str]] = [
    (
        "sharing.mig.profiles",
        {
            **STACK,
            "gpuPools": [{**A100_STACK, "sharing": {"mode": "mig", "mig": {"layout": ["3g.20gb"] * 2}}}],
        },
        {
            **STACK,
            "gpuPools": [
                {
                    **A100_STACK,
                    "minNodes": 1,
                    "sharing": {"mode": "mig", "mig": {"profiles": ["3g.20gb"] * 2}},
                }
            ],
        },
        "gpu-platform:gpuPools[0].sharing.mig.layout: a list of profiles goes under mig.profiles; "
        "mig.layout names a layout",
    ),
    (
        "minNodes: 1",
        {**STACK, "gpuPools": [{**A100_STACK, "sharing": {"mode": "mig", "mig": {"layout": "all-3g.20gb"}}}]},
        {
            **STACK,
            "gpuPools": [
                {**A100_STACK, "minNodes": 1, "sharing": {"mode": "mig", "mig": {"layout": "all-3g.20gb"}}}
            ],
        },
        "gpu-platform:gpuPools[0].minNodes: 0 would never scale up: GKE's autoscaler sees an empty pool's GPUs "
        "as whole nvidia.com/gpu; the GPU Operator's MIG slices exist only once a node runs. Use minNodes 1 "
        "(one node always up), or GKE-managed sharing (sharing.managedBy cloud), which GKE's autoscaler knows",
    ),
    (
        "maxNodes: 2",
        {**STACK, "gpuPools": [{**A100_STACK, "maxNodes": True}]},
        {**STACK, "gpuPools": [A100_STACK]},
        "gpu-platform:gpuPools[0].maxNodes: true (a boolean) is not a whole number",
    ),
    (
        'cudaVersion: "12.2"',
        {**STACK, "gpuPools": [{**A100_STACK, "cudaVersion": 12.2}]},
        {**STACK, "gpuPools": [{**A100_STACK, "cudaVersion": "12.2"}]},
        "gpu-platform:gpuPools[0].cudaVersion: 12.2 (a number) is not text; quote it",
    ),
]


@pytest.mark.parametrize(
    ("new", "before", "after", "message"), STACK_CHANGES, ids=[s[0] for s in STACK_CHANGES]
)
def test_stack_file_changes(new: str, before: dict, after: dict, message: str) -> None:
    assert new in UPGRADE and message in UPGRADE
    assert _message(load_platform, before) == message
    load_platform(after)


def test_installer_version_is_its_own_stack_key() -> None:
    assert "`gpuOperator.driver.installerVersion`" in UPGRADE
    spec = load_platform(
        {**STACK, "gpuPools": [A100_STACK], "gpuOperator": {"driver": {"installerVersion": "570.124.06"}}}
    )
    assert spec.config["gpu_operator"]["driver"]["installer_version"] == "570.124.06"


def test_install_section_names_every_cloud_extra_and_its_message() -> None:
    extras = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    for extra in ("gke", "eks", "aks", "all", "policy"):
        assert extra in extras and f"`gpu-platform[{extra}]`" in UPGRADE
    assert "GkeCluster needs the Google Cloud SDK (pulumi-gcp): pip install 'gpu-platform[gke]'" in UPGRADE


def test_changelog_has_the_current_version_and_an_unreleased_section_that_points_here() -> None:
    version = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["version"]
    headings = re.findall(r"^## \[([^\]]+)\]", CHANGELOG, re.M)
    unreleased = CHANGELOG.split("\n## [", 2)[1]
    assert headings[0] == "Unreleased"
    if ".dev" in version:
        # Between releases (X.Y.Z.devN, docs/releasing.md) the Unreleased section is this version and names
        # the release it heads to.
        assert f"The next release is {version.split('.dev')[0]}." in unreleased
    else:
        assert version in headings
    assert "docs/UPGRADE.md" in unreleased
    # Between releases the newest section is "<last release> → Unreleased"; a release names its version.
    target = "Unreleased" if ".dev" in version else re.escape(version)
    assert re.search(rf"^## \d+\.\d+\.\d+ → {target}$", UPGRADE, re.M)
