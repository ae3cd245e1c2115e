"""No configuration produces a GPU pool without ``nvidia.com/gpu=present:NoSchedule``, on any cloud.

Every route a user has to taints is tried (no taints, other taints, the GPU key with another value or
a weaker effect, every sharing mode, spot, stack config); each either fails with ``ArgumentsError``
(``ConfigError`` for the stack file) or yields pools that carry the taint in the cloud's own shape.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable
from typing import Any

import pytest

from gpu_platform import scheduling
from gpu_platform.clouds.aks.args import AksGpuNodePoolArgs
from gpu_platform.clouds.aks.node_pool import AksGpuNodePool
from gpu_platform.clouds.eks.args import EksGpuNodePoolArgs
from gpu_platform.clouds.eks.node_pool import EksGpuNodePool
from gpu_platform.clouds.gke.args import GkeGpuNodePoolArgs
from gpu_platform.clouds.gke.node_pool import GkeGpuNodePool
from gpu_platform.errors import ArgumentsError
from gpu_platform.offline import Plan, run_program
from gpu_platform.stack import load_platform
from gpu_platform.stack.infrastructure import deploy_infrastructure

GPU = ("nvidia.com/gpu", "present", "NoSchedule")
EFFECT = {"NO_SCHEDULE": "NoSchedule", "PREFER_NO_SCHEDULE": "PreferNoSchedule", "NO_EXECUTE": "NoExecute"}


def gpu_pool_taints(plan: Plan) -> list[list[tuple[str, str, str]]]:
    """Each GPU pool's taints in Kubernetes shape, read back from what the cloud resource receives."""
    out = []
    for r in plan.by_type("gcp:container/nodePool:NodePool"):
        if r.inputs["nodeConfig"].get("guestAccelerators"):
            out.append(
                [
                    (t["key"], t["value"], EFFECT[t["effect"]])
                    for t in r.inputs["nodeConfig"].get("taints", [])
                ]
            )
    for r in plan.by_type("aws:eks/nodeGroup:NodeGroup"):
        if "NVIDIA" in r.inputs.get("amiType", ""):
            out.append(
                [(t["key"], t.get("value", ""), EFFECT[t["effect"]]) for t in r.inputs.get("taints", [])]
            )
    for r in plan.by_type("azure-native:containerservice:AgentPool"):
        out.append(
            [
                (s.split("=", 1)[0], s.split("=", 1)[1].rsplit(":", 1)[0], s.rsplit(":", 1)[1])
                for s in r.inputs.get("nodeTaints", [])
            ]
        )
    return out


BASE: dict[str, tuple[type, dict[str, Any], dict[str, Any]]] = {
    "gke": (GkeGpuNodePool, {"cluster": "c", "location": "us-central1"}, {"machine_type": "a2-highgpu-1g"}),
    "eks": (
        EksGpuNodePool,
        {
            "cluster_name": "c",
            "node_role_arn": "arn:aws:iam::123456789012:role/nodes",
            "subnet_ids": ["subnet-0123456789abcdef0"],
        },
        {"machine_type": "p4d.24xlarge"},
    ),
    "aks": (
        AksGpuNodePool,
        {"resource_group_name": "rg", "cluster_name": "c"},
        {"machine_type": "Standard_ND96asr_v4"},
    ),
}

ROUTES: dict[str, dict[str, Any]] = {
    "defaults": {},
    "empty-taints": {"taints": []},
    "taints-none": {"taints": None},
    "other-taints-only": {
        "taints": [
            {"key": "team", "value": "a", "effect": "NoExecute"},
            {"key": "tier", "effect": "PreferNoSchedule"},
        ]
    },
    "gpu-key-other-value": {"taints": [{"key": "nvidia.com/gpu", "value": "absent", "effect": "NoSchedule"}]},
    "gpu-key-empty-value": {"taints": [{"key": "nvidia.com/gpu", "value": "", "effect": "NoSchedule"}]},
    "gpu-key-no-execute": {"taints": [{"key": "nvidia.com/gpu", "value": "present", "effect": "NoExecute"}]},
    "gpu-key-prefer": {"taints": [{"key": "nvidia.com/gpu", "effect": "PreferNoSchedule"}]},
    "gpu-key-bogus-effect": {"taints": [{"key": "nvidia.com/gpu", "effect": "None"}]},
    "spot": {"spot": True},
    "time-slicing": {"sharing": {"mode": "time-slicing", "replicas": 4}},
    "mps": {"sharing": {"mode": "mps", "replicas": 2}},
    "operator-mig": {"sharing": {"mode": "mig", "mig": {"layout": "all-1g.5gb"}}},
    "cloud-mig": {"sharing": {"mode": "mig", "managed_by": "cloud", "mig": {"layout": "all-1g.5gb"}}},
    "cloud-time-sharing": {"sharing": {"mode": "time-slicing", "replicas": 4, "managed_by": "cloud"}},
    "labels-try-gpu-keys": {"labels": {"nvidia.com/gpu": "none"}},
}


@pytest.mark.parametrize("route", sorted(ROUTES))
@pytest.mark.parametrize("cloud", sorted(BASE))
def test_every_route_keeps_the_gpu_taint(cloud: str, route: str) -> None:
    component, cluster, machine = BASE[cloud]
    pool = {"name": "gpu", "min_nodes": 1, "max_nodes": 2, **machine, **copy.deepcopy(ROUTES[route])}
    args = {**cluster, "pool": pool}
    if cloud == "aks" and route == "cloud-mig":
        args["driver"] = {"owner": "cloud"}
    built: list[Any] = []
    try:
        plan = run_program(lambda: built.append(component("gpu", args)))
    except ArgumentsError as err:
        # Refused before anything was built (no untainted pool either), for the setting the route changed.
        assert ROUTES[route], "the defaults must build"
        assert all(path.startswith(f"pool.{next(iter(ROUTES[route]))}") for path, _ in err.problems), err
        return
    taints = gpu_pool_taints(plan)
    assert len(taints) == 1, plan.resources
    assert GPU in taints[0], taints[0]
    assert taints[0][0] == GPU, "the GPU taint comes first"
    assert not [t for t in taints[0] if t[0] == GPU[0] and t != GPU], "no second, weaker nvidia.com/gpu taint"
    # The component's plan (plain values, readable by other programs) says what the cloud received.
    assert [(t.key, t.value, t.effect) for t in built[0].plan.taints] == taints[0]


def test_weakening_the_gpu_taint_is_an_error_not_a_silent_drop() -> None:
    component, cluster, machine = BASE["gke"]
    pool = {"name": "gpu", "max_nodes": 1, **machine, **ROUTES["gpu-key-no-execute"]}
    with pytest.raises(ArgumentsError) as err:
        run_program(lambda: component("gpu", {**cluster, "pool": pool}))
    assert err.value.problems == [
        (
            "pool.taints[0].effect",
            "the nvidia.com/gpu taint is always NoSchedule on GPU pools; it cannot be weakened",
        )
    ]


def test_the_routes_do_build_pools() -> None:
    """Guard against a vacuous pass: the ordinary routes must produce a tainted pool on every cloud."""
    built = []
    for cloud, (component, cluster, machine) in sorted(BASE.items()):
        for route in ("defaults", "other-taints-only", "gpu-key-other-value", "spot", "time-slicing"):
            args = {
                **cluster,
                "pool": {"name": "gpu", "min_nodes": 1, "max_nodes": 2, **machine, **ROUTES[route]},
            }
            plan = run_program(lambda c=component, a=args: c("gpu", a))
            built += [(cloud, route) for taints in gpu_pool_taints(plan) if taints[0] == GPU]
    assert len(built) == 15, built


@pytest.mark.parametrize("cloud", sorted(BASE))
def test_a_broken_taint_source_is_caught_by_the_guard(cloud: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(scheduling, "pool_taints", lambda pool: [])
    component, cluster, machine = BASE[cloud]
    with pytest.raises(RuntimeError, match=re.escape("without the nvidia.com/gpu=present:NoSchedule taint")):
        run_program(lambda: component("gpu", {**cluster, "pool": {"name": "gpu", "max_nodes": 1, **machine}}))


@pytest.mark.parametrize(
    "args_type", [GkeGpuNodePoolArgs, EksGpuNodePoolArgs, AksGpuNodePoolArgs], ids=["gke", "eks", "aks"]
)
def test_no_argument_bypasses_the_pool_taints(args_type: type) -> None:
    """Taints reach the cloud only through ``pool.taints``: no raw node-config or taint override exists."""
    keys = set(args_type.__annotations__)
    assert not keys & {"taints", "node_taints", "node_config", "node_config_overrides", "extra_args"}


STACK_POOLS: dict[str, dict[str, Any]] = {
    "gke": {"machineType": "g2-standard-8", "spot": True},
    "eks": {"machineType": "g6.xlarge", "spot": True},
    "aks": {"machineType": "Standard_NC4as_T4_v3", "spot": True},
}


@pytest.mark.parametrize("cloud", sorted(STACK_POOLS))
def test_stack_config_pools_keep_the_gpu_taint(cloud: str) -> None:
    raw = {
        "cloud": cloud,
        "cluster": {
            "name": "gpu",
            "region": {"eks": "us-east-1", "aks": "eastus2"}.get(cloud, "us-central1"),
            **({"project": "p"} if cloud == "gke" else {}),
        },
        "gpuPools": [
            {
                "name": "a",
                "maxNodes": 2,
                **STACK_POOLS[cloud],
                "taints": [{"key": "x", "effect": "NoExecute"}],
            },
            {"name": "b", "maxNodes": 2, **STACK_POOLS[cloud]},
        ],
        "gpuOperator": {"enabled": False},
        "kueue": {"enabled": False},
    }
    spec = load_platform(raw)
    run: Callable[[], Any] = lambda: deploy_infrastructure(spec)  # noqa: E731
    taints = gpu_pool_taints(run_program(run))
    assert len(taints) == 2
    assert all(t[0] == GPU for t in taints), taints
