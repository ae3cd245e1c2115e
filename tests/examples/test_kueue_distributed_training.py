"""examples/kueue-distributed-training plans offline, and its JobSet is a 16-GPU gang on the team queue."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from gpu_platform.cli import main
from gpu_platform.offline import Plan, run_plan
from tests.conftest import REPO

EXAMPLE = REPO / "examples" / "kueue-distributed-training"
KUEUE = "kubernetes:kueue.x-k8s.io/v1beta2:"


@pytest.fixture(scope="module")
def plan() -> Plan:
    return run_plan(EXAMPLE, "example")


def _jobset(plan: Plan) -> dict[str, Any]:
    return plan.one("kubernetes:jobset.x-k8s.io/v1alpha2:JobSet", "pytorch-ddp").inputs


def test_cli_plans_the_example(tmp_path: Path) -> None:
    assert main(["plan", "--project", str(EXAMPLE), "--stack", "example", "--out", str(tmp_path)]) == 0
    assert (tmp_path / "manifests" / "JobSet-ml-research-pytorch-ddp.yaml").exists()


def test_jobset_targets_the_team_local_queue(plan: Plan) -> None:
    meta = _jobset(plan)["metadata"]
    (lq,) = plan.by_type(KUEUE + "LocalQueue")
    assert meta["labels"]["kueue.x-k8s.io/queue-name"] == lq.inputs["metadata"]["name"] == "training"
    assert meta["namespace"] == lq.inputs["metadata"]["namespace"] == "ml-research"
    priorities = {r.inputs["metadata"]["name"] for r in plan.by_type(KUEUE + "WorkloadPriorityClass")}
    assert meta["labels"]["kueue.x-k8s.io/priority-class"] in priorities
    assert "suspend" not in _jobset(plan)["spec"]  # Kueue owns it


def test_every_pod_asks_for_a_whole_node_with_requests_equal_to_limits(plan: Plan) -> None:
    (rjob,) = _jobset(plan)["spec"]["replicatedJobs"]
    job = rjob["template"]["spec"]
    assert job["parallelism"] == job["completions"] == 2 and job["completionMode"] == "Indexed"
    (container,) = job["template"]["spec"]["containers"]
    res = container["resources"]
    assert res["requests"] == res["limits"]
    assert res["limits"]["nvidia.com/gpu"] == 8
    assert "tolerations" not in job["template"]["spec"]  # Kueue injects the flavor's
    assert "--nnodes=2 --nproc-per-node=8" in container["command"][-1]


def test_the_gang_needs_the_whole_queue_quota(plan: Plan) -> None:
    (rjob,) = _jobset(plan)["spec"]["replicatedJobs"]
    job = rjob["template"]["spec"]
    (container,) = job["template"]["spec"]["containers"]
    gang = rjob["replicas"] * job["parallelism"] * container["resources"]["requests"]["nvidia.com/gpu"]
    (cq,) = plan.by_type(KUEUE + "ClusterQueue")
    (group,) = cq.inputs["spec"]["resourceGroups"]
    (flavor,) = group["flavors"]
    quota = {r["name"]: r["nominalQuota"] for r in flavor["resources"]}
    assert gang == quota["nvidia.com/gpu"] == 16
    conf = plan.one("kubernetes:helm.sh/v3:Release", "kueue-helm").inputs["values"]["managerConfig"][
        "controllerManagerConfigYaml"
    ]
    assert "waitForPodsReady:" in conf and "jobset.x-k8s.io/jobset" in conf


def test_jobset_is_created_after_kueue_through_the_cluster_provider(plan: Plan) -> None:
    jobset = plan.one("kubernetes:jobset.x-k8s.io/v1alpha2:JobSet", "pytorch-ddp")
    provider = plan.one("pulumi:providers:kubernetes", "cluster")
    assert jobset.provider.startswith(provider.urn)
    lq = plan.one(KUEUE + "LocalQueue")
    component = plan.one("gpu-platform:index:Kueue")
    assert lq.urn in jobset.depends_on or component.urn in jobset.depends_on
    # The JobSet controller is installed by the library before the JobSet is created.
    assert plan.one("kubernetes:helm.sh/v3:Release", "jobset-helm").urn in jobset.depends_on
    assert jobset.options["replaceOnChanges"] == ["spec"] and jobset.options["deleteBeforeReplace"]


def test_every_pod_takes_the_nodes_efa_devices_and_the_queue_covers_them(plan: Plan) -> None:
    """Without vpc.amazonaws.com/efa in the pod, NCCL runs over TCP; without it in the ClusterQueue, Kueue
    never admits the job."""
    from gpu_platform.cloud_facts import profile_of

    p5 = profile_of("eks").machine("p5.48xlarge")
    assert p5 is not None
    (rjob,) = _jobset(plan)["spec"]["replicatedJobs"]
    (container,) = rjob["template"]["spec"]["template"]["spec"]["containers"]
    assert container["resources"]["limits"]["vpc.amazonaws.com/efa"] == p5.efa_interfaces == 32
    assert {"name": "FI_PROVIDER", "value": "efa"} in container["env"]
    (cq,) = plan.by_type(KUEUE + "ClusterQueue")
    (group,) = cq.inputs["spec"]["resourceGroups"]
    assert "vpc.amazonaws.com/efa" in group["coveredResources"]
    pool = next(f for f in group["flavors"] if f["name"] == "h100-efa")
    quota = {r["name"]: r["nominalQuota"] for r in pool["resources"]}
    assert quota["vpc.amazonaws.com/efa"] == 2 * 32


def test_every_pod_takes_the_huge_pages_efa_needs_and_the_queue_covers_them(plan: Plan) -> None:
    """AWS's EFA pod spec requests ``hugepages-2Mi: 5120Mi``; a resource the ClusterQueue does not cover
    keeps the job from being admitted, however much GPU quota is free."""
    (rjob,) = _jobset(plan)["spec"]["replicatedJobs"]
    (container,) = rjob["template"]["spec"]["template"]["spec"]["containers"]
    assert container["resources"]["requests"]["hugepages-2Mi"] == "5120Mi"
    assert container["resources"]["limits"]["hugepages-2Mi"] == "5120Mi"
    (cq,) = plan.by_type(KUEUE + "ClusterQueue")
    (group,) = cq.inputs["spec"]["resourceGroups"]
    assert "hugepages-2Mi" in group["coveredResources"]
    pool = next(f for f in group["flavors"] if f["name"] == "h100-efa")
    quota = {r["name"]: r["nominalQuota"] for r in pool["resources"]}
    assert quota["hugepages-2Mi"] == f"{2 * 5120}Mi"


def test_no_rank_is_evicted_by_the_cluster_autoscaler(plan: Plan) -> None:
    """``backoffLimit: 0``: one eviction fails the run, so the pods carry the autoscaler's safe-to-evict."""
    (rjob,) = _jobset(plan)["spec"]["replicatedJobs"]
    pod = rjob["template"]["spec"]["template"]
    assert rjob["template"]["spec"]["backoffLimit"] == 0
    assert pod["metadata"]["annotations"]["cluster-autoscaler.kubernetes.io/safe-to-evict"] == "false"


def test_the_pods_prefer_one_network_node_of_the_pool_topology(plan: Plan) -> None:
    (rjob,) = _jobset(plan)["spec"]["replicatedJobs"]
    annotations = rjob["template"]["spec"]["template"]["metadata"]["annotations"]
    level = annotations["kueue.x-k8s.io/podset-preferred-topology"]
    (flavor,) = [
        f for f in plan.by_type(KUEUE + "ResourceFlavor") if f.inputs["metadata"]["name"] == "h100-efa"
    ]
    (topology,) = plan.by_type(KUEUE + "Topology")
    assert flavor.inputs["spec"]["topologyName"] == topology.inputs["metadata"]["name"]
    # The annotated level is one of the Topology's levels, or Kueue could never place the pod set.
    assert level in [lvl["nodeLabel"] for lvl in topology.inputs["spec"]["levels"]]
