"""Karpenter on EKS (issue 16): controller, IAM, interruption queue and GPU NodePools.

Every custom resource is validated against the vendored CRD / JSON schema at the pinned version, including
its CEL rules (tests.support.crds); the Karpenter IAM, queue and EventBridge rules are compared statement for
statement with Karpenter's own getting-started CloudFormation template at v1.14.1; the controller chart is
rendered offline with the plan's values.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pulumi
import pytest
import yaml

from gpu_platform import versions
from gpu_platform.clouds.eks import karpenter_plan as kp
from gpu_platform.clouds.eks.karpenter import EksKarpenter
from gpu_platform.clouds.eks.karpenter_node_pool import EksKarpenterGpuNodePool
from gpu_platform.errors import ArgumentsError
from tests.conftest import upstream
from tests.support.crds import problems_of
from tests.support.helm import of_kind, rendered_documents
from tests.support.plans import plan_eks_karpenter, plan_eks_karpenter_pool, plan_eks_node_pool
from tests.support.refusals import arg_problems

L4_SPOT = {"name": "l4-spot", "machine_type": "g6.2xlarge", "max_nodes": 4, "spot": True}
H100 = {
    "name": "h100",
    "machine_type": "p5.48xlarge",
    "max_nodes": 2,
    "zones": ["us-east-1a"],
    "taints": [{"key": "workload", "value": "training"}],
}
H100_BLOCK = {
    "name": "h100-block",
    "machine_type": "p5.48xlarge",
    "max_nodes": 2,
    "capacity_type": "CAPACITY_BLOCK",
    "reservation": "cr-0123456789abcdef0",
}
L4_BOTTLEROCKET = {
    "name": "l4-br",
    "machine_type": "g6.xlarge",
    "max_nodes": 2,
    "image": "BOTTLEROCKET_x86_64_NVIDIA",
}
KARPENTER_INPUTS = {"node_role_name": "KarpenterNodeRole-gpu-demo", "discovery": "gpu-demo"}


def eks_plan(pool: dict[str, Any], **extra: Any) -> kp.EksKarpenterPoolPlan:
    return plan_eks_karpenter_pool({"pool": pool, **KARPENTER_INPUTS, **extra})  # type: ignore[typeddict-item]


def eks_objects(plan: kp.EksKarpenterPoolPlan) -> tuple[dict[str, Any], dict[str, Any]]:
    return kp.eks_node_pool(plan), kp.ec2_node_class(plan, KARPENTER_INPUTS["node_role_name"], "gpu-demo")


# --- Karpenter NodePool + EC2NodeClass ---------------------------------------------------------------


@pytest.mark.parametrize("pool", [L4_SPOT, H100, H100_BLOCK, L4_BOTTLEROCKET], ids=lambda p: p["name"])
def test_eks_objects_validate_against_the_v1141_crds(pool: dict[str, Any]) -> None:
    version = {"ami_version": "v1.42.0"} if pool is L4_BOTTLEROCKET else {}
    node_pool, node_class = eks_objects(eks_plan(pool, **version))
    assert problems_of(node_pool, "aws") == []
    assert problems_of(node_class) == []


def test_same_labels_and_taints_as_the_managed_node_group() -> None:
    managed = plan_eks_node_pool(
        {
            "pool": H100,
            "cluster_name": "c",
            "node_role_arn": "arn:aws:iam::123456789012:role/nodes",
            "subnet_ids": ["subnet-0123456789abcdef0"],
        }  # type: ignore[typeddict-item]
    )
    plan = eks_plan(H100)
    node_pool, _ = eks_objects(plan)
    template = node_pool["spec"]["template"]
    assert template["metadata"]["labels"] == managed.labels
    assert template["spec"]["taints"] == managed.taint_dicts
    assert template["spec"]["taints"][0] == {
        "key": "nvidia.com/gpu",
        "value": "present",
        "effect": "NoSchedule",
    }
    assert plan.tolerations == managed.tolerations


def test_requirements_limits_and_disruption() -> None:
    node_pool, node_class = eks_objects(eks_plan(H100))
    spec = node_pool["spec"]
    reqs = {r["key"]: r["values"] for r in spec["template"]["spec"]["requirements"]}
    assert reqs == {
        "node.kubernetes.io/instance-type": ["p5.48xlarge"],
        "karpenter.sh/capacity-type": ["on-demand"],
        "kubernetes.io/arch": ["amd64"],
        "kubernetes.io/os": ["linux"],
        "topology.kubernetes.io/zone": ["us-east-1a"],
    }
    # p5.48xlarge: 192 vCPU, 2048 GiB, 8 H100 per node; 2 nodes.
    assert spec["limits"] == {"cpu": "384", "memory": "4096Gi", "nvidia.com/gpu": "16"}
    assert spec["disruption"] == {
        "consolidationPolicy": "WhenEmpty",
        "consolidateAfter": "5m",
        "budgets": [{"nodes": "1"}],
    }
    assert spec["template"]["spec"]["expireAfter"] == "Never"
    # Pinned by default: AWS's AMI releases never drift the GPU nodes on their own.
    assert node_class["spec"]["amiSelectorTerms"] == [{"alias": f"al2023@{versions.EKS_AL2023_AMI_RELEASE}"}]
    assert node_class["spec"]["role"] == "KarpenterNodeRole-gpu-demo"
    assert node_class["spec"]["subnetSelectorTerms"] == [{"tags": {"karpenter.sh/discovery": "gpu-demo"}}]
    assert node_class["spec"]["securityGroupSelectorTerms"] == [
        {"tags": {"karpenter.sh/discovery": "gpu-demo"}}
    ]
    assert node_class["spec"]["metadataOptions"]["httpTokens"] == "required"


def test_capacity_types() -> None:
    spot, _ = eks_objects(eks_plan(L4_SPOT))
    block, block_class = eks_objects(eks_plan(H100_BLOCK))
    capacity = lambda np: next(  # noqa: E731
        r["values"]
        for r in np["spec"]["template"]["spec"]["requirements"]
        if r["key"] == "karpenter.sh/capacity-type"
    )
    assert capacity(spot) == ["spot"]
    assert capacity(block) == ["reserved"]
    assert block_class["spec"]["capacityReservationSelectorTerms"] == [{"id": "cr-0123456789abcdef0"}]


def test_bottlerocket_alias_and_volumes_and_pinned_ami() -> None:
    _, node_class = eks_objects(eks_plan(L4_BOTTLEROCKET, ami_version="v1.42.0"))
    assert node_class["spec"]["amiSelectorTerms"] == [{"alias": "bottlerocket@v1.42.0"}]
    assert [m["deviceName"] for m in node_class["spec"]["blockDeviceMappings"]] == ["/dev/xvda", "/dev/xvdb"]
    assert node_class["spec"]["blockDeviceMappings"][1]["ebs"]["volumeSize"] == "200Gi"


def test_custom_disruption_and_its_problems() -> None:
    plan = eks_plan(
        L4_SPOT,
        disruption={
            "consolidate_after": "30m",
            "expire_after": "720h",
            "termination_grace_period": "24h",
            "budgets": [
                {"nodes": "0", "reasons": ["Drifted"], "schedule": "0 9 * * mon-fri", "duration": "8h"},
                {"nodes": "10%"},
            ],
        },
    )
    node_pool, _ = eks_objects(plan)
    assert node_pool["spec"]["template"]["spec"]["terminationGracePeriod"] == "24h"
    assert problems_of(node_pool, "aws") == []
    found = arg_problems(
        plan_eks_karpenter_pool,
        {
            "pool": L4_SPOT,
            **KARPENTER_INPUTS,
            "ami_version": "al2023@v1",
            "disruption": {
                "consolidate_after": "5 minutes",
                "budgets": [{"nodes": "one", "schedule": "@daily"}],
            },
        },
    )
    assert set(found) == {
        "ami_version",
        "disruption.consolidate_after",
        "disruption.budgets[0].nodes",
        "disruption.budgets[0]",
    }


def test_what_karpenter_cannot_express_is_refused_by_key() -> None:
    found = arg_problems(
        plan_eks_karpenter_pool,
        {
            "pool": {**H100, "min_nodes": 1, "initial_nodes": 2, "efa": True, "zones": ["us-east-1a"]},
            **KARPENTER_INPUTS,
        },
    )
    assert set(found) == {"pool.min_nodes", "pool.initial_nodes", "pool.efa"}
    assert "pending pods" in found["pool.min_nodes"]


def test_crd_validation_catches_what_the_api_server_would_refuse() -> None:
    node_pool, node_class = eks_objects(eks_plan(L4_SPOT))
    node_pool["spec"]["template"]["metadata"]["labels"]["karpenter.sh/nodepool"] = "x"
    node_pool["spec"]["template"]["spec"]["requirements"].append({"key": "k", "operator": "In", "values": []})
    node_pool["spec"]["disruption"]["consolidateAfter"] = "soon"
    node_pool["spec"]["disruption"]["budgets"][0]["schedule"] = "@daily"
    errors = problems_of(node_pool, "aws")
    assert len(errors) == 4, errors
    node_class["spec"]["instanceProfile"] = "p"  # with role: exactly one of them
    node_class["spec"]["amiSelectorTerms"].append({"alias": "al2023@latest"})
    node_class["spec"]["tags"]["karpenter.sh/nodepool"] = "x"
    node_class["spec"]["bogus"] = True
    errors = problems_of(node_class)
    assert len(errors) == 4, errors


# --- Karpenter IAM, queue and rules: Karpenter's own template ---------------------------------------------


class _CfnLoader(yaml.SafeLoader):
    pass


for _tag in ("!Sub", "!GetAtt", "!Ref"):
    _CfnLoader.add_constructor(_tag, lambda loader, node, t=_tag: (t, loader.construct_scalar(node)))

CFN_VARS = {
    "AWS::Partition": "aws",
    "AWS::Region": "us-east-1",
    "AWS::AccountId": "111122223333",
    "AWS::URLSuffix": "amazonaws.com",
    "ClusterName": "gpu-demo",
    "KarpenterNodeRole.Arn": "arn:aws:iam::111122223333:role/KarpenterNodeRole-gpu-demo",
    "KarpenterInterruptionQueue.Arn": "arn:aws:sqs:us-east-1:111122223333:gpu-demo",
}
CTX = kp.AwsContext(partition="aws", region="us-east-1", account="111122223333")


def _sub(value: Any) -> Any:
    if isinstance(value, tuple):
        tag, text = value
        if tag == "!Sub":
            return re.sub(r"\$\{([^}]+)\}", lambda m: CFN_VARS[m.group(1)], text)
        if tag == "!GetAtt":
            return CFN_VARS[text]
        return text
    if isinstance(value, dict):
        return {k: _sub(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_sub(v) for v in value]
    return value


@pytest.fixture(scope="module")
def cfn() -> dict[str, Any]:
    path = upstream(
        "karpenter-aws", "website", "getting-started", "getting-started-with-karpenter", "cloudformation.yaml"
    )
    return yaml.load(path.read_text(), Loader=_CfnLoader)["Resources"]


def test_controller_policies_are_the_templates(cfn: dict[str, Any]) -> None:
    ours = kp.controller_policies(
        CTX, "gpu-demo", CFN_VARS["KarpenterNodeRole.Arn"], CFN_VARS["KarpenterInterruptionQueue.Arn"]
    )
    theirs = {
        name: json.loads(_sub(res["Properties"]["PolicyDocument"]))
        for name, res in cfn.items()
        if res["Type"] == "AWS::IAM::ManagedPolicy"
    }
    assert set(ours) == set(theirs)
    for name in ours:
        assert ours[name] == theirs[name], name


def test_node_role_queue_and_rules_are_the_templates(cfn: dict[str, Any]) -> None:
    role = _sub(cfn["KarpenterNodeRole"]["Properties"])
    assert kp.node_role_trust(CTX) == role["AssumeRolePolicyDocument"]
    managed = {arn.rsplit("/", 1)[1] for arn in role["ManagedPolicyArns"]}
    assert set(kp.NODE_POLICIES) == managed - {"AmazonSSMManagedInstanceCore"}  # deliberately without SSM
    queue = cfn["KarpenterInterruptionQueue"]["Properties"]
    assert (
        queue["MessageRetentionPeriod"] == kp.QUEUE_RETENTION_SECONDS
        and queue["SqsManagedSseEnabled"] is True
    )
    policy = _sub(cfn["KarpenterInterruptionQueuePolicy"]["Properties"]["PolicyDocument"])
    assert kp.queue_policy(CFN_VARS["KarpenterInterruptionQueue.Arn"]) == policy
    rules = [res["Properties"] for res in cfn.values() if res["Type"] == "AWS::Events::Rule"]
    assert sorted(json.dumps(r["EventPattern"], sort_keys=True) for r in rules) == sorted(
        json.dumps(p, sort_keys=True) for p in kp.INTERRUPTION_RULES.values()
    )
    assert {t["Id"] for r in rules for t in r["Targets"]} == {kp.EVENT_TARGET_ID}


def _component(run_component: Any, **extra: Any) -> Any:
    args = {
        "cluster_name": "gpu-demo",
        "subnet_ids": ["subnet-a", "subnet-b"],
        "security_group_ids": ["sg-cluster"],
        "system_node_group": "system",
        **extra,
    }

    def program() -> None:
        k = EksKarpenter("karpenter", args)  # type: ignore[arg-type]
        EksKarpenterGpuNodePool(
            "l4-spot",
            {"pool": L4_SPOT, "node_role_name": k.node_role_name, "discovery": k.discovery},
            pulumi.ResourceOptions(depends_on=[k]),
        )

    return run_component(program)


def test_eks_karpenter_component(run_component: Any) -> None:
    plan = _component(run_component)
    node_role = plan.one("aws:iam/role:Role", "karpenter-node-role")
    controller_role = plan.one("aws:iam/role:Role", "karpenter-controller-role")
    assert json.loads(controller_role.inputs["assumeRolePolicy"])["Statement"][0]["Principal"] == {
        "Service": "pods.eks.amazonaws.com"
    }
    entry = plan.one("aws:eks/accessEntry:AccessEntry")
    assert entry.inputs["type"] == "EC2_LINUX" and entry.inputs["clusterName"] == "gpu-demo"
    assert entry.inputs["principalArn"] == "arn:aws:iam::000000000000:role/karpenter-node-role"
    assoc = plan.one("aws:eks/podIdentityAssociation:PodIdentityAssociation")
    assert (assoc.inputs["namespace"], assoc.inputs["serviceAccount"]) == ("kube-system", "karpenter")
    assert assoc.inputs["roleArn"] == "arn:aws:iam::000000000000:role/karpenter-controller-role"
    assert plan.one("aws:eks/addon:Addon").inputs["addonName"] == "eks-pod-identity-agent"
    attached = {r.inputs["role"]: [] for r in plan.by_type("aws:iam/rolePolicyAttachment")}
    for r in plan.by_type("aws:iam/rolePolicyAttachment"):
        attached[r.inputs["role"]].append(r.inputs["policyArn"])
    assert len(attached[controller_role.name]) == 6
    assert sorted(a.rsplit("/", 1)[1] for a in attached[node_role.name]) == sorted(kp.NODE_POLICIES)
    # The interruption queue feeds the chart; its policy and the five rules point at it.
    queue = plan.one("aws:sqs/queue:Queue")
    assert queue.inputs["messageRetentionSeconds"] == 300 and queue.inputs["sqsManagedSseEnabled"] is True
    targets = plan.by_type("aws:cloudwatch/eventTarget")
    assert len(targets) == 5 and {t.inputs["arn"] for t in targets} == {
        "arn:aws:sqs:mock-region-1:000000000000:karpenter-interruption"
    }
    tags = plan.by_type("aws:ec2/tag:Tag")
    assert {(t.inputs["resourceId"], t.inputs["key"], t.inputs["value"]) for t in tags} == {
        ("subnet-a", "karpenter.sh/discovery", "gpu-demo"),
        ("subnet-b", "karpenter.sh/discovery", "gpu-demo"),
        ("sg-cluster", "karpenter.sh/discovery", "gpu-demo"),
    }
    crd = plan.one("kubernetes:helm.sh/v3:Release", "karpenter-crd")
    assert (
        crd.inputs["chart"] == "oci://public.ecr.aws/karpenter/karpenter-crd"
        and crd.inputs["version"] == "1.14.1"
    )
    assert crd.options["retainOnDelete"] is True
    release = plan.one("kubernetes:helm.sh/v3:Release", "karpenter-helm")
    assert release.inputs["chart"] == versions.KARPENTER.chart and release.inputs["version"] == "1.14.1"
    assert release.inputs["skipCrds"] is True and release.inputs["namespace"] == "kube-system"
    values = release.inputs["values"]
    assert values["settings"] == {
        "clusterName": "gpu-demo",
        "interruptionQueue": "karpenter-interruption",
        "ignoreDRARequests": True,
    }
    assert {crd.urn, assoc.urn, entry.urn} <= set(release.depends_on)
    # The GPU NodePool waits for the CRDs (through its dependency on the component).
    node_pool = plan.one("kubernetes:karpenter.sh/v1:NodePool")
    assert crd.urn in node_pool.depends_on
    assert node_pool.inputs["spec"]["template"]["spec"]["taints"][0]["key"] == "nvidia.com/gpu"
    node_class = plan.one("kubernetes:karpenter.k8s.aws/v1:EC2NodeClass")
    assert node_class.inputs["spec"]["role"] == "karpenter-node-role"
    assert problems_of({k: node_class.inputs[k] for k in ("apiVersion", "kind", "metadata", "spec")}) == []


def test_controller_never_runs_on_karpenter_nodes_rendered() -> None:
    plan = plan_eks_karpenter(
        {
            "cluster_name": "gpu-demo",
            "subnet_ids": ["subnet-0123456789abcdef0"],
            "security_group_ids": ["g"],
            "system_node_group": "system",
        }
    )
    objects = rendered_documents(
        "karpenter-aws-1.14.1",
        kp.controller_values(plan, "gpu-demo", "gpu-demo-q"),
        "karpenter",
        "kube-system",
        skip_without_helm=True,
    )
    (deployment,) = of_kind(objects, "Deployment")
    pod = deployment["spec"]["template"]["spec"]
    terms = pod["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"][
        "nodeSelectorTerms"
    ]
    assert terms == [
        {
            "matchExpressions": [
                {"key": "karpenter.sh/nodepool", "operator": "DoesNotExist"},
                {"key": "eks.amazonaws.com/nodegroup", "operator": "In", "values": ["system"]},
            ]
        }
    ]
    assert pod["serviceAccountName"] == kp.SERVICE_ACCOUNT
    (container,) = pod["containers"]
    assert (
        container["image"] == f"public.ecr.aws/karpenter/controller:1.14.1@{versions.KARPENTER_IMAGE_DIGEST}"
    )
    env = {e["name"]: e.get("value") for e in container["env"]}
    assert env["CLUSTER_NAME"] == "gpu-demo" and env["INTERRUPTION_QUEUE"] == "gpu-demo-q"
    assert container["resources"] == kp.CONTROLLER_RESOURCES


def test_controller_args_problems() -> None:
    found = arg_problems(
        plan_eks_karpenter,
        {
            "cluster_name": "c",
            "subnet_ids": [],
            "security_group_ids": ["g"],
            "replicas": 5,
            "values": {"settings": {"clusterName": "x"}},
        },
    )
    assert set(found) == {"subnet_ids", "replicas", "values.settings.clusterName"}


def test_what_karpenters_simulation_cannot_see_is_refused() -> None:
    """Karpenter sizes nodes by the instance type's whole GPUs and ignores DRA claims (not GA in 1.14)."""
    shared = {**L4_SPOT, "sharing": {"mode": "time-slicing", "replicas": 4}}
    found = arg_problems(plan_eks_karpenter_pool, {"pool": shared, **KARPENTER_INPUTS})
    assert list(found) == ["pool.sharing.mode"] and "a node per pod" in found["pool.sharing.mode"]
    mig = {
        "name": "h100",
        "machine_type": "p5.48xlarge",
        "max_nodes": 1,
        "sharing": {"mode": "mig", "mig": {"layout": "all-1g.10gb"}},
    }
    assert list(arg_problems(plan_eks_karpenter_pool, {"pool": mig, **KARPENTER_INPUTS})) == [
        "pool.sharing.mode"
    ]
    dra = arg_problems(
        plan_eks_karpenter_pool, {"pool": {**L4_SPOT, "allocation": "dra"}, **KARPENTER_INPUTS}
    )
    assert list(dra) == ["pool.allocation"] and "IGNORE_DRA_REQUESTS" in dra["pool.allocation"]


def test_vendored_files_exist() -> None:
    for parts in (
        ("karpenter-aws", "crds", "karpenter.sh_nodepools.yaml"),
        ("gke-computeclass", "computeclass_v1.json"),
    ):
        assert isinstance(upstream(*parts), Path)


def test_bottlerocket_without_a_release_is_refused_naming_ami_version() -> None:
    with pytest.raises(ArgumentsError) as err:
        eks_plan(L4_BOTTLEROCKET)
    assert "ami_version: BOTTLEROCKET_x86_64_NVIDIA has no AMI release pinned" in str(err.value)
    latest = eks_objects(eks_plan(L4_BOTTLEROCKET, ami_version="latest"))[1]
    assert latest["spec"]["amiSelectorTerms"] == [{"alias": "bottlerocket@latest"}]
