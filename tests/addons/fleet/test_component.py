"""``GpuFleet`` under mocks: each cluster's objects through its own provider, the manager's worker kubeconfigs
as Pulumi secrets, MultiKueue objects after the manager's Kueue, refusals before anything is registered."""

from __future__ import annotations

import base64

import pytest
import yaml

from gpu_platform.addons.fleet.component import GpuFleet, _kubeconfig
from gpu_platform.errors import ArgumentsError
from gpu_platform.offline import Plan, run_program
from tests.addons.fleet.fleet_args import KUBECONFIG, fleet

KUEUE = "kubernetes:kueue.x-k8s.io/v1beta2:"


@pytest.fixture(scope="module")
def plan() -> Plan:
    return run_program(lambda: GpuFleet("fleet", fleet()))  # type: ignore[arg-type]


def test_each_cluster_gets_its_own_kueue_release(plan: Plan) -> None:
    releases = {r.name: r for r in plan.by_type("kubernetes:helm.sh/v3:Release")}
    assert set(releases) == {
        "fleet-manager-kueue-helm",
        "fleet-gke-h100-kueue-helm",
        "fleet-eks-l4-kueue-helm",
    }
    providers = {name: str(r.provider) for name, r in releases.items()}
    assert "fleet-manager::" in providers["fleet-manager-kueue-helm"]
    assert "fleet-eks-l4::" in providers["fleet-eks-l4-kueue-helm"]


def test_the_manager_holds_a_multikueue_cluster_per_worker_with_a_secret_kubeconfig(plan: Plan) -> None:
    clusters = {r.name: r for r in plan.by_type(KUEUE + "MultiKueueCluster")}
    assert set(clusters) == {"fleet-manager-mkc-gke-h100", "fleet-manager-mkc-eks-l4"}
    secret = plan.one("kubernetes:core/v1:Secret", "fleet-manager-eks-l4-kubeconfig")
    assert secret.inputs["metadata"] == {"name": "eks-l4-multikueue-kubeconfig", "namespace": "kueue-system"}
    assert secret.inputs["stringData"] == "[secret]"  # masked in the plan: a Pulumi secret
    assert "fleet-manager::" in str(secret.provider)


def test_the_kubeconfig_decodes_the_token_the_secret_holds() -> None:
    data = {"token": base64.b64encode(b"abc").decode(), "ca.crt": "Q0E="}
    doc = yaml.safe_load(_kubeconfig("eks-l4", KUBECONFIG, data))
    assert doc["users"][0]["user"] == {"token": "abc"}
    assert doc["clusters"][0]["cluster"]["server"] == "https://203.0.113.10"


def test_workers_get_the_service_account_the_manager_acts_as(plan: Plan) -> None:
    role = plan.one("kubernetes:rbac.authorization.k8s.io/v1:ClusterRole", "fleet-gke-h100-role")
    resources = {r["resources"][0] for r in role.inputs["rules"]}
    assert "jobsets" in resources and "workloads" in resources  # training admits JobSets
    l4 = plan.one("kubernetes:rbac.authorization.k8s.io/v1:ClusterRole", "fleet-eks-l4-role")
    assert "jobsets" not in {r["resources"][0] for r in l4.inputs["rules"]}  # inference does not


def test_a_refusal_registers_nothing() -> None:
    args = fleet()
    args["workers"][1]["kueue_version"] = "v0.18.0"
    with pytest.raises(ArgumentsError, match=r"GpuFleet 'fleet': workers\[1\]\.kueue_version"):
        run_program(lambda: GpuFleet("fleet", args))  # type: ignore[arg-type]


def test_a_worker_whose_kueue_is_installed_elsewhere_gets_only_the_fleets_objects() -> None:
    args = fleet()
    for cluster in [args["manager"], *args["workers"]]:
        cluster["kueue_version"] = "v0.19.2"
    plan = run_program(lambda: GpuFleet("fleet", args))  # type: ignore[arg-type]
    assert plan.by_type("kubernetes:helm.sh/v3:Release") == []
    cq = plan.one(KUEUE + "ClusterQueue", "fleet-eks-l4-cq-inference")
    flavor = plan.one(KUEUE + "ResourceFlavor", "fleet-eks-l4-resourceflavor-l4")
    assert flavor.urn in cq.depends_on
    lq = plan.one(KUEUE + "LocalQueue", "fleet-eks-l4-lq-serving-default")
    assert cq.urn in lq.depends_on and lq.inputs["spec"] == {"clusterQueue": "inference"}
    assert "fleet-eks-l4::" in str(lq.provider)
    assert {r.name for r in plan.by_type(KUEUE + "MultiKueueCluster")} == {
        "fleet-manager-mkc-gke-h100",
        "fleet-manager-mkc-eks-l4",
    }


def test_the_token_is_read_back_from_the_secret_the_fleet_created(plan: Plan) -> None:
    token = plan.one("kubernetes:core/v1:Secret", "fleet-eks-l4-token")
    assert token.inputs["type"] == "kubernetes.io/service-account-token"
    assert token.inputs["metadata"]["annotations"] == {"kubernetes.io/service-account.name": "multikueue-sa"}
    account = plan.one("kubernetes:core/v1:ServiceAccount", "fleet-eks-l4-sa")
    assert account.urn in token.depends_on
