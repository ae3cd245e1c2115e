"""The stack's add-ons depend only on what Kubernetes or the provider needs (issue 22): a LocalQueue on its
own ClusterQueue and namespace, never on every queue or namespace; the count does not grow with teams."""

from __future__ import annotations

from typing import Any

from tests.conftest import REPO

LQ = "kubernetes:kueue.x-k8s.io/v1beta2:LocalQueue"
CQ = "kubernetes:kueue.x-k8s.io/v1beta2:ClusterQueue"


def _teams(n: int) -> dict[str, Any]:
    pools = [
        {"name": f"a{i}", "gpu": "a100-80gb", "gpusPerNode": 4, "cpusPerNode": 64, "memoryGibPerNode": 512}
        | {"maxNodes": 1}
        for i in range(n)
    ]
    return {
        "gpu-platform:cloud": "existing",
        "gpu-platform:cluster": {"name": "onprem", "kubeconfig": {"secure": "v1:placeholder"}},
        "gpu-platform:gpuPools": pools,
        "gpu-platform:gpuOperator": {"enabled": False, "driver": {"owner": "operator"}},
        "gpu-platform:kueue": {
            "clusterQueues": [{"name": f"q{i}", "pools": [f"a{i}"], "cohort": "all"} for i in range(n)],
            "teams": [{"name": f"t{i}", "clusterQueue": f"q{i}"} for i in range(n)],
        },
    }


def test_a_local_queue_depends_on_its_release_namespace_and_cluster_queue_only(plan_stack: Any) -> None:
    plan = plan_stack("test", REPO, _teams(4))
    by_urn = {r.urn: r for r in plan.resources}
    release = plan.one("kubernetes:helm.sh/v3:Release", "kueue-helm").urn
    local_queues = plan.by_type(LQ)
    assert len(local_queues) == 4
    for lq in local_queues:
        namespace = lq.inputs["metadata"]["namespace"]
        queue = lq.inputs["spec"]["clusterQueue"]
        kinds = sorted(by_urn[d].type for d in lq.depends_on)
        assert kinds == sorted([CQ, "kubernetes:core/v1:Namespace", "kubernetes:helm.sh/v3:Release"])
        assert release in lq.depends_on
        (cq,) = [by_urn[d] for d in lq.depends_on if by_urn[d].type == CQ]
        assert cq.inputs["metadata"]["name"] == queue
        (ns,) = [by_urn[d] for d in lq.depends_on if by_urn[d].type == "kubernetes:core/v1:Namespace"]
        assert ns.inputs["metadata"]["name"] == namespace
    # The Kueue component waits only for the Prometheus Operator CRDs (its chart renders a ServiceMonitor):
    # no namespace list fans out to its children.
    crds = plan.one("kubernetes:helm.sh/v3:Release", "observability-crds").urn
    assert plan.one("gpu-platform:index:Kueue").depends_on == [crds]
