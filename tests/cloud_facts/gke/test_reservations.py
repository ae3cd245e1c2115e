"""A GKE pool's ``reservation`` takes every form Compute Engine's specific reservation affinity takes: a name, a
block of it (``<reservation>/reservationBlocks/<block>``), a sub-block, and a shared reservation of another project
(``projects/<project>/reservations/<reservation>[/reservationBlocks/<block>...]``); the node pool consumes exactly
that path, and a ComputeClass names its parts in the CRD's fields (``name``, ``project``, ``reservationBlock``)."""

from __future__ import annotations

from typing import Any

import pytest

from gpu_platform.clouds.gke.compute_class_plan import compute_class
from gpu_platform.errors import ArgumentsError
from tests.support.crds import problems_of
from tests.support.plans import plan_gke_compute_class, plan_gke_node_pool

GKE = {"cluster": "c", "location": "us-central1"}
A4 = {"name": "b200", "machine_type": "a4-highgpu-8g", "max_nodes": 2, "zones": ["us-central1-b"]}


def _pool(reservation: str, **source: Any) -> dict[str, Any]:
    return {**A4, "capacity": [{"source": "reservation", "reservation": reservation, **source}]}


@pytest.mark.parametrize(
    ("reservation", "source", "consumed"),
    [
        ("a4-res", {}, "a4-res"),
        ("a4-res/reservationBlocks/a4-res-block-1", {}, "a4-res/reservationBlocks/a4-res-block-1"),
        (
            "a4-res/reservationBlocks/block-1/reservationSubBlocks/sub-block-0001",
            {},
            "a4-res/reservationBlocks/block-1/reservationSubBlocks/sub-block-0001",
        ),
        (
            "projects/gpu-host-project/reservations/a4-res",
            {},
            "projects/gpu-host-project/reservations/a4-res",
        ),
        (
            "projects/gpu-host-project/reservations/a4-res/reservationBlocks/b1",
            {},
            "projects/gpu-host-project/reservations/a4-res/reservationBlocks/b1",
        ),
        (
            "a4-res/reservationBlocks/b1",
            {"project": "gpu-host-project"},
            "projects/gpu-host-project/reservations/a4-res/reservationBlocks/b1",
        ),
    ],
)
def test_every_specific_reservation_form_is_consumed_as_given(
    reservation: str, source: dict[str, Any], consumed: str
) -> None:
    plan = plan_gke_node_pool({**GKE, "pool": _pool(reservation, **source)})
    assert plan.reservation_affinity == {
        "consume_reservation_type": "SPECIFIC_RESERVATION",
        "key": "compute.googleapis.com/reservation-name",
        "values": [consumed],
    }


def test_a_compute_class_names_the_block_and_sub_block_in_their_own_fields() -> None:
    path = "projects/gpu-host-project/reservations/a4-res/reservationBlocks/b1/reservationSubBlocks/s1"
    obj = compute_class(plan_gke_compute_class({"pool": {**_pool(path), "name": "b200-auto"}}))
    rules = obj["spec"]["priorities"]
    assert rules[0]["reservations"] == {
        "affinity": "Specific",
        "specific": [
            {
                "name": "a4-res",
                "project": "gpu-host-project",
                "reservationBlock": {"name": "b1", "reservationSubBlock": {"name": "s1"}},
            }
        ],
    }
    assert problems_of(obj) == []


@pytest.mark.parametrize(
    ("reservation", "source", "why"),
    [
        ("A4_Res", {}, "not a reservation"),
        ("a4-res/reservationBlocks/", {}, "not a reservation"),
        ("a4-res/blocks/b1", {}, "not a reservation"),
        ("a4-res/reservationSubBlocks/s1", {}, "not a reservation"),
        ("projects/Bad_Project/reservations/a4-res", {}, "not a reservation"),
        ("projects/gpu-host-project/reservations/a4-res", {"project": "gpu-host-project"}, "once"),
    ],
)
def test_other_forms_are_refused_with_the_grammar(reservation: str, source: dict[str, Any], why: str) -> None:
    with pytest.raises(ArgumentsError) as err:
        plan_gke_node_pool({**GKE, "pool": _pool(reservation, **source)})
    problems = dict(err.value.problems)
    reason = problems.get("pool.capacity[0].reservation", "")
    assert why in reason, problems
    if why != "once":
        assert "<reservation>/reservationBlocks/<block>" in reason


def test_compact_placement_advice_is_a_form_that_plans() -> None:
    with pytest.raises(ArgumentsError) as err:
        plan_gke_node_pool({**GKE, "pool": {**_pool("a4-res"), "compact_placement": True}})
    assert "<reservation>/reservationBlocks/<block>" in dict(err.value.problems)["pool.compact_placement"]
    plan_gke_node_pool({**GKE, "pool": _pool("a4-res/reservationBlocks/a4-res-block-1")})
