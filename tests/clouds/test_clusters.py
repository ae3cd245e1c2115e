"""Cluster components and ``stack.infrastructure.deploy_infrastructure``: secure defaults, an untainted system
pool, exec-auth kubeconfigs kept secret, and GPU pools wired to the cluster they attach to."""

from __future__ import annotations

import ipaddress
import json
from typing import Any

import pytest

from gpu_platform.clouds.aks.cluster import AksCluster
from gpu_platform.clouds.eks.cluster import NODE_POLICIES, EksCluster
from gpu_platform.clouds.gke.cluster import NODE_ROLES, GkeCluster
from gpu_platform.errors import ArgumentsError, ConfigError
from gpu_platform.offline import Plan, run_program
from gpu_platform.stack import load_platform
from gpu_platform.stack.infrastructure import deploy_infrastructure

SECRET = "[secret]"


def build_cluster(factory: Any) -> tuple[Plan, dict[str, Any]]:
    """Run a cluster under mocks; also return its kubeconfig value (read after the run)."""
    seen: dict[str, Any] = {}

    def program() -> None:
        cluster = factory()
        seen["cluster"] = cluster
        cluster.kubeconfig.apply(lambda v: seen.__setitem__("kubeconfig", v))

    return run_program(program), seen


# --- GKE ----------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def gke() -> tuple[Plan, dict[str, Any]]:
    return build_cluster(
        lambda: GkeCluster(
            "gpu",
            {"location": "us-central1", "project": "proj", "system_pool": {"min_nodes": 1, "max_nodes": 4}},
        )
    )


def test_gke_cluster_is_private_vpc_native_with_workload_identity(gke: tuple[Plan, dict[str, Any]]) -> None:
    plan, _ = gke
    c = plan.one("gcp:container/cluster:Cluster").inputs
    assert c["name"] == "gpu" and c["location"] == "us-central1" and c["project"] == "proj"
    assert c["privateClusterConfig"] == {"enablePrivateNodes": True, "enablePrivateEndpoint": False}
    assert c["workloadIdentityConfig"] == {"workloadPool": "proj.svc.id.goog"}
    assert c["networkingMode"] == "VPC_NATIVE"
    assert c["ipAllocationPolicy"] == {
        "clusterSecondaryRangeName": "pods",
        "servicesSecondaryRangeName": "services",
    }
    assert c["removeDefaultNodePool"] is True
    nat = plan.one("gcp:compute/routerNat:RouterNat").inputs
    assert nat["sourceSubnetworkIpRangesToNat"] == "ALL_SUBNETWORKS_ALL_IP_RANGES"
    subnet = plan.one("gcp:compute/subnetwork:Subnetwork").inputs
    ranges = [ipaddress.ip_network(subnet["ipCidrRange"])] + [
        ipaddress.ip_network(r["ipCidrRange"]) for r in subnet["secondaryIpRanges"]
    ]
    assert not any(a.overlaps(b) for i, a in enumerate(ranges) for b in ranges[i + 1 :]), ranges
    assert subnet["privateIpGoogleAccess"] is True


def test_gke_system_pool_is_untainted_and_nodes_use_a_least_privilege_account(
    gke: tuple[Plan, dict[str, Any]],
) -> None:
    plan, _ = gke
    system = plan.one("gcp:container/nodePool:NodePool", "gpu-system")
    cfg = system.inputs["nodeConfig"]
    assert "taints" not in cfg and "guestAccelerators" not in cfg
    assert system.inputs["autoscaling"] == {"totalMinNodeCount": 1, "totalMaxNodeCount": 4}
    # Kueue's system flavor selects these nodes (kueue.systemFlavor).
    assert cfg["labels"] == {"gpu-platform.io/pool-role": "system"}
    assert system.options["ignoreChanges"] == ["initialNodeCount", "nodeCount"]
    assert cfg["serviceAccount"] == "gpu-nodes@proj.iam.gserviceaccount.com"
    assert cfg["workloadMetadataConfig"] == {"mode": "GKE_METADATA"}
    roles = {r.inputs["role"] for r in plan.by_type("gcp:projects/iAMMember:IAMMember")}
    assert roles == set(NODE_ROLES)
    assert {r.inputs["member"] for r in plan.by_type("gcp:projects/iAMMember:IAMMember")} == {
        "serviceAccount:gpu-nodes@proj.iam.gserviceaccount.com"
    }


def test_gke_kubeconfig_uses_the_auth_plugin_and_stays_secret(gke: tuple[Plan, dict[str, Any]]) -> None:
    plan, seen = gke
    kc = json.loads(seen["kubeconfig"])
    assert kc["clusters"][0]["cluster"] == {
        "server": "https://203.0.113.10",
        "certificate-authority-data": "Q0E=",
    }
    user = kc["users"][0]["user"]
    assert set(user) == {"exec"}, "no token, password or client key in the file"
    assert user["exec"]["command"] == "gke-gcloud-auth-plugin"
    assert user["exec"]["apiVersion"] == "client.authentication.k8s.io/v1beta1"
    provider = plan.one("pulumi:providers:kubernetes")
    assert provider.inputs["kubeconfig"] == SECRET
    assert provider.parent == plan.one("gpu-platform:index:GkeCluster").urn
    assert plan.one("gcp:container/nodePool:NodePool", "gpu-system").urn in provider.depends_on


# --- EKS ----------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def eks() -> tuple[Plan, dict[str, Any]]:
    return build_cluster(
        lambda: EksCluster(
            "gpu",
            {
                "region": "us-east-1",
                "availability_zones": ["us-east-1a", "us-east-1b"],
                "kubernetes_version": "1.33",
            },
        )
    )


def test_eks_node_role_has_only_the_node_policies(eks: tuple[Plan, dict[str, Any]]) -> None:
    plan, _ = eks
    by_role: dict[str, set[str]] = {}
    for r in plan.by_type("aws:iam/rolePolicyAttachment:RolePolicyAttachment"):
        by_role.setdefault(r.inputs["role"], set()).add(r.inputs["policyArn"])
    assert by_role == {
        "gpu-node-role": {f"arn:aws:iam::aws:policy/{p}" for p in NODE_POLICIES},
        "gpu-cluster-role": {"arn:aws:iam::aws:policy/AmazonEKSClusterPolicy"},
    }
    assert NODE_POLICIES == (
        "AmazonEKSWorkerNodePolicy",
        "AmazonEC2ContainerRegistryReadOnly",
        "AmazonEKS_CNI_Policy",
    )
    node_trust = json.loads(plan.one("aws:iam/role:Role", "gpu-node-role").inputs["assumeRolePolicy"])
    assert node_trust["Statement"][0]["Principal"] == {"Service": "ec2.amazonaws.com"}


def test_eks_oidc_provider_for_irsa(eks: tuple[Plan, dict[str, Any]]) -> None:
    plan, _ = eks
    oidc = plan.one("aws:iam/openIdConnectProvider:OpenIdConnectProvider").inputs
    assert oidc == {"url": "https://oidc.eks.example/id/gpu-cluster", "clientIdLists": ["sts.amazonaws.com"]}


def test_eks_nodes_are_private_behind_nat(eks: tuple[Plan, dict[str, Any]]) -> None:
    plan, _ = eks
    cluster = plan.one("aws:eks/cluster:Cluster").inputs
    assert cluster["vpcConfig"]["subnetIds"] == ["gpu-private-us-east-1a-id", "gpu-private-us-east-1b-id"]
    assert cluster["accessConfig"] == {
        "authenticationMode": "API",
        "bootstrapClusterCreatorAdminPermissions": True,
    }
    assert cluster["version"] == "1.33"
    private_rt = plan.one("aws:ec2/routeTable:RouteTable", "gpu-private").inputs
    assert private_rt["routes"] == [{"cidrBlock": "0.0.0.0/0", "natGatewayId": "gpu-nat-id"}]
    for r in plan.by_type("aws:ec2/subnet:Subnet"):
        assert r.inputs.get("mapPublicIpOnLaunch", False) is False
    zones = {
        r.inputs["availabilityZone"] for r in plan.by_type("aws:ec2/subnet:Subnet") if "private" in r.name
    }
    assert zones == {"us-east-1a", "us-east-1b"}


def test_eks_system_group_is_untainted_and_waits_for_node_policies(eks: tuple[Plan, dict[str, Any]]) -> None:
    plan, _ = eks
    system = plan.one("aws:eks/nodeGroup:NodeGroup", "gpu-system")
    assert "taints" not in system.inputs
    assert system.inputs["labels"] == {"gpu-platform.io/pool-role": "system"}
    assert system.inputs["amiType"] == "AL2023_x86_64_STANDARD"
    assert system.inputs["subnetIds"] == ["gpu-private-us-east-1a-id", "gpu-private-us-east-1b-id"]
    assert system.options["ignoreChanges"] == ["scalingConfig.desiredSize"]
    attachments = {
        r.urn for r in plan.by_type("aws:iam/rolePolicyAttachment") if r.inputs["role"] == "gpu-node-role"
    }
    assert attachments <= set(system.depends_on)


def test_eks_kubeconfig_runs_aws_eks_get_token(eks: tuple[Plan, dict[str, Any]]) -> None:
    plan, seen = eks
    kc = json.loads(seen["kubeconfig"])
    assert kc["clusters"][0]["cluster"]["server"] == "https://gpu-cluster.eks.example"
    ex = kc["users"][0]["user"]["exec"]
    assert [ex["command"], *ex["args"]] == [
        "aws",
        "eks",
        "get-token",
        "--cluster-name",
        "gpu",
        "--region",
        "us-east-1",
    ]
    assert plan.one("pulumi:providers:kubernetes").inputs["kubeconfig"] == SECRET


# --- AKS ----------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def aks() -> tuple[Plan, dict[str, Any]]:
    return build_cluster(
        lambda: AksCluster("gpu", {"location": "westeurope", "admin_group_object_ids": ["group-1"]})
    )


def test_aks_cluster_has_workload_identity_and_no_local_accounts(aks: tuple[Plan, dict[str, Any]]) -> None:
    plan, _ = aks
    mc = plan.one("azure-native:containerservice:ManagedCluster")
    i = mc.inputs
    assert i["oidcIssuerProfile"] == {"enabled": True}
    assert i["securityProfile"] == {"workloadIdentity": {"enabled": True}}
    assert i["disableLocalAccounts"] is True
    assert i["aadProfile"] == {"managed": True, "enableAzureRBAC": True, "adminGroupObjectIDs": ["group-1"]}
    assert i["networkProfile"]["networkPluginMode"] == "overlay"
    [system] = i["agentPoolProfiles"]
    assert system["mode"] == "System" and "nodeTaints" not in system
    assert system["nodeLabels"] == {"gpu-platform.io/pool-role": "system"}
    assert system["vnetSubnetID"] == "gpu-nodes-id" and system["osSKU"] == "Ubuntu"
    assert mc.options["ignoreChanges"] == ["agentPoolProfiles[0].count"]


def test_aks_kubeconfig_comes_from_user_credentials_and_stays_secret(
    aks: tuple[Plan, dict[str, Any]],
) -> None:
    plan, seen = aks
    assert seen["kubeconfig"] == "kubeconfig"  # the mock's base64 credential, decoded
    assert plan.one("pulumi:providers:kubernetes").inputs["kubeconfig"] == SECRET


def test_cluster_arguments_are_checked_before_registering() -> None:
    errors: list[ArgumentsError] = []

    def program() -> None:
        for make in (
            lambda: AksCluster("x", {"os_sku": "Windows2022"}),
            lambda: GkeCluster(
                "x", {"location": "us-central1", "system_pool": {"min_nodes": 3, "max_nodes": 1}}
            ),
            lambda: EksCluster("x", {"vpc_cidr": "10.0.0.0/24"}),
        ):
            with pytest.raises(ArgumentsError) as err:
                make()
            errors.append(err.value)

    plan = run_program(program)
    assert plan.resources == []
    assert [[p for p, _ in e.problems] for e in errors] == [
        ["os_sku"],
        ["system_pool.min_nodes"],
        ["vpc_cidr"],
    ]
    reasons = [e.problems[0][1] for e in errors]
    assert "'Windows2022' is not valid" in reasons[0] and "Ubuntu" in reasons[0]
    assert "3 is more than" in reasons[1]
    assert "too small" in reasons[2] and "/16" in reasons[2]


# --- deploy_infrastructure from stack config ------------------------------------------------------


def raw_stack(cloud: str, pools: list[dict[str, Any]], **cluster: Any) -> dict[str, Any]:
    return {
        "cloud": cloud,
        "cluster": {"name": "gpu", **cluster},
        "gpuPools": pools,
        "gpuOperator": {"enabled": False},
        "kueue": {"enabled": False},
    }


def stack(cloud: str, pools: list[dict[str, Any]], **cluster: Any) -> Any:
    return load_platform(raw_stack(cloud, pools, **cluster))


def deploy(spec: Any) -> tuple[Plan, Any]:
    out: dict[str, Any] = {}
    plan = run_program(lambda: out.__setitem__("infra", deploy_infrastructure(spec)))
    return plan, out["infra"]


def stack_error(cloud: str, pools: list[dict[str, Any]], **cluster: Any) -> ConfigError:
    """The stack file is refused by ``load_platform``, before a program (and so any resource) runs."""
    with pytest.raises(ConfigError) as err:
        stack(cloud, pools, **cluster)
    return err.value


def test_gke_stack_creates_cluster_and_attaches_pools() -> None:
    plan, infra = deploy(
        stack(
            "gke",
            [{"name": "l4", "machineType": "g2-standard-8", "maxNodes": 2}],
            region="us-central1",
            project="p",
        )
    )
    pool = plan.one("gcp:container/nodePool:NodePool", "l4-nodepool").inputs
    assert pool["cluster"] == "gpu" and pool["location"] == "us-central1" and pool["project"] == "p"
    assert pool["nodeConfig"]["serviceAccount"] == "gpu-nodes@p.iam.gserviceaccount.com"
    assert set(infra.node_pools) == {"l4"}
    assert infra.cluster is not None and infra.k8s_provider is infra.cluster.kubernetes_provider


def test_gke_attach_uses_the_named_cluster_and_secret_kubeconfig() -> None:
    spec = stack(
        "gke",
        [{"name": "l4", "machineType": "g2-standard-8", "maxNodes": 2}],
        region="europe-west4",
        project="p",
        create=False,
        kubeconfig="apiVersion: v1",
    )
    plan, infra = deploy(spec)
    assert plan.by_type("gcp:container/cluster") == []
    assert plan.one("gcp:container/nodePool:NodePool").inputs["cluster"] == "gpu"
    assert plan.one("pulumi:providers:kubernetes").inputs["kubeconfig"] == SECRET
    assert infra.cluster_name == "gpu"


def test_attach_without_kubeconfig_or_region_names_the_keys() -> None:
    err = stack_error("gke", [{"name": "l4", "machineType": "g2-standard-8", "maxNodes": 2}], create=False)
    assert sorted(p for p, _ in err.problems) == [
        "gpu-platform:cluster.kubeconfig",
        "gpu-platform:cluster.region",
    ]


def test_eks_stack_places_pools_by_zone_and_efa_in_one_zone() -> None:
    spec = stack(
        "eks",
        [
            {"name": "l4", "machineType": "g6.xlarge", "maxNodes": 2, "zones": ["us-east-1b"]},
            {"name": "h100", "machineType": "p5.48xlarge", "maxNodes": 2, "efa": True},
            {"name": "any", "machineType": "g6.xlarge", "maxNodes": 2},
        ],
        region="us-east-1",
        zones=["us-east-1b", "us-east-1a", "us-east-1c"],
    )
    plan, _ = deploy(spec)
    # Subnets are keyed by zone; CIDR slots follow cluster.zones (append only), never the pools.
    subnets = {
        r.name: (r.inputs["availabilityZone"], r.inputs["cidrBlock"])
        for r in plan.by_type("aws:ec2/subnet")
        if "private" in r.name
    }
    assert subnets == {
        "gpu-private-us-east-1b": ("us-east-1b", "10.0.0.0/19"),
        "gpu-private-us-east-1a": ("us-east-1a", "10.0.32.0/19"),
        "gpu-private-us-east-1c": ("us-east-1c", "10.0.64.0/19"),
    }
    l4 = plan.one("aws:eks/nodeGroup:NodeGroup", "l4-nodegroup")
    assert l4.inputs["subnetIds"] == ["gpu-private-us-east-1b-id"]
    # EFA wants one zone and a cluster placement group: the first of the cluster's zones.
    assert plan.one("aws:eks/nodeGroup:NodeGroup", "h100-nodegroup").inputs["subnetIds"] == [
        "gpu-private-us-east-1b-id"
    ]
    assert len(plan.one("aws:eks/nodeGroup:NodeGroup", "any-nodegroup").inputs["subnetIds"]) == 3
    nics = plan.one("aws:ec2/launchTemplate:LaunchTemplate", "h100-lt").inputs["networkInterfaces"]
    assert nics[0]["securityGroups"] == ["sg-gpu-cluster"]


def test_eks_stack_errors() -> None:
    err = stack_error(
        "eks",
        [{"name": "l4", "machineType": "g6.xlarge", "maxNodes": 2, "zones": ["eu-west-1a"]}],
        region="us-east-1",
    )
    assert [p for p, _ in err.problems] == ["gpu-platform:gpuPools[0].zones[0]"]
    assert "'eu-west-1a' is not a zone of us-east-1" in err.problems[0][1]
    missing = stack_error(
        "eks",
        [{"name": "cb", "machineType": "p5.48xlarge", "maxNodes": 2, "capacityType": "CAPACITY_BLOCK"}],
    )
    assert [p for p, _ in missing.problems] == ["gpu-platform:gpuPools[0].reservation"]
    assert "Capacity Block ID" in missing.problems[0][1]
    err = stack_error(
        "eks", [{"name": "l4", "machineType": "g6.xlarge", "maxNodes": 2}], create=False, kubeconfig="x"
    )
    assert [p for p, _ in err.problems] == [
        "gpu-platform:cluster.existingNodeRoleArn",
        "gpu-platform:cluster.existingSubnetIds",
    ]


def test_eks_attach_uses_role_and_subnets_from_config() -> None:
    spec = stack(
        "eks",
        [{"name": "l4", "machineType": "g6.xlarge", "maxNodes": 2}],
        create=False,
        kubeconfig="x",
        existingNodeRoleArn="arn:aws:iam::123456789012:role/nodes",
        existingSubnetIds=["subnet-01010101", "subnet-02020202"],
        kubernetesVersion="1.33",
    )
    plan, _ = deploy(spec)
    ng = plan.one("aws:eks/nodeGroup:NodeGroup").inputs
    assert ng["clusterName"] == "gpu" and ng["nodeRoleArn"] == "arn:aws:iam::123456789012:role/nodes"
    assert ng["subnetIds"] == ["subnet-01010101", "subnet-02020202"] and ng["version"] == "1.33"
    assert plan.by_type("aws:eks/cluster") == []


def test_aks_stack_creates_cluster_and_pools_in_its_subnet() -> None:
    spec = stack(
        "aks",
        [{"name": "t4-spot", "machineType": "Standard_NC4as_T4_v3", "maxNodes": 2, "spot": True}],
        region="westeurope",
        resourceGroup="rg-gpu",
    )
    plan, _ = deploy(spec)
    pool = plan.one("azure-native:containerservice:AgentPool").inputs
    assert pool["resourceGroupName"] == "rg-gpu" and pool["resourceName"] == "gpu"
    assert pool["vnetSubnetID"] == "gpu-nodes-id"
    assert plan.by_type("azure-native:resources:ResourceGroup") == []


def test_aks_stack_errors_are_addressed_to_config_keys() -> None:
    err = stack_error(
        "aks",
        [
            {
                "name": "a100-spot-1",
                "machineType": "Standard_NC24ads_A100_v4",
                "maxNodes": 1,
                "zones": ["eu-1"],
            },
            {
                "name": "a100spot1",
                "machineType": "Standard_NC24ads_A100_v4",
                "maxNodes": 1,
                "image": "AzureLinux",
            },
        ],
    )
    reasons = dict(err.problems)
    assert sorted(reasons) == [
        "gpu-platform:gpuPools[0].zones[0]",
        "gpu-platform:gpuPools[1].image",
        "gpu-platform:gpuPools[1].name",
    ]
    assert "AKS availability zones are 1, 2, 3" in reasons["gpu-platform:gpuPools[0].zones[0]"]
    assert "'a100spot1'" in reasons["gpu-platform:gpuPools[1].name"]
    assert "a100-spot-1" in reasons["gpu-platform:gpuPools[1].name"]
    assert "mixed OS versions" in reasons["gpu-platform:gpuPools[1].image"]


def test_eks_capacity_block_from_stack_config_reaches_the_launch_template() -> None:
    spec = stack(
        "eks",
        [
            {
                "name": "cb",
                "machineType": "p5.48xlarge",
                "maxNodes": 2,
                "capacityType": "CAPACITY_BLOCK",
                "reservation": "cr-0123456789abcdef0",
                "zones": ["us-east-1a"],  # the block's one zone
            }
        ],
        region="us-east-1",
        zones=["us-east-1a", "us-east-1b"],
    )
    plan, _ = deploy(spec)
    group = plan.one("aws:eks/nodeGroup:NodeGroup", "cb-nodegroup")
    assert group.inputs["capacityType"] == "CAPACITY_BLOCK"
    template = plan.one("aws:ec2/launchTemplate:LaunchTemplate", "cb-lt")
    target = template.inputs["capacityReservationSpecification"]["capacityReservationTarget"]
    assert target == {"capacityReservationId": "cr-0123456789abcdef0"}
