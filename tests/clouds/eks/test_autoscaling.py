"""EKS pools that grow and communicate: the Cluster Autoscaler with its IAM, Auto Scaling group tags that
describe an empty group's nodes, and the EFA device plugin (issue 13)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from gpu_platform import versions
from gpu_platform.clouds.eks.cluster_autoscaler import ClusterAutoscaler
from gpu_platform.clouds.eks.efa import EfaDevicePlugin
from gpu_platform.clouds.eks.node_pool import EksGpuNodePool
from gpu_platform.errors import ArgumentsError, ConfigError
from gpu_platform.offline import Plan, run_program
from gpu_platform.stack import load_platform
from tests.conftest import planned_stack, stack_raw_config

RELEASE = "kubernetes:helm.sh/v3:Release"
NODEGROUP = "aws:eks/nodeGroup:NodeGroup"
ASG_TAG = "aws:autoscaling/tag:Tag"
TEMPLATE = "k8s.io/cluster-autoscaler/node-template/"
EKS_EFFECT = {
    "NO_SCHEDULE": "NoSchedule",
    "NO_EXECUTE": "NoExecute",
    "PREFER_NO_SCHEDULE": "PreferNoSchedule",
}


@pytest.fixture(scope="module")
def prod() -> Plan:
    return planned_stack("prod")


def gpu_node_groups(plan: Plan) -> list[Any]:
    return [r for r in plan.by_type(NODEGROUP) if "gpu-platform.io/pool" in (r.inputs.get("labels") or {})]


def asg_tags(plan: Plan, node_group: Any) -> dict[str, str]:
    """The tags on this node group's Auto Scaling group, as the autoscaler will read them."""
    group = f"eks-{node_group.inputs['nodeGroupName']}-mock-asg"  # the mock's name for the group's ASG
    tags = [r.inputs for r in plan.by_type(ASG_TAG) if r.inputs["autoscalingGroupName"] == group]
    assert all(t["tag"]["propagateAtLaunch"] is False for t in tags)
    return {t["tag"]["key"]: t["tag"]["value"] for t in tags}


# --- the prod plan -----------------------------------------------------------------------------------


def test_prod_installs_the_pinned_cluster_autoscaler_for_the_clusters_minor(prod: Plan) -> None:
    release = prod.one(RELEASE, "cluster-autoscaler-helm").inputs
    pin = versions.CLUSTER_AUTOSCALER
    assert (release["chart"], release["version"], release["repositoryOpts"]["repo"]) == (
        pin.chart,
        pin.version,
        pin.repo,
    )
    assert release["namespace"] == "kube-system"
    values = release["values"]
    cluster = stack_raw_config("prod")["cluster"]
    assert values["autoDiscovery"] == {"clusterName": cluster["name"]}
    assert values["awsRegion"] == cluster["region"]
    minor = cluster["kubernetesVersion"]
    assert values["image"]["tag"] == versions.CLUSTER_AUTOSCALER_IMAGE_TAGS[minor]
    assert values["image"]["tag"].startswith(f"v{minor}.")
    # On the system node group, which EKS labels with its name.
    system = [r for r in prod.by_type(NODEGROUP) if r not in gpu_node_groups(prod)]
    assert values["nodeSelector"] == {"eks.amazonaws.com/nodegroup": system[0].inputs["nodeGroupName"]}
    # The upstream guard stays on: a job pod with /dev/shm (emptyDir) keeps its node (DaemonSets never do).
    assert values["extraArgs"]["skip-nodes-with-local-storage"] is True
    # No DRA pool in prod: the flag is left at the image's default.
    assert "enable-dynamic-resource-allocation" not in values["extraArgs"]


def test_the_autoscaler_gets_credentials_through_pod_identity(prod: Plan) -> None:
    values = prod.one(RELEASE, "cluster-autoscaler-helm").inputs["values"]
    account = values["rbac"]["serviceAccount"]
    association = prod.one("aws:eks/podIdentityAssociation:PodIdentityAssociation").inputs
    assert (association["namespace"], association["serviceAccount"]) == ("kube-system", account["name"])
    role = prod.one("aws:iam/role:Role", "cluster-autoscaler-role")
    assert association["roleArn"] == f"arn:aws:iam::000000000000:role/{role.name}"
    trust = json.loads(role.inputs["assumeRolePolicy"])["Statement"]
    assert trust == [
        {
            "Effect": "Allow",
            "Principal": {"Service": "pods.eks.amazonaws.com"},
            "Action": ["sts:AssumeRole", "sts:TagSession"],
        }
    ]
    addon = prod.one("aws:eks/addon:Addon", "eks-pod-identity-agent").inputs
    assert addon["addonName"] == "eks-pod-identity-agent"
    # The release waits for its credentials.
    release = prod.one(RELEASE, "cluster-autoscaler-helm")
    for dep in ("aws:eks/addon:Addon", "aws:eks/podIdentityAssociation:", "aws:iam/rolePolicy:RolePolicy"):
        assert any(dep in urn for urn in release.depends_on), dep


def test_the_policy_can_scale_only_this_clusters_groups(prod: Plan) -> None:
    policy = json.loads(prod.one("aws:iam/rolePolicy:RolePolicy").inputs["policy"])
    describe, scale = policy["Statement"]
    assert "autoscaling:DescribeAutoScalingGroups" in describe["Action"]
    assert "eks:DescribeNodegroup" in describe["Action"]  # reads managed node groups' labels and taints
    assert "Condition" not in describe
    assert sorted(scale["Action"]) == [
        "autoscaling:SetDesiredCapacity",
        "autoscaling:TerminateInstanceInAutoScalingGroup",
    ]
    assert scale["Condition"] == {
        "StringEquals": {"aws:ResourceTag/k8s.io/cluster-autoscaler/gpu-prod": "owned"}
    }


def test_every_gpu_group_is_discoverable_and_described_for_scale_from_zero(prod: Plan) -> None:
    groups = gpu_node_groups(prod)
    assert len(groups) == 2
    for ng in groups:
        tags = asg_tags(prod, ng)
        assert tags["k8s.io/cluster-autoscaler/enabled"] == "true"
        assert tags["k8s.io/cluster-autoscaler/gpu-prod"] == "owned"  # matches the policy's condition
        labels = {k.removeprefix(TEMPLATE + "label/"): v for k, v in tags.items() if "/label/" in k}
        assert labels == ng.inputs["labels"]
        taints = {k.removeprefix(TEMPLATE + "taint/"): v for k, v in tags.items() if "/taint/" in k}
        assert taints == {
            t["key"]: f"{t.get('value') or ''}:{EKS_EFFECT[t['effect']]}" for t in ng.inputs["taints"]
        }


def test_mig_and_efa_resources_are_on_the_auto_scaling_groups(prod: Plan) -> None:
    by_pool = {
        ng.inputs["labels"]["gpu-platform.io/pool"]: asg_tags(prod, ng) for ng in gpu_node_groups(prod)
    }
    inference = {
        k.removeprefix(TEMPLATE + "resources/"): v
        for k, v in by_pool["h100-inference"].items()
        if "/resources/" in k
    }
    # all-balanced on 8 x H100 80GB: per GPU 1 x 3g.40gb, 1 x 2g.20gb, 2 x 1g.10gb (NVIDIA's mig-parted default).
    assert inference == {
        "nvidia.com/mig-3g.40gb": "8",
        "nvidia.com/mig-2g.20gb": "8",
        "nvidia.com/mig-1g.10gb": "16",
        "nvidia.com/gpu": "0",  # otherwise the autoscaler assumes the p5's 8 whole GPUs
    }
    training = {
        k.removeprefix(TEMPLATE + "resources/"): v
        for k, v in by_pool["h100-training"].items()
        if "/resources/" in k
    }
    # EFA pods request 2 MiB huge pages (AWS's EFA pod spec): the template must offer them too.
    assert training == {"nvidia.com/gpu": "8", "vpc.amazonaws.com/efa": "32", "hugepages-2Mi": "5120Mi"}


def test_no_gpu_group_is_scaled_down_while_a_job_runs_on_it(prod: Plan) -> None:
    """CA removes a node only below its group's threshold (FAQ "How does scale-down work?"): DaemonSets are
    left out, so an idle node is at 0 and goes, and one GPU unit, DRA device, millicore or MiB keeps it."""
    options = TEMPLATE + "autoscaling-options/"
    for ng in gpu_node_groups(prod):
        tags = asg_tags(prod, ng)
        assert {k.removeprefix(options): v for k, v in tags.items() if k.startswith(options)} == {
            "ignoredaemonsetsutilization": "true",
            "scaledowngpuutilizationthreshold": "0.0000001",
            "scaledownutilizationthreshold": "0.0000001",
            "scaledownunneededtime": "15m0s",
            "scaledownunreadytime": "30m0s",
        }
        threshold = float(tags[options + "scaledowngpuutilizationthreshold"])
        assert threshold > 0
        # One GPU of 8, one MIG slice of 56, one millicore of a p5's 192 vCPUs, one MiB of its 2 TiB.
        assert threshold < min(1 / 8, 1 / 56, 1 / 192_000, 1 / (2048 * 1024))


def test_dra_pools_turn_on_the_autoscalers_dra_logic(plan_stack: Any) -> None:
    """cluster-autoscaler 1.34 defaults ``--enable-dynamic-resource-allocation`` to false: claims never grow
    a group without it."""
    cfg = _eks(kubernetesVersion="1.34")
    cfg["gpuPools"] = [
        {"name": "l4", "machineType": "g6.2xlarge", "minNodes": 1, "maxNodes": 2, "allocation": "dra"}
    ]
    cfg["dra"] = {"enabled": True, "claimNamespaces": ["ml"]}
    plan = plan_stack("prod", config=cfg)
    values = plan.one(RELEASE, "cluster-autoscaler-helm").inputs["values"]
    assert values["image"]["tag"].startswith("v1.34.")
    assert values["extraArgs"]["enable-dynamic-resource-allocation"] is True


def test_the_autoscaler_gpu_label_only_where_nvidia_gpu_appears(prod: Plan) -> None:
    labels = {
        ng.inputs["labels"]["gpu-platform.io/pool"]: ng.inputs["labels"] for ng in gpu_node_groups(prod)
    }
    # A node with the label but no nvidia.com/gpu counts as not ready for ever: not on the MIG pool.
    assert labels["h100-training"]["k8s.amazonaws.com/accelerator"] == "nvidia-h100-80gb"
    assert "k8s.amazonaws.com/accelerator" not in labels["h100-inference"]


def test_prod_installs_the_efa_device_plugin_on_the_efa_pool(prod: Plan) -> None:
    release = prod.one(RELEASE, "efa-device-plugin-helm").inputs
    pin = versions.AWS_EFA_DEVICE_PLUGIN
    assert (release["chart"], release["version"], release["repositoryOpts"]["repo"]) == (
        pin.chart,
        pin.version,
        pin.repo,
    )
    values = release["values"]
    training = next(ng for ng in gpu_node_groups(prod) if ng.inputs["labels"].get("gpu-platform.io/efa"))
    assert values["nodeSelector"].items() <= training.inputs["labels"].items()
    # It tolerates every taint of the EFA pool's nodes.
    for taint in training.inputs["taints"]:
        effect = EKS_EFFECT[taint["effect"]]
        assert any(
            t["key"] == taint["key"]
            and t["effect"] == effect
            and (t["operator"] == "Exists" or t["value"] == taint["value"])
            for t in values["tolerations"]
        ), taint
    assert values["image"]["tag"] == versions.AWS_EFA_DEVICE_PLUGIN_IMAGE_TAG


def test_efa_launch_template_uses_efa_only_on_secondary_cards(prod: Plan) -> None:
    lt = prod.one("aws:ec2/launchTemplate:LaunchTemplate", "h100-training-lt").inputs
    cards = lt["networkInterfaces"]
    assert len(cards) == 32
    assert [(c["networkCardIndex"], c["deviceIndex"], c["interfaceType"]) for c in cards[:2]] == [
        (0, 0, "efa"),
        (1, 0, "efa-only"),
    ]
    assert {c["interfaceType"] for c in cards[1:]} == {"efa-only"}
    assert len({c["networkCardIndex"] for c in cards}) == 32


# --- scale from zero on every cloud -------------------------------------------------------------------

MACHINES = {"gke": "a3-highgpu-8g", "eks": "p5.48xlarge", "aks": "Standard_ND96asr_v4"}
SHARING: dict[str, dict[str, Any]] = {
    "none": {},
    "time-slicing": {"mode": "time-slicing", "replicas": 4},
    "time-slicing-renamed": {"mode": "time-slicing", "replicas": 4, "renameByDefault": True},
    "mps": {"mode": "mps", "replicas": 2},
    "operator-mig": {"mode": "mig", "mig": {"layout": "all-3g.40gb"}},
    "cloud-mig": {"mode": "mig", "managedBy": "cloud", "mig": {"layout": "all-3g.40gb"}},
    "cloud-time-sharing": {"mode": "time-slicing", "replicas": 4, "managedBy": "cloud"},
}
REFUSED = {
    ("gke", "operator-mig"),
    ("gke", "time-slicing-renamed"),
    ("aks", "time-slicing"),
    ("aks", "time-slicing-renamed"),
    ("aks", "mps"),
    ("aks", "operator-mig"),
    ("aks", "cloud-mig"),
}
"""Where the cloud's autoscaler cannot learn an empty pool's resources (docs/autoscaling.md)."""


def _config(cloud: str, sharing: dict[str, Any], min_nodes: int) -> dict[str, Any]:
    cluster: dict[str, Any] = {
        "name": "c",
        "region": {"gke": "us-central1", "eks": "us-east-1", "aks": "westeurope"}[cloud],
    }
    machine = MACHINES[cloud]
    if cloud == "aks" and sharing.get("mode") == "mig":
        machine = "Standard_ND96asr_v4"  # A100 40GB
        sharing = {**sharing, "mig": {"layout": "all-3g.20gb"}}
    pool: dict[str, Any] = {"name": "gpu", "machineType": machine, "minNodes": min_nodes, "maxNodes": 2}
    if sharing:
        pool["sharing"] = sharing
    cfg: dict[str, Any] = {
        "cloud": cloud,
        "cluster": cluster,
        "gpuPools": [pool],
        "kueue": {"enabled": False},
    }
    if cloud == "aks" and sharing.get("managedBy") == "cloud" and sharing.get("mode") == "mig":
        cfg["gpuOperator"] = {"driver": {"owner": "cloud"}}
    return cfg


UNSUPPORTED = {("eks", "cloud-mig"), ("eks", "cloud-time-sharing"), ("aks", "cloud-time-sharing")}
"""Sharing the cloud does not offer at all (refused for that, tested elsewhere)."""
COMBINATIONS = [(c, s) for c in sorted(MACHINES) for s in sorted(SHARING) if (c, s) not in UNSUPPORTED]


@pytest.mark.parametrize(("cloud", "case"), COMBINATIONS)
def test_scale_from_zero_is_configured_or_refused_naming_min_nodes(cloud: str, case: str) -> None:
    cfg = _config(cloud, SHARING[case], 0)
    if (cloud, case) in REFUSED:
        with pytest.raises(ConfigError) as err:
            load_platform(cfg)
        (line,) = str(err.value).splitlines()
        assert line.startswith("gpu-platform:gpuPools[0].minNodes: 0 would never scale up")
        assert "minNodes 1" in line
        # One node always up is accepted.
        assert load_platform(_config(cloud, SHARING[case], 1)).pools[0].min_nodes == 1
        return
    spec = load_platform(cfg)
    assert spec.pools[0].min_nodes == 0
    if cloud == "eks":
        # EKS scales from zero because the group's tags say what its nodes advertise.
        from gpu_platform.clouds.eks.node_pool_plan import eks_node_pool_plan
        from gpu_platform.sharing import node_resources

        plan = eks_node_pool_plan(spec.pools[0], spec.driver, {"cluster_name": "c"})
        for resource, units in node_resources(spec.pools[0]).items():
            assert plan.autoscaler_tags[f"{TEMPLATE}resources/{resource}"] == str(units)


def test_the_node_pool_components_refuse_what_the_stack_refuses() -> None:
    pool = {
        "name": "gpu",
        "machine_type": "a3-highgpu-8g",
        "max_nodes": 2,
        "sharing": {"mode": "mig", "mig": {"layout": "all-3g.40gb"}},
    }

    def program() -> None:
        from gpu_platform.clouds.gke.node_pool import GkeGpuNodePool

        with pytest.raises(ArgumentsError) as err:
            GkeGpuNodePool("gpu", {"cluster": "c", "location": "us-central1", "pool": pool})
        assert [p for p, _ in err.value.problems] == ["pool.min_nodes"]

    assert run_program(program).resources == []


def test_components_that_only_describe_pools_do_not_care_about_min_nodes() -> None:
    from gpu_platform.addons.gpu_operator.checks import resolve_gpu_operator
    from gpu_platform.addons.gpu_operator.plan import gpu_operator_plan

    pool = {
        "name": "gpu",
        "machine_type": "Standard_ND96asr_v4",
        "max_nodes": 2,
        "sharing": {"mode": "mig", "mig": {"layout": "all-3g.20gb"}},
    }
    assert gpu_operator_plan(resolve_gpu_operator({"cloud": "aks", "pools": [pool]})).pools[0].min_nodes == 0


# --- components on their own ---------------------------------------------------------------------------


def test_irsa_trusts_only_the_autoscalers_service_account() -> None:
    built: list[ClusterAutoscaler] = []
    args: dict[str, Any] = {
        "cluster_name": "gpu",
        "region": "eu-west-1",
        "kubernetes_version": "1.34",
        "iam": "irsa",
        "oidc_provider_arn": "arn:aws:iam::111122223333:oidc-provider/oidc.eks.eu-west-1.amazonaws.com/id/ABC",
        "oidc_issuer": "https://oidc.eks.eu-west-1.amazonaws.com/id/ABC",
    }
    plan = run_program(lambda: built.append(ClusterAutoscaler("ca", args)))  # type: ignore[arg-type]
    trust = json.loads(plan.one("aws:iam/role:Role").inputs["assumeRolePolicy"])["Statement"][0]
    assert trust["Principal"] == {"Federated": args["oidc_provider_arn"]}
    assert trust["Condition"]["StringEquals"] == {
        "oidc.eks.eu-west-1.amazonaws.com/id/ABC:sub": "system:serviceaccount:kube-system:cluster-autoscaler",
        "oidc.eks.eu-west-1.amazonaws.com/id/ABC:aud": "sts.amazonaws.com",
    }
    values = plan.one(RELEASE).inputs["values"]
    assert values["rbac"]["serviceAccount"]["annotations"] == {
        "eks.amazonaws.com/role-arn": "arn:aws:iam::000000000000:role/ca-role"
    }
    assert values["image"]["tag"] == versions.CLUSTER_AUTOSCALER_IMAGE_TAGS["1.34"]
    assert not plan.by_type("aws:eks/addon:Addon") and not plan.by_type("aws:eks/podIdentityAssociation")


@pytest.mark.parametrize(
    ("args", "paths"),
    [
        ({"cluster_name": "c", "region": "us-east-1", "iam": "irsa"}, ["oidc_issuer", "oidc_provider_arn"]),
        ({"cluster_name": "c", "region": "us-east-1", "kubernetes_version": "1.27"}, ["kubernetes_version"]),
        ({"cluster_name": "c", "region": "us-east-1", "oidc_issuer": "https://x"}, ["oidc_issuer"]),
        ({"cluster_name": "c"}, ["region"]),
    ],
)
def test_bad_autoscaler_arguments_register_nothing(args: dict[str, Any], paths: list[str]) -> None:
    errors: list[ArgumentsError] = []

    def program() -> None:
        with pytest.raises(ArgumentsError) as err:
            ClusterAutoscaler("ca", args)  # type: ignore[arg-type]
        errors.append(err.value)

    assert run_program(program).resources == []
    assert sorted(p for p, _ in errors[0].problems) == paths


def test_the_efa_plugin_refuses_pools_without_efa() -> None:
    def program() -> None:
        with pytest.raises(ArgumentsError) as err:
            EfaDevicePlugin("efa", {"pools": [{"name": "l4", "machine_type": "g6.2xlarge", "max_nodes": 1}]})
        assert err.value.problems[0][0] == "pools"

    assert run_program(program).resources == []


def test_a_node_group_built_alone_tags_its_auto_scaling_group() -> None:
    pool = {
        "name": "l4",
        "machine_type": "g6.2xlarge",
        "max_nodes": 3,
        "sharing": {"mode": "time-slicing", "replicas": 4, "rename_by_default": True},
    }
    plan = run_program(
        lambda: EksGpuNodePool(
            "l4",
            {
                "cluster_name": "gpu",
                "node_role_arn": "arn:aws:iam::123456789012:role/nodes",
                "subnet_ids": ["subnet-0123456789abcdef0"],
                "pool": pool,
            },
        )
    )
    tags = asg_tags(plan, plan.one(NODEGROUP))
    assert tags[TEMPLATE + "resources/nvidia.com/gpu.shared"] == "4"
    assert tags[TEMPLATE + "resources/nvidia.com/gpu"] == "0"
    assert tags["k8s.io/cluster-autoscaler/gpu"] == "owned"


# --- stack settings ------------------------------------------------------------------------------------


def _eks(**cluster: Any) -> dict[str, Any]:
    return {
        "cloud": "eks",
        "cluster": {"name": "c", "region": "us-east-1", **cluster},
        "gpuPools": [{"name": "l4", "machineType": "g6.2xlarge", "maxNodes": 2}],
    }


def test_autoscaler_none_installs_nothing_but_keeps_the_tags(plan_stack: Any) -> None:
    plan = plan_stack("prod", config={**_eks(autoscaler="none")})
    assert not [r for r in plan.by_type(RELEASE) if r.name == "cluster-autoscaler-helm"]
    assert not plan.by_type("aws:eks/podIdentityAssociation")
    (ng,) = gpu_node_groups(plan)
    assert asg_tags(plan, ng)["k8s.io/cluster-autoscaler/enabled"] == "true"
    assert not plan.by_type(RELEASE + "") or all(
        r.name != "efa-device-plugin-helm" for r in plan.by_type(RELEASE)
    )


def test_without_a_region_the_autoscaler_uses_the_providers(plan_stack: Any) -> None:
    cfg = _eks()
    del cfg["cluster"]["region"]
    plan = plan_stack("prod", config=cfg)
    values = plan.one(RELEASE, "cluster-autoscaler-helm").inputs["values"]
    assert values["awsRegion"] == "mock-region-1"  # aws.get_region() under mocks
    assert (
        values["image"]["tag"]
        == versions.CLUSTER_AUTOSCALER_IMAGE_TAGS[versions.CLUSTER_AUTOSCALER_DEFAULT_MINOR]
    )


@pytest.mark.parametrize(
    ("cfg", "line"),
    [
        (
            {
                **_eks(),
                "cloud": "gke",
                "cluster": {"name": "c", "region": "us-central1", "autoscaler": "none"},
                "gpuPools": [{"name": "l4", "machineType": "g2-standard-8", "maxNodes": 1}],
            },
            "gpu-platform:cluster.autoscaler: EKS only; remove it",
        ),
        (
            _eks(kubernetesVersion="1.28"),
            "gpu-platform:cluster.kubernetesVersion: 1.28 has no pinned Cluster Autoscaler",
        ),
        (
            _eks(autoscaler="none", podIdentityAgent=False),
            "gpu-platform:cluster.podIdentityAgent: only with cluster.autoscaler cluster-autoscaler",
        ),
        (_eks(autoscaler="karpenterish"), "gpu-platform:cluster.autoscaler: 'karpenterish' is not valid"),
    ],
)
def test_bad_autoscaler_settings_are_refused(cfg: dict[str, Any], line: str) -> None:
    with pytest.raises(ConfigError) as err:
        load_platform(cfg)
    assert str(err.value).startswith(line), str(err.value)


def test_kueue_covers_efa_so_training_jobs_that_ask_for_it_are_admitted(prod: Plan) -> None:
    cq = prod.one("kubernetes:kueue.x-k8s.io/v1beta2:ClusterQueue", "kueue-cq-training").inputs["spec"]
    (group,) = cq["resourceGroups"]
    assert "vpc.amazonaws.com/efa" in group["coveredResources"]
    quota = {f["name"]: {r["name"]: r["nominalQuota"] for r in f["resources"]} for f in group["flavors"]}
    training = next(p for p in stack_raw_config("prod")["gpuPools"] if p["name"] == "h100-training")
    assert quota["h100-training"]["vpc.amazonaws.com/efa"] == 32 * training["maxNodes"]
    assert quota["system-cpu"]["vpc.amazonaws.com/efa"] == 0


def test_kueue_covers_efa_huge_pages(prod: Plan) -> None:
    """An EFA pod requests ``hugepages-2Mi``; Kueue refuses a workload with a resource its queue does not cover."""
    cq = prod.one("kubernetes:kueue.x-k8s.io/v1beta2:ClusterQueue", "kueue-cq-training").inputs["spec"]
    (group,) = cq["resourceGroups"]
    assert "hugepages-2Mi" in group["coveredResources"]
    quota = {f["name"]: {r["name"]: r["nominalQuota"] for r in f["resources"]} for f in group["flavors"]}
    training = next(p for p in stack_raw_config("prod")["gpuPools"] if p["name"] == "h100-training")
    assert quota["h100-training"]["hugepages-2Mi"] == f"{5120 * training['maxNodes']}Mi"
    assert quota["system-cpu"]["hugepages-2Mi"] == 0


@pytest.mark.parametrize(("dra", "flag"), [(True, True), (False, None)])
def test_the_component_sets_the_dra_flag_only_when_asked(dra: bool, flag: bool | None) -> None:
    from gpu_platform.clouds.eks.autoscaling_plan import cluster_autoscaler_values
    from tests.support.plans import plan_cluster_autoscaler

    args: dict[str, Any] = {"cluster_name": "c", "region": "us-east-1", "kubernetes_version": "1.34"}
    if dra:
        args["dynamic_resource_allocation"] = True
    extra = cluster_autoscaler_values(plan_cluster_autoscaler(args))["extraArgs"]  # type: ignore[arg-type]
    assert extra.get("enable-dynamic-resource-allocation") is flag
    assert extra["skip-nodes-with-local-storage"] is True
