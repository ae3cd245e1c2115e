"""What each cloud's auto-provisioner cannot express of a pool: reached through the cloud's profile
(``provisioner_problems``), refused at the key that asks for it."""

from gpu_platform.cloud_facts import profile_of
from gpu_platform.cloud_facts.autoprovisioning import scale_from_zero_problems
from gpu_platform.errors import Problems
from tests.support.pools import resolved_pool


def _refused(cloud: str, **raw: object) -> list[tuple[tuple[str | int, ...], str]]:
    p = Problems(("pool",))
    profile_of(cloud).provisioner_problems(resolved_pool(cloud, **raw), p)
    return p.items


def test_karpenter_on_eks_refuses_efa_warm_nodes_and_the_operators_shared_gpus() -> None:
    found = _refused(
        "eks",
        machine_type="p4d.24xlarge",
        min_nodes=1,
        efa=True,
        sharing={"mode": "time-slicing", "replicas": 2},
    )
    assert [loc for loc, _ in found] == [
        ("pool", "min_nodes"),
        ("pool", "sharing", "mode"),
        ("pool", "efa"),
    ]
    assert found[0][1].startswith(
        "Karpenter creates nodes only for pending pods: a minimum of 1 warm node(s)"
    )
    assert "use EksGpuNodePool for them" in found[2][1]


def test_aks_node_auto_provisioning_refuses_zones_and_a_spot_max_price() -> None:
    found = _refused(
        "aks", machine_type="Standard_NC24ads_A100_v4", zones=["1"], spot=True, spot_max_price=0.5
    )
    assert [loc for loc, _ in found] == [("pool", "zones"), ("pool", "spot_max_price")]
    assert found[1][1] == "AKS NAP buys spot at up to the on-demand price; a max price cannot be set"


def test_a_gke_compute_class_refuses_operator_managed_sharing() -> None:
    found = _refused("gke", machine_type="g2-standard-8", sharing={"mode": "time-slicing", "replicas": 2})
    assert [loc for loc, _ in found] == [("pool", "sharing", "managed_by")]
    assert "ComputeClass gpuSharing" in found[0][1]


def test_clouds_without_an_auto_provisioner_refuse_nothing_here() -> None:
    assert _refused("existing", gpu="h100-80gb", min_nodes=1, gpus_per_node=8) == []


def test_initial_nodes_other_than_the_minimum_are_refused_for_every_auto_provisioner() -> None:
    p = Problems()
    scale_from_zero_problems(resolved_pool("gke", machine_type="g2-standard-8", initial_nodes=1), p, "X")
    assert p.items == [(("initial_nodes",), "X starts with no nodes; use 0")]


def test_the_eks_profile_gives_a_one_source_pool_its_node_group_capacity_type() -> None:
    eks = profile_of("eks")
    assert [eks.pool_capacity_type(s) for s in ("spot", "capacity-block", "on-demand", "reservation")] == [
        "SPOT",
        "CAPACITY_BLOCK",
        "ON_DEMAND",
        "ON_DEMAND",
    ]
    assert profile_of("gke").pool_capacity_type("spot") is None
