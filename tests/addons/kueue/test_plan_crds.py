"""Every Kueue object the library generates is accepted by Kueue 0.19.2's CRDs (v1beta2) and webhook.

The CRD checks (jsonschema on the ``openAPIV3Schema`` with its maxItems such as 16 resource groups and 8
tolerations and maxProperties such as 8 node labels; unknown fields, which the API server would prune silently,
``cohort`` instead of ``cohortName``; every CEL rule) are ``tests.support.crds``; on top of them, the
ClusterQueue webhook's own checks (resource names in covered order, no resource or flavor twice, non-negative
quotas, lending <= nominal, limits only with a cohort) are ``tests.support.kueue``. Each can fail on its own
(see the negative tests at the end).
"""

from __future__ import annotations

from typing import Any

import kubernetes_validate
import pytest
import yaml

from gpu_platform.addons.kueue.component import Kueue
from gpu_platform.addons.kueue.plan import KueueObjects
from gpu_platform.offline import run_program
from tests.conftest import upstream
from tests.support import crds
from tests.support.kueue import kueue_problems, resource_flavor, webhook_problems
from tests.support.plans import plan_kueue

KINDS = ("ResourceFlavor", "ClusterQueue", "LocalQueue", "WorkloadPriorityClass")
"""Every Kueue kind the library writes (each has a vendored CRD in ``tests.support.crds.CRDS``)."""


def test_v1beta2_is_the_served_storage_version() -> None:
    for kind in KINDS:
        doc = yaml.safe_load(upstream(*crds.CRDS["kueue.x-k8s.io/v1beta2", kind]).read_text())
        (version,) = [v for v in doc["spec"]["versions"] if v["name"] == "v1beta2"]
        assert version["served"] and version["storage"], (
            f"v1beta2 is the served storage version at 0.19.2 ({kind})"
        )


# --- scenarios ----------------------------------------------------------------------------------

H100 = {"gpu": "h100-80gb", "gpus_per_node": 8, "cpus_per_node": 208, "memory_gib_per_node": 1872}
L4 = {"gpu": "l4", "gpus_per_node": 1, "cpus_per_node": 8, "memory_gib_per_node": 32}


def _mixed_scenario() -> KueueObjects:
    # plan_kueue runs every check (ArgumentsError on any problem) before building the objects.
    plan = plan_kueue(
        {
            "cloud": "existing",
            "pools": [
                {"name": "h100", "max_nodes": 2, **H100},
                {
                    "name": "h100-mig",
                    "max_nodes": 2,
                    **H100,
                    "sharing": {"mode": "mig", "mig": {"layout": "all-balanced"}},
                },
                {"name": "l4-ts", "max_nodes": 3, **L4, "sharing": {"mode": "time-slicing", "replicas": 4}},
                {
                    "name": "l4-shared",
                    "max_nodes": 3,
                    **L4,
                    "sharing": {"mode": "mps", "replicas": 2, "rename_by_default": True},
                    "taints": [{"key": "dedicated", "value": "inference", "effect": "NoExecute"}],
                },
            ],
            "cluster_queues": [
                {
                    "name": "training",
                    "pools": ["h100", "h100-mig"],
                    "cohort": "ml",
                    "lending_limit_percent": 50,
                },
                {
                    "name": "inference",
                    "pools": ["l4-ts", "l4-shared"],
                    "cohort": "ml",
                    "borrowing_limit_percent": 25,
                    "queueing_strategy": "StrictFIFO",
                    "preemption": {
                        "reclaim_within_cohort": "LowerPriority",
                        "borrow_within_cohort": "LowerPriority",
                    },
                },
            ],
            "teams": [
                {"name": "research", "cluster_queue": "training"},
                {
                    "name": "serving",
                    "namespace": "prod-serving",
                    "cluster_queue": "inference",
                    "queue_name": "online",
                },
            ],
            "priority_classes": [
                {"name": "urgent", "value": 2000, "description": "pager"},
                {"name": "bulk", "value": -5},
            ],
            # A system flavor first in both queues, with the queues' borrowing/lending limits on it too.
            "system_flavor": {"node_labels": {"node.example.com/role": "cpu"}, "cpus": 33, "memory_gib": 129},
        }
    )
    assert plan.objects.flavors[0]["metadata"]["name"] == "system-cpu"
    return plan.objects


def _cloud_scenarios() -> list[KueueObjects]:
    out = []
    for cloud, pool in (
        ("gke", {"name": "a3", "machine_type": "a3-highgpu-8g", "max_nodes": 4, "spot": True}),
        ("eks", {"name": "p5", "machine_type": "p5.48xlarge", "max_nodes": 2, "capacity_type": "SPOT"}),
        (
            "aks",
            {
                "name": "a100-spot",
                "machine_type": "Standard_NC24ads_A100_v4",
                "max_nodes": 2,
                "spot": True,
                "taints": [{"key": "team", "value": "ml"}],
            },
        ),
        (
            "existing",
            {
                "name": "mig-single",
                "max_nodes": 1,
                **H100,
                "sharing": {"mode": "mig", "mig": {"layout": "all-1g.10gb", "strategy": "single"}},
            },
        ),
    ):
        args = {"cloud": cloud, "pools": [pool], "teams": [{"name": "ml", "cluster_queue": "gpu"}]}
        if cloud != "existing":
            args["system_pool"] = {"max_nodes": 3}  # the cloud's default system machine: a derived quota
        out.append(plan_kueue(args).objects)  # type: ignore[arg-type]
    return out


def _shared_pool_scenario() -> KueueObjects:
    """Two teams on one time-sliced pool (75/25 shares, one lending half of its share, one borrowing a
    quarter of the pool), a queue with ``pools: []`` that only borrows, and the system flavor."""
    plan = plan_kueue(
        {
            "cloud": "existing",
            "pools": [
                {"name": "l4", "max_nodes": 3, **L4, "sharing": {"mode": "time-slicing", "replicas": 4}},
            ],
            "cluster_queues": [
                {
                    "name": "team-a",
                    "pools": ["l4"],
                    "cohort": "l4-teams",
                    "pool_share_percent": {"l4": 75},
                    "lending_limit_percent": 50,
                },
                {
                    "name": "team-b",
                    "pools": ["l4"],
                    "cohort": "l4-teams",
                    "pool_share_percent": {"l4": 25},
                    "borrowing_limit_percent": 25,
                },
                {"name": "guest", "pools": [], "cohort": "l4-teams", "borrowing_limit_percent": 50},
            ],
            "system_flavor": {"node_labels": {"node.example.com/role": "cpu"}, "cpus": 9, "memory_gib": 30},
        }
    )
    return plan.objects


def _all_objects() -> list[dict[str, Any]]:
    scenarios = (_mixed_scenario(), *_cloud_scenarios(), _shared_pool_scenario())
    return [obj for objs in scenarios for obj in objs.custom_resources()]


def test_two_teams_on_one_pool_pass_the_crd_and_webhook_and_add_up_to_the_pool() -> None:
    queues = _shared_pool_scenario().cluster_queues
    assert [q["metadata"]["name"] for q in queues] == ["team-a", "team-b", "guest"]
    for cq in queues:
        assert kueue_problems(cq) == [], cq["metadata"]["name"]
    gpus = [
        next(r for r in f["resources"] if r["name"] == "nvidia.com/gpu")
        for cq in queues
        for f in cq["spec"]["resourceGroups"][0]["flavors"]
        if f["name"] == "l4"
    ]
    assert [r["nominalQuota"] for r in gpus] == [9, 3, 0]  # 3 nodes x 4 replicas, all of it, once
    assert gpus[0]["lendingLimit"] == 4 and gpus[1]["borrowingLimit"] == 3 and gpus[2]["borrowingLimit"] == 6


@pytest.mark.parametrize("obj", _all_objects(), ids=lambda o: f"{o['kind']}-{o['metadata']['name']}")
def test_generated_object_is_accepted_by_the_crd_and_webhook(obj: dict[str, Any]) -> None:
    assert kueue_problems(obj) == []


def test_every_kind_is_covered() -> None:
    assert {o["kind"] for o in _all_objects()} == set(KINDS)


def test_team_namespaces_are_valid_kubernetes_objects() -> None:
    objs = _mixed_scenario()
    assert [n["metadata"]["name"] for n in objs.namespaces] == ["research", "prod-serving"]
    for ns in objs.namespaces:
        kubernetes_validate.validate(ns, "1.33", strict=True)


def test_objects_registered_by_the_component_validate_too() -> None:
    def program() -> None:
        Kueue(
            "kueue",
            {
                "cloud": "existing",
                "pools": [{"name": "h100", "max_nodes": 2, **H100}],  # type: ignore[typeddict-item]
                "teams": [{"name": "ml", "cluster_queue": "gpu"}],
            },
        )

    plan = run_program(program)
    registered = [r.inputs for r in plan.by_type("kubernetes:kueue.x-k8s.io/v1beta2:")]
    assert {o["kind"] for o in registered} == set(KINDS)
    for obj in registered:
        assert kueue_problems(obj) == [], obj["kind"]


# --- the checks can fail ------------------------------------------------------------------------


def test_schema_limits_are_enforced() -> None:
    nine_labels = resource_flavor(nodeLabels={f"l{i}": "x" for i in range(9)})
    assert any("too many properties" in p for p in kueue_problems(nine_labels))
    nine = [{"key": f"t{i}", "operator": "Exists", "effect": "NoSchedule"} for i in range(9)]
    assert any("is too long" in p for p in kueue_problems(resource_flavor(tolerations=nine)))
    cq = _mixed_scenario().cluster_queues[0]
    groups = cq["spec"]["resourceGroups"] * 17
    assert any(
        "is too long" in p for p in kueue_problems({**cq, "spec": {**cq["spec"], "resourceGroups": groups}})
    )


def test_cel_rules_and_unknown_fields_are_enforced() -> None:
    bad = resource_flavor(
        tolerations=[{"key": "k", "operator": "Exists", "value": "v", "effect": "NoSchedule"}]
    )
    assert kueue_problems(bad) == [
        "ResourceFlavor.spec.tolerations: a value must be empty when 'operator' is 'Exists'"
    ]
    cq = _mixed_scenario().cluster_queues[1]
    spec = {k: v for k, v in cq["spec"].items() if k != "cohortName"}
    found = kueue_problems({**cq, "spec": {**spec, "cohort": "ml"}})
    assert "ClusterQueue.spec.cohort: unknown field (the API server would drop it)" in found
    assert "ClusterQueue.spec: borrowingLimit must be nil when cohort is empty" in found


def test_webhook_rules_are_enforced() -> None:
    cq = _mixed_scenario().cluster_queues[0]
    (group,) = cq["spec"]["resourceGroups"]
    flavor = group["flavors"][0]
    swapped = {
        **flavor,
        "resources": [flavor["resources"][1], flavor["resources"][0], *flavor["resources"][2:]],
    }
    found = list(webhook_problems({"spec": {"resourceGroups": [{**group, "flavors": [swapped]}]}}))
    assert any("must match coveredResources in order" in p for p in found)
    twice = {"spec": {"resourceGroups": [group, group]}}
    assert any("in more than one group" in p for p in webhook_problems(twice))
