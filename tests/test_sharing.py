"""Capacity per node for each sharing mode, and the device-plugin / mig-parted renderers."""

from __future__ import annotations

import pytest
import yaml

from gpu_platform.errors import ArgumentsError
from gpu_platform.resolve.cluster_pools import resolve_pools
from gpu_platform.sharing import (
    advertised_resources,
    cluster_mig_strategy,
    device_plugin_config,
    device_plugin_config_key,
    mig_parted_config,
)
from tests.support.pools import resolved_pool


@pytest.mark.parametrize(
    ("cloud", "spec", "expected"),
    [
        ("gke", {"machine_type": "g2-standard-8"}, {"nvidia.com/gpu": 1}),
        (
            "gke",
            {"machine_type": "g2-standard-8", "sharing": {"mode": "time-slicing", "replicas": 4}},
            {"nvidia.com/gpu": 4},
        ),
        (
            "gke",
            {"machine_type": "g2-standard-48", "sharing": {"mode": "time-slicing", "replicas": 4}},
            {"nvidia.com/gpu": 16},
        ),
        (
            "eks",
            {
                "machine_type": "g6.xlarge",
                "sharing": {"mode": "time-slicing", "replicas": 4, "rename_by_default": True},
            },
            {"nvidia.com/gpu.shared": 4},
        ),
        (
            "eks",
            {"machine_type": "g6e.12xlarge", "sharing": {"mode": "mps", "replicas": 3}},
            {"nvidia.com/gpu": 12},
        ),
        (
            "eks",
            {"machine_type": "p5.48xlarge", "sharing": {"mode": "mig", "mig": {"layout": "all-1g.10gb"}}},
            {"nvidia.com/mig-1g.10gb": 56},
        ),
        (
            "eks",
            {
                "machine_type": "p5.48xlarge",
                "sharing": {"mode": "mig", "mig": {"layout": "all-1g.10gb", "strategy": "single"}},
            },
            {"nvidia.com/gpu": 56},
        ),
        (
            "gke",
            {"machine_type": "a3-highgpu-8g", "sharing": {"mode": "mig", "mig": {"layout": "all-balanced"}}},
            {"nvidia.com/mig-1g.10gb": 16, "nvidia.com/mig-2g.20gb": 8, "nvidia.com/mig-3g.40gb": 8},
        ),
        (
            "aks",
            {
                "machine_type": "Standard_NC40ads_H100_v5",
                "sharing": {"mode": "mig", "mig": {"profiles": ["3g.47gb", "2g.24gb", "2g.24gb"]}},
            },
            {"nvidia.com/mig-3g.47gb": 1, "nvidia.com/mig-2g.24gb": 2},
        ),
        ("existing", {"gpu": "a100-80gb", "gpus_per_node": 4}, {"nvidia.com/gpu": 4}),
        ("gke", {"machine_type": "n1-standard-8", "gpus_per_node": 4}, {"nvidia.com/gpu": 4}),
    ],
)
def test_advertised_resources(cloud: str, spec: dict, expected: dict) -> None:
    assert advertised_resources(resolved_pool(cloud, **spec)) == expected


def test_time_slicing_config_has_the_device_plugin_shape() -> None:
    p = resolved_pool(
        "gke",
        machine_type="g2-standard-8",
        sharing={"mode": "time-slicing", "replicas": 4, "fail_requests_greater_than_one": True},
    )
    assert device_plugin_config_key(p) == "p-time-slicing-4"
    assert device_plugin_config(p, "none") == {
        "version": "v1",
        "flags": {"migStrategy": "none"},
        "sharing": {
            "timeSlicing": {
                "renameByDefault": False,
                "failRequestsGreaterThanOne": True,
                "resources": [{"name": "nvidia.com/gpu", "replicas": 4}],
            }
        },
    }


def test_mps_config_shape() -> None:
    p = resolved_pool("eks", machine_type="g6.xlarge", sharing={"mode": "mps", "replicas": 2})
    cfg = device_plugin_config(p, "none")
    assert cfg["sharing"] == {
        "mps": {"renameByDefault": False, "resources": [{"name": "nvidia.com/gpu", "replicas": 2}]}
    }


def test_no_device_plugin_config_for_plain_mig_or_cloud_managed_pools() -> None:
    assert device_plugin_config_key(resolved_pool("gke", machine_type="g2-standard-8")) is None
    assert (
        device_plugin_config_key(
            resolved_pool(
                "gke",
                machine_type="g2-standard-8",
                sharing={"mode": "time-slicing", "replicas": 4, "managed_by": "cloud"},
            )
        )
        is None
    )


def test_mig_parted_config_per_gpu_with_device_filters() -> None:
    h100 = resolved_pool(
        "eks",
        machine_type="p5.48xlarge",
        sharing={"mode": "mig", "mig": {"profiles": ["3g.40gb", "2g.20gb", "2g.20gb"]}},
    )
    a100 = resolve_pools(
        "eks",
        [
            {
                "name": "a100",
                "machine_type": "p4d.24xlarge",
                "max_nodes": 1,
                "sharing": {"mode": "mig", "mig": {"layout": "all-balanced"}},
            }
        ],
    )[0]
    cfg = mig_parted_config([h100, a100])
    assert cfg["version"] == "v1"
    configs = cfg["mig-configs"]
    assert configs["all-disabled"] == [{"devices": "all", "mig-enabled": False}]
    assert configs["custom-p"] == [
        {
            "device-filter": ["0x233010DE", "0x233110DE", "0x232210DE", "0x232410DE"],
            "devices": "all",
            "mig-enabled": True,
            "mig-devices": {"2g.20gb": 2, "3g.40gb": 1},
        }
    ]
    assert configs["all-balanced"][0]["mig-devices"] == {"1g.5gb": 2, "2g.10gb": 1, "3g.20gb": 1}
    yaml.safe_load(yaml.safe_dump(cfg))


def test_cluster_mig_strategy() -> None:
    single = resolved_pool(
        "eks",
        machine_type="p5.48xlarge",
        sharing={"mode": "mig", "mig": {"layout": "all-1g.10gb", "strategy": "single"}},
    )
    mixed = resolved_pool(
        "eks", machine_type="p5.48xlarge", sharing={"mode": "mig", "mig": {"layout": "all-balanced"}}
    )
    assert cluster_mig_strategy([single]) == "single"
    assert cluster_mig_strategy([mixed]) == "mixed"


def test_a_list_of_profiles_under_layout_is_refused_pointing_at_profiles() -> None:
    with pytest.raises(ArgumentsError) as err:
        resolved_pool(
            "eks",
            machine_type="p5.48xlarge",
            sharing={"mode": "mig", "mig": {"layout": ["3g.40gb", "2g.20gb", "2g.20gb"]}},
        )
    [(path, reason)] = err.value.problems
    assert path == "pools[0].sharing.mig.layout"
    assert "mig.profiles" in reason
