"""Autoscaling on a cloud's managed Prometheus, and the managed inference Gateway's proxy-only subnet: on GKE KEDA
reads Managed Service for Prometheus as a Google service account its operator is bound to through Workload
Identity (created with a cluster the stack creates, required as gcloud commands on an attached one), and the stack
creates the proxy-only subnet with the VPC it creates."""

from __future__ import annotations

import ipaddress
from typing import Any

import pytest

from gpu_platform.addons.serving import autoscaling as auto
from gpu_platform.addons.serving.gateway import creates_proxy_subnet, gateway_plan
from gpu_platform.cloud_facts.gke.serving import (
    METRICS_READER,
    cluster_ranges,
    default_proxy_subnet,
    proxy_subnet_problem,
)
from gpu_platform.clouds.gke.cluster_plan import split_network
from gpu_platform.offline import Plan, run_plan
from gpu_platform.stack import load_platform
from tests.addons.serving.stacks import serving_raw, serving_stack
from tests.addons.serving.test_autoscaling import keda_problems
from tests.conftest import REPO
from tests.support.chart_values import chart_values, missing_keys
from tests.support.helm import of_kind, render_chart
from tests.support.refusals import config_problems

QUERY_URL = "https://monitoring.googleapis.com/v1/projects/example/location/global/prometheus"
IDENTITY = "llm-keda@example.iam.gserviceaccount.com"
SUBNETWORK = "gcp:compute/subnetwork:Subnetwork"


def gke_stack(**cluster: Any) -> dict[str, Any]:
    """The GKE serving stack (qwen-7b autoscaled 2..4) reading Managed Service for Prometheus."""
    stack = serving_stack("gke")
    stack["gpu-platform:observability"] = {"backend": "gke-managed-prometheus"}
    stack["gpu-platform:cluster"] = {**stack["gpu-platform:cluster"], **cluster}
    return stack


@pytest.fixture(scope="module")
def planned() -> Plan:
    return run_plan(REPO, "test", config_override=gke_stack())


def test_the_scaled_object_queries_managed_prometheus_as_the_triggers_pod_identity(planned: Plan) -> None:
    (auth,) = planned.by_type("kubernetes:keda.sh/v1alpha1:TriggerAuthentication")
    assert auth.inputs["metadata"] == {"name": "qwen-7b-prometheus", "namespace": "llm"}
    assert auth.inputs["spec"] == {"podIdentity": {"provider": "gcp"}}
    (scaled,) = planned.by_type("kubernetes:keda.sh/v1alpha1:ScaledObject")
    triggers = {t["name"]: t for t in scaled.inputs["spec"]["triggers"]}
    assert set(triggers) == {"queue", "kv-cache"}
    for trigger in triggers.values():
        assert trigger["type"] == "prometheus"
        assert trigger["metadata"]["serverAddress"] == QUERY_URL
        assert trigger["authenticationRef"] == {"name": "qwen-7b-prometheus"}
    assert triggers["queue"]["metadata"]["threshold"] == "5"
    # The authentication exists before the ScaledObject names it.
    assert auth.urn in scaled.depends_on
    for obj in (auth.inputs, scaled.inputs):
        assert keda_problems(obj) == [], obj["kind"]


def test_kedas_operator_is_annotated_for_the_google_service_account(planned: Plan) -> None:
    keda = planned.one("kubernetes:helm.sh/v3:Release", "serving-keda")
    assert keda.inputs["values"]["podIdentity"] == {
        "gcp": {"enabled": True, "gcpIAMServiceAccount": IDENTITY}
    }
    values = keda.inputs["values"]
    objects = render_chart("keda-2.20.2", values, "keda", "keda")
    accounts = {a["metadata"]["name"]: a for a in of_kind(objects, "ServiceAccount")}
    assert accounts["keda-operator"]["metadata"]["annotations"]["iam.gke.io/gcp-service-account"] == IDENTITY
    operator = next(d for d in of_kind(objects, "Deployment") if d["metadata"]["name"] == "keda-operator")
    pod = operator["spec"]["template"]["spec"]
    assert pod["serviceAccountName"] == "keda-operator"
    assert pod["nodeSelector"]["iam.gke.io/gke-metadata-server-enabled"] == "true"


def test_the_google_service_account_reads_monitoring_and_is_bound_to_kedas_operator(planned: Plan) -> None:
    (account,) = [
        r
        for r in planned.by_type("gcp:serviceaccount/account:Account")
        if r.inputs["accountId"] == "llm-keda"
    ]
    assert account.inputs["project"] == "example"
    (viewer,) = [
        r
        for r in planned.by_type("gcp:projects/iAMMember:IAMMember")
        if r.inputs["role"] == "roles/monitoring.viewer"
    ]
    assert (viewer.inputs["project"], viewer.inputs["member"]) == ("example", f"serviceAccount:{IDENTITY}")
    (binding,) = planned.by_type("gcp:serviceaccount/iAMMember:IAMMember")
    assert binding.inputs["role"] == "roles/iam.workloadIdentityUser"
    assert binding.inputs["member"] == "serviceAccount:example.svc.id.goog[keda/keda-operator]"
    assert binding.inputs["serviceAccountId"] == account.name  # the mock's name output: the resource's name
    cluster = planned.one("gcp:container/cluster:Cluster", "llm-cluster")
    assert cluster.urn in binding.depends_on  # the workload pool exists before a member of it is bound


def test_the_proxy_only_subnet_is_created_with_the_vpc(planned: Plan) -> None:
    subnets = {r.name: r.inputs for r in planned.by_type(SUBNETWORK)}
    proxy = subnets["llm-proxy-only"]
    assert (proxy["purpose"], proxy["role"], proxy["ipCidrRange"]) == (
        "REGIONAL_MANAGED_PROXY",
        "ACTIVE",
        "10.0.32.0/23",
    )
    assert proxy["region"] == "us-central1"
    assert proxy["network"] == subnets["llm-nodes"]["network"]
    taken = [
        subnets["llm-nodes"]["ipCidrRange"],
        *(r["ipCidrRange"] for r in subnets["llm-nodes"]["secondaryIpRanges"]),
    ]
    assert not any(
        ipaddress.ip_network(proxy["ipCidrRange"]).overlaps(ipaddress.ip_network(t)) for t in taken
    )
    # GKE Standard serves no Gateway API until the cluster turns it on: the managed Gateway needs both.
    cluster = planned.one("gcp:container/cluster:Cluster", "llm-cluster")
    assert cluster.inputs["gatewayApiConfig"] == {"channel": "CHANNEL_STANDARD"}


def test_a_given_proxy_subnet_range_is_used() -> None:
    plan = run_plan(REPO, "test", config_override=gke_stack(proxySubnetCidr="172.16.0.0/23"))
    (proxy,) = [r for r in plan.by_type(SUBNETWORK) if r.name == "llm-proxy-only"]
    assert proxy.inputs["ipCidrRange"] == "172.16.0.0/23"


def test_no_proxy_subnet_without_gkes_managed_gateway_or_serving() -> None:
    own_class = serving_stack("gke", gateway={"gatewayClass": "istio"})
    plan = run_plan(REPO, "test", config_override=own_class)
    assert [r.name for r in plan.by_type(SUBNETWORK)] == ["llm-nodes"]
    without = serving_stack("gke")
    del without["gpu-platform:serving"]
    plan = run_plan(REPO, "test", config_override=without)
    assert [r.name for r in plan.by_type(SUBNETWORK)] == ["llm-nodes"]
    assert plan.by_type("gcp:serviceaccount/iAMMember:IAMMember") == []
    assert "gatewayApiConfig" not in plan.one("gcp:container/cluster:Cluster", "llm-cluster").inputs


def test_the_gateway_requires_the_proxy_subnet_only_on_a_network_made_elsewhere() -> None:
    made = gateway_plan("gke", network_created=True)
    elsewhere = gateway_plan("gke")
    assert not any("proxy-only" in r or "Gateway API" in r for r in made.requires)
    assert any("CHANNEL_STANDARD" in r for r in elsewhere.requires)
    assert any(
        "REGIONAL_MANAGED_PROXY" in r and "gke-l7-regional-external-managed" in r for r in elsewhere.requires
    )
    assert creates_proxy_subnet("gke", {}, True) and not creates_proxy_subnet("gke", {}, False)
    assert not creates_proxy_subnet("gke", {"gateway_class": "istio"}, True)
    assert not creates_proxy_subnet("eks", {}, True)  # Envoy Gateway: an ordinary LoadBalancer Service


def test_an_attached_cluster_creates_no_identity_and_requires_the_gcloud_commands() -> None:
    raw = serving_raw("gke")
    raw["cluster"] = {**raw["cluster"], "create": False, "kubeconfig": "apiVersion: v1"}
    raw["observability"] = {"backend": "gke-managed-prometheus"}
    spec = load_platform(raw)
    assert spec.serving is not None and spec.serving.prometheus is not None
    source = spec.serving.prometheus
    assert source.grant is None and not spec.serving.network_created
    (need,) = source.requires
    assert "gcloud iam service-accounts create llm-keda --project=example" in need
    assert (
        f"gcloud projects add-iam-policy-binding example --role=roles/monitoring.viewer --member=serviceAccount:{IDENTITY}"
        in need
    )
    assert (
        f"gcloud iam service-accounts add-iam-policy-binding {IDENTITY} --project=example "
        "--role=roles/iam.workloadIdentityUser --member=serviceAccount:example.svc.id.goog[keda/keda-operator]"
    ) in need
    assert source.keda_values == {"podIdentity": {"gcp": {"enabled": True, "gcpIAMServiceAccount": IDENTITY}}}


def test_managed_prometheus_without_the_project_is_refused_at_the_autoscaled_model() -> None:
    raw = serving_raw("gke")
    del raw["cluster"]["project"]
    raw["observability"] = {"backend": "gke-managed-prometheus"}
    problems = config_problems(raw)
    reason = problems["gpu-platform:serving.models[1].maxReplicas"]
    assert "set cluster.project, or maxReplicas to minReplicas" in reason
    assert "gke-managed-prometheus" in reason


def test_the_reader_source_is_the_profiles() -> None:
    source = auto.reader_source(METRICS_READER, "proj", cluster_created=True, cluster_name="prod")
    assert (
        source.server_address
        == "https://monitoring.googleapis.com/v1/projects/proj/location/global/prometheus"
    )
    assert source.pod_identity == {"provider": "gcp"}
    assert source.requires == ()
    assert source.grant == auto.ReaderGrant(
        "prod-keda", "prod-keda@proj.iam.gserviceaccount.com", "roles/monitoring.viewer", "proj", "keda"
    )
    release = auto.keda_release("gke", identity=source.keda_values)
    assert missing_keys(release.values, chart_values("charts", "keda-2.20.2", "values.yaml")) == []
    assert (
        release.values["podIdentity"]["gcp"]["gcpIAMServiceAccount"]
        == "prod-keda@proj.iam.gserviceaccount.com"
    )
    # An account ID is at most 30 characters: the longest cluster name (40) is cut to 25.
    long = auto.reader_source(METRICS_READER, "proj", cluster_created=True, cluster_name="a" * 40)
    assert long.grant is not None and long.grant.account == "a" * 25 + "-keda"
    assert release.values["image"] == {"pullPolicy": "IfNotPresent"}


@pytest.mark.parametrize("vpc", ["10.0.0.0/16", "10.8.0.0/14", "172.16.0.0/12", "192.168.0.0/16"])
def test_the_default_proxy_subnet_is_clear_of_the_clusters_ranges(vpc: str) -> None:
    nodes, services, pods = split_network(vpc)
    ranges = cluster_ranges(vpc)
    assert (str(ranges["node"]), str(ranges["Service"]), str(ranges["Pod"])) == (nodes, services, pods)
    default = default_proxy_subnet(vpc)
    assert ipaddress.ip_network(default).prefixlen == 23
    assert ipaddress.ip_network(default).subnet_of(ipaddress.ip_network(vpc))  # type: ignore[arg-type]
    assert proxy_subnet_problem(default, vpc) is None


@pytest.mark.parametrize(
    ("cidr", "message"),
    [
        ("10.0.128.0/23", "overlaps the cluster's Pod range 10.0.128.0/17"),
        ("10.0.0.0/23", "overlaps the cluster's node range 10.0.0.0/20"),
        ("10.0.40.0/27", "is too small: a proxy-only subnet is a /26 or larger"),
        ("8.8.8.0/23", "is not"),
    ],
)
def test_a_bad_proxy_subnet_is_refused(cidr: str, message: str) -> None:
    reason = proxy_subnet_problem(cidr, "10.0.0.0/16")
    assert reason is not None and message in reason


# --- AKS: Azure Monitor managed Prometheus through Microsoft Entra Workload ID ------------------------------------

WORKSPACE = "/subscriptions/0f0f0f0f-0000-0000-0000-000000000000/resourceGroups/rg-mon/providers/Microsoft.Monitor/accounts/prod-metrics"
MONITORING_DATA_READER = "b0d8363b-8ddd-447d-831f-62ca05bff136"


def aks_plan(**observability: Any) -> Plan:
    stack = serving_stack("aks")
    stack["gpu-platform:observability"] = {"backend": "azure-managed-prometheus", **observability}
    return run_plan(REPO, "test", config_override=stack)


@pytest.fixture(scope="module")
def aks_planned() -> Plan:
    return aks_plan(workspace=WORKSPACE)


def test_aks_keda_reads_the_workspace_as_a_federated_managed_identity(aks_planned: Plan) -> None:
    (identity,) = aks_planned.by_type("azure-native:managedidentity:UserAssignedIdentity")
    assert (identity.name, identity.inputs["resourceGroupName"]) == ("llm-keda-metrics", "rg-llm")
    (credential,) = aks_planned.by_type("azure-native:managedidentity:FederatedIdentityCredential")
    assert credential.inputs["subject"] == "system:serviceaccount:keda:keda-operator"
    assert credential.inputs["audiences"] == ["api://AzureADTokenExchange"]
    assert credential.inputs["resourceName"] == "llm-keda-metrics"  # the identity's name (the mock's)
    # The created cluster's OIDC issuer (the offline mock's answer).
    assert credential.inputs["issuer"].startswith("https://mockregion.oic.prod-aks.azure.com/")
    (reader,) = [
        r
        for r in aks_planned.by_type("azure-native:authorization:RoleAssignment")
        if r.inputs["roleDefinitionId"].endswith(MONITORING_DATA_READER)
    ]
    assert reader.inputs["scope"] == WORKSPACE
    assert (reader.inputs["principalId"], reader.inputs["principalType"]) == (
        "llm-keda-metrics-principal",
        "ServicePrincipal",
    )


def test_aks_scaled_object_and_keda_values_name_the_workspace_endpoint_and_the_identity(
    aks_planned: Plan,
) -> None:
    (auth,) = aks_planned.by_type("kubernetes:keda.sh/v1alpha1:TriggerAuthentication")
    assert auth.inputs["spec"] == {"podIdentity": {"provider": "azure-workload"}}
    (scaled,) = aks_planned.by_type("kubernetes:keda.sh/v1alpha1:ScaledObject")
    for trigger in scaled.inputs["spec"]["triggers"]:
        # The workspace's prometheusQueryEndpoint, read from the workspace (the offline mock's answer).
        assert trigger["metadata"]["serverAddress"].endswith("-mock.mockregion.prometheus.monitor.azure.com")
        assert trigger["authenticationRef"] == {"name": "qwen-7b-prometheus"}
    keda = aks_planned.one("kubernetes:helm.sh/v3:Release", "serving-keda")
    identity = keda.inputs["values"]["podIdentity"]["azureWorkload"]
    assert identity == {
        "enabled": True,
        "clientId": "llm-keda-metrics-client",
        "tenantId": "11111111-1111-1111-1111-111111111111",
    }
    assert missing_keys(keda.inputs["values"], chart_values("charts", "keda-2.20.2", "values.yaml")) == []
    objects = render_chart("keda-2.20.2", keda.inputs["values"], "keda", "keda")
    accounts = {a["metadata"]["name"]: a for a in of_kind(objects, "ServiceAccount")}
    operator_account = accounts["keda-operator"]["metadata"]
    assert operator_account["annotations"]["azure.workload.identity/client-id"] == "llm-keda-metrics-client"
    assert operator_account["labels"]["azure.workload.identity/use"] == "true"
    operator = next(d for d in of_kind(objects, "Deployment") if d["metadata"]["name"] == "keda-operator")
    assert operator["spec"]["template"]["metadata"]["labels"]["azure.workload.identity/use"] == "true"


def test_aks_a_workspace_the_stack_creates_is_the_role_scope() -> None:
    plan = aks_plan()
    (workspace,) = plan.by_type("azure-native:monitor:AzureMonitorWorkspace")
    (reader,) = [
        r
        for r in plan.by_type("azure-native:authorization:RoleAssignment")
        if r.inputs["roleDefinitionId"].endswith(MONITORING_DATA_READER)
    ]
    assert reader.inputs["scope"] == f"{workspace.name}-id"  # the workspace's ID (the mock's)


def test_aks_attached_cluster_still_gets_the_identity_and_requires_workload_identity_on() -> None:
    raw = serving_raw("aks")
    raw["cluster"] = {**raw["cluster"], "create": False, "kubeconfig": "apiVersion: v1"}
    raw["observability"] = {"backend": "azure-managed-prometheus"}
    spec = load_platform(raw)
    assert spec.serving is not None and spec.serving.prometheus is not None
    source = spec.serving.prometheus
    assert source.deferred and source.grant is not None
    (need,) = source.requires
    assert (
        "az aks update --resource-group rg-llm --name llm --enable-oidc-issuer --enable-workload-identity"
        in need
    )


def test_aks_attached_cluster_plans_the_identity_on_the_looked_up_issuer() -> None:
    stack = serving_stack("aks")
    stack["gpu-platform:cluster"] = {
        **stack["gpu-platform:cluster"],
        "create": False,
        "kubeconfig": {"secure": "v1:placeholder"},
    }
    stack["gpu-platform:observability"] = {"backend": "azure-managed-prometheus", "workspace": WORKSPACE}
    plan = run_plan(REPO, "test", config_override=stack)
    (credential,) = plan.by_type("azure-native:managedidentity:FederatedIdentityCredential")
    # getManagedCluster's oidcIssuerProfile (the offline mock's answer for cluster 'llm').
    assert credential.inputs["issuer"] == (
        "https://mockregion.oic.prod-aks.azure.com/11111111-1111-1111-1111-111111111111/llm/"
    )
    assert credential.inputs["resourceGroupName"] == "rg-llm"
