"""The issue-16 examples plan offline, and what they plan is valid upstream and does what the README says.

- examples/dra-mig-claims: a pod claims one MIG slice through a ResourceClaimTemplate served by the DRA driver;
- examples/eks-karpenter-gpu: a Kueue-queued Job that a Karpenter GPU NodePool can serve from zero nodes.

Custom resources are validated against the pinned CRDs (CEL included), built-in objects against Kubernetes
1.34's schemas.
"""

from __future__ import annotations

from typing import Any

import kubernetes_validate
import pytest
import yaml

from gpu_platform.addons.workloads.plan import kueue_integrations
from gpu_platform.offline import Plan, run_plan
from gpu_platform.policy_model.kube import tolerates
from gpu_platform.pools import Taint
from tests.conftest import REPO
from tests.support.crds import problems_of
from tests.support.helm import rendered_documents

RELEASE = "kubernetes:helm.sh/v3:Release"


def obj(r: Any) -> dict[str, Any]:
    """A registered Kubernetes resource as the object sent to the API server."""
    inputs = dict(r.inputs)
    if "apiVersion" not in inputs:
        group_version, kind = r.type.split(":")[1], r.type.split(":")[2]
        inputs["apiVersion"] = (
            group_version.replace("core/", "") if group_version.startswith("core/") else group_version
        )
        inputs["kind"] = kind
    return inputs


# --- DRA: a pod claiming one MIG slice -------------------------------------------------------------------


@pytest.fixture(scope="module")
def dra_plan() -> Plan:
    return run_plan(REPO / "examples" / "dra-mig-claims", "example")


def test_pod_claims_one_mig_slice_through_the_template(dra_plan: Plan) -> None:
    pod = obj(dra_plan.one("kubernetes:core/v1:Pod"))
    (template_res,) = dra_plan.by_type("kubernetes:resource.k8s.io/v1:ResourceClaimTemplate")
    template = obj(template_res)
    (claim,) = pod["spec"]["resourceClaims"]
    assert claim["resourceClaimTemplateName"] == template["metadata"]["name"] == "mig-1g-5gb"
    assert pod["metadata"]["namespace"] == template["metadata"]["namespace"] == "inference"
    (container,) = pod["spec"]["containers"]
    assert container["resources"] == {"claims": [{"name": claim["name"]}]}  # no nvidia.com/* request at all
    (request,) = template["spec"]["spec"]["devices"]["requests"]
    (device_class,) = dra_plan.by_type("kubernetes:resource.k8s.io/v1:DeviceClass")
    assert request["exactly"]["deviceClassName"] == obj(device_class)["metadata"]["name"]
    assert request["exactly"]["count"] == 1
    assert "profile == '1g.5gb'" in obj(device_class)["spec"]["selectors"][0]["cel"]["expression"]
    for o in (pod, template, obj(device_class)):
        kubernetes_validate.validate(o, "1.34", strict=True)
    # The pod goes where the slices are: the pool's labels, and it tolerates the pool's taint.
    pool = dra_plan.one("azure-native:containerservice:AgentPool")
    assert set(pod["spec"]["nodeSelector"].items()) <= set(pool.inputs["nodeLabels"].items())
    assert pool.inputs["gpuInstanceProfile"] == "MIG1g"
    assert pool.inputs["nodeLabels"]["nvidia.com/dra-kubelet-plugin"] == "true"


def test_no_device_plugin_next_to_dra(dra_plan: Plan) -> None:
    values = dra_plan.one(RELEASE, "gpu-operator-helm").inputs["values"]
    assert values["devicePlugin"]["enabled"] is False
    assert values["migManager"]["enabled"] is False
    assert not dra_plan.by_type("kubernetes:core/v1:ConfigMap")  # no device-plugin or mig-parted config
    pool = dra_plan.one("azure-native:containerservice:AgentPool")
    labels = pool.inputs["nodeLabels"]
    assert labels["nvidia.com/gpu.deploy.device-plugin"] == "false"
    assert "nvidia.com/mig.config" not in labels and "nvidia.com/device-plugin.config" not in labels


def test_dra_release_renders_with_the_planned_values(dra_plan: Plan) -> None:
    release = dra_plan.one(RELEASE, "dra-helm")
    assert release.inputs["version"] == "0.4.1"
    docs = rendered_documents(
        "dra-driver-nvidia-gpu-0.4.1",
        release.inputs["values"],
        release.inputs["name"],
        release.inputs["namespace"],
        skip_without_helm=True,
    )
    classes = {d["metadata"]["name"] for d in docs if d.get("kind") == "DeviceClass"}
    assert {"gpu.nvidia.com", "mig.nvidia.com"} <= classes
    (ds,) = [d for d in docs if d.get("kind") == "DaemonSet"]
    assert ds["spec"]["template"]["spec"]["nodeSelector"] == {"nvidia.com/dra-kubelet-plugin": "true"}


# --- Karpenter: a queued job, a NodePool from zero ---------------------------------------------------------


@pytest.fixture(scope="module")
def karpenter_plan() -> Plan:
    return run_plan(REPO / "examples" / "eks-karpenter-gpu", "example")


def test_node_pools_and_node_classes_validate_against_the_crds(karpenter_plan: Plan) -> None:
    pools = karpenter_plan.by_type("kubernetes:karpenter.sh/v1:NodePool")
    classes = karpenter_plan.by_type("kubernetes:karpenter.k8s.aws/v1:EC2NodeClass")
    assert sorted(p.inputs["metadata"]["name"] for p in pools) == ["h100", "l4-spot"]
    assert len(classes) == 2
    for p in pools:
        assert problems_of(obj(p), "aws") == []
        assert p.inputs["spec"]["template"]["spec"]["taints"][0] == {
            "key": "nvidia.com/gpu",
            "value": "present",
            "effect": "NoSchedule",
        }
        assert p.inputs["spec"]["disruption"]["consolidationPolicy"] == "WhenEmpty"
    for c in classes:
        assert problems_of(obj(c)) == []


def test_the_queued_job_can_only_be_served_by_the_node_pool(karpenter_plan: Plan) -> None:
    job = obj(karpenter_plan.one("kubernetes:batch/v1:Job"))
    kubernetes_validate.validate(job, "1.34", strict=True)
    (lq,) = karpenter_plan.by_type("kubernetes:kueue.x-k8s.io/v1beta2:LocalQueue")
    assert job["metadata"]["labels"]["kueue.x-k8s.io/queue-name"] == lq.inputs["metadata"]["name"]
    assert job["metadata"]["namespace"] == lq.inputs["metadata"]["namespace"]
    pod = job["spec"]["template"]
    assert pod["metadata"]["annotations"] == {"karpenter.sh/do-not-disrupt": "true"}
    wants = pod["spec"]["containers"][0]["resources"]["limits"]["nvidia.com/gpu"]
    # Kueue admits it against the l4-spot flavor and injects the flavor's node labels and tolerations:
    # the pod then matches exactly the l4-spot NodePool's template, which Karpenter scales from zero.
    flavor = karpenter_plan.one("kubernetes:kueue.x-k8s.io/v1beta2:ResourceFlavor", "kueue-flavor-l4-spot")
    node_pool = karpenter_plan.one("kubernetes:karpenter.sh/v1:NodePool", "l4-spot-nodepool").inputs["spec"]
    template = node_pool["template"]
    assert set(flavor.inputs["spec"]["nodeLabels"].items()) <= set(template["metadata"]["labels"].items())
    for taint in template["spec"]["taints"]:
        assert any(
            tolerates(t, Taint(taint["key"], taint["value"], taint["effect"]))
            for t in flavor.inputs["spec"]["tolerations"]
        )
    assert int(node_pool["limits"]["nvidia.com/gpu"]) >= wants
    # No other NodePool matches the injected labels.
    other = karpenter_plan.one("kubernetes:karpenter.sh/v1:NodePool", "h100-nodepool").inputs["spec"][
        "template"
    ]
    assert not set(flavor.inputs["spec"]["nodeLabels"].items()) <= set(other["metadata"]["labels"].items())


def test_controller_runs_on_the_system_node_group(karpenter_plan: Plan) -> None:
    system = karpenter_plan.one("aws:eks/nodeGroup:NodeGroup")
    assert system.inputs["scalingConfig"]["minSize"] == 2
    values = karpenter_plan.one(RELEASE, "karpenter-helm").inputs["values"]
    (term,) = values["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"][
        "nodeSelectorTerms"
    ]
    pinned = {
        "key": "eks.amazonaws.com/nodegroup",
        "operator": "In",
        "values": [system.inputs["nodeGroupName"]],
    }
    assert pinned in term["matchExpressions"]
    assert {"key": "karpenter.sh/nodepool", "operator": "DoesNotExist"} in term["matchExpressions"]
    assert values["replicas"] == 2 <= system.inputs["scalingConfig"]["minSize"]


def test_discovery_tags_are_the_subnets_own_and_kueue_integrates_only_what_runs(karpenter_plan: Plan) -> None:
    """A separate ``aws.ec2.Tag`` on a subnet whose ``tags`` the cluster owns is stripped by ``up --refresh``."""
    # One tag resource: on the security group EKS creates (its tags are not the program's); none on subnets.
    (tag,) = karpenter_plan.by_type("aws:ec2/tag:Tag")
    assert tag.inputs["key"] == "karpenter.sh/discovery" and "EksCluster" in tag.urn
    subnets = karpenter_plan.by_type("aws:ec2/subnet:Subnet")
    private = [s for s in subnets if "internal-elb" in " ".join(s.inputs["tags"])]
    assert len(private) == 3
    assert all(s.inputs["tags"]["karpenter.sh/discovery"] == "gpu-karpenter" for s in private)
    (release,) = [
        r for r in karpenter_plan.by_type("kubernetes:helm.sh/v3:Release") if r.name == "kueue-helm"
    ]
    frameworks = yaml.safe_load(release.inputs["values"]["managerConfig"]["controllerManagerConfigYaml"])[
        "integrations"
    ]["frameworks"]
    assert frameworks == kueue_integrations([])
    assert not any(
        f.startswith(("jobset", "kubeflow", "trainer", "leaderworkerset", "ray")) for f in frameworks
    )
