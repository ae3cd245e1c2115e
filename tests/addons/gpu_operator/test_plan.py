"""The device-plugin and mig-parted ConfigMaps: upstream formats, and pool labels that name their keys.

Formats come from upstream, not from our own renderer: the device-plugin config skeleton is parsed
from the ``version: v1`` examples in NVIDIA/k8s-device-plugin's README, and mig-parted entries are
compared with NVIDIA/mig-parted's example and default configs (same names, same PCI device IDs).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

import pytest
import yaml

from gpu_platform.addons.gpu_operator.checks import resolve_gpu_operator
from gpu_platform.addons.gpu_operator.plan import (
    MIG_PARTED_KEY,
    OperatorPlan,
    device_plugin_config_data,
    gpu_operator_plan,
    mig_parted_config_data,
)
from gpu_platform.catalog import GPUS, MIG_TABLES
from gpu_platform.scheduling import DEVICE_PLUGIN_CONFIG_LABEL, MIG_CONFIG_LABEL, pool_labels
from gpu_platform.sharing import advertised_resources
from tests.conftest import upstream
from tests.support.helm import rendered_cluster_policy

L4_TS = {
    "name": "l4-ts",
    "machine_type": "g2-standard-8",
    "max_nodes": 4,
    "spot": True,
    "sharing": {"mode": "time-slicing", "replicas": 4, "fail_requests_greater_than_one": True},
}
H100_MIG = {
    "name": "h100-mig",
    "machine_type": "a3-highgpu-8g",
    "max_nodes": 2,
    "sharing": {"mode": "mig", "mig": {"layout": "all-1g.10gb"}},
}


def mixed_cluster() -> OperatorPlan:
    return gpu_operator_plan(resolve_gpu_operator({"cloud": "gke", "pools": [L4_TS, H100_MIG]}))


# --- upstream formats ------------------------------------------------------------------------------

PLACEHOLDER_TYPES = {"<bool>": bool, "<num-replicas>": int, "<resource-name>": str}


def _readme_skeleton() -> dict[str, Any]:
    """Union of the ``version: v1`` config examples in the device plugin README, placeholders kept."""
    text = upstream("k8s-device-plugin", "docs", "README.md").read_text()
    skeleton: dict[str, Any] = {}
    for block in re.findall(r"```yaml\n(.*?)```", text, flags=re.S):
        if not block.startswith("version: v1"):
            continue
        body = "\n".join(line for line in block.splitlines() if line.strip() != "...")
        body = re.sub(r"(<[a-z-]+>)", r'"\1"', body)
        _merge(skeleton, yaml.safe_load(body))
    return skeleton


def _merge(into: dict[str, Any], doc: Mapping[str, Any]) -> None:
    for key, value in doc.items():
        if isinstance(value, Mapping):
            _merge(into.setdefault(key, {}), value)
        else:
            into.setdefault(key, value)


def _conforms(doc: Any, skeleton: Any, path: str = "") -> list[str]:
    """Keys and value types of ``doc`` that the upstream skeleton does not have."""
    if isinstance(skeleton, Mapping):
        if not isinstance(doc, Mapping):
            return [f"{path}: expected a map"]
        out = []
        for key, value in doc.items():
            if key not in skeleton:
                out.append(f"{path}.{key}: not in the upstream format")
            else:
                out += _conforms(value, skeleton[key], f"{path}.{key}")
        return out
    if isinstance(skeleton, list):
        if not isinstance(doc, list) or not doc:
            return [f"{path}: expected a non-empty list"]
        return [p for item in doc for p in _conforms(item, skeleton[0], f"{path}[]")]
    expected = PLACEHOLDER_TYPES.get(skeleton, type(skeleton))
    return [] if isinstance(doc, expected) else [f"{path}: {doc!r} is not {expected.__name__}"]


def test_readme_skeleton_has_the_sharing_formats() -> None:
    skeleton = _readme_skeleton()
    assert set(skeleton["sharing"]) >= {"timeSlicing", "mps"}
    assert _conforms({"version": "v1", "sharing": {"timeSlicing": {"replicas": 2}}}, skeleton) == [
        ".sharing.timeSlicing.replicas: not in the upstream format"
    ]


@pytest.mark.parametrize(
    "sharing",
    [
        {"mode": "time-slicing", "replicas": 4},
        {
            "mode": "time-slicing",
            "replicas": 2,
            "rename_by_default": True,
            "fail_requests_greater_than_one": True,
        },
        {"mode": "mps", "replicas": 3},
    ],
)
def test_device_plugin_configs_match_the_upstream_v1_format(sharing: dict[str, Any]) -> None:
    pool = {"name": "l4", "machine_type": "g6.xlarge", "max_nodes": 2, "sharing": sharing}
    plan = gpu_operator_plan(resolve_gpu_operator({"cloud": "eks", "pools": [pool]}))
    data = device_plugin_config_data(plan)
    assert len(data) == 1
    (doc,) = (yaml.safe_load(text) for text in data.values())
    assert _conforms(doc, _readme_skeleton()) == []
    assert doc["version"] == "v1"
    assert doc["flags"]["migStrategy"] in ("none", "single", "mixed")
    mode = "timeSlicing" if sharing["mode"] == "time-slicing" else "mps"
    assert list(doc["sharing"]) == [mode]
    assert doc["sharing"][mode]["resources"] == [{"name": "nvidia.com/gpu", "replicas": sharing["replicas"]}]
    assert doc["sharing"][mode]["renameByDefault"] is sharing.get("rename_by_default", False)


def _upstream_mig_configs() -> dict[str, list[dict[str, Any]]]:
    out: dict[str, list[dict[str, Any]]] = {}
    for parts in (("examples", "config.yaml"), ("deployments", "systemd", "config-default.yaml")):
        doc = yaml.safe_load(upstream("mig-parted", *parts).read_text())
        assert doc["version"] == "v1"
        for name, entries in doc["mig-configs"].items():
            out.setdefault(name, []).extend(entries)
    return out


def test_mig_parted_config_matches_the_upstream_format() -> None:
    plan = gpu_operator_plan(
        resolve_gpu_operator(
            {
                "cloud": "eks",
                "pools": [
                    {
                        "name": "h100",
                        "machine_type": "p5.48xlarge",
                        "max_nodes": 1,
                        "sharing": {"mode": "mig", "mig": {"layout": "all-balanced"}},
                    },
                    {
                        "name": "h100-custom",
                        "machine_type": "p5.48xlarge",
                        "max_nodes": 1,
                        "sharing": {"mode": "mig", "mig": {"profiles": ["3g.40gb", "2g.20gb", "2g.20gb"]}},
                    },
                ],
            }
        )
    )
    data = mig_parted_config_data(plan)
    assert list(data) == [MIG_PARTED_KEY]
    doc = yaml.safe_load(data[MIG_PARTED_KEY])
    assert set(doc) == {"version", "mig-configs"} and doc["version"] == "v1"
    upstream_configs = _upstream_mig_configs()
    entry_keys = {k for entries in upstream_configs.values() for e in entries for k in e}
    assert doc["mig-configs"]["all-disabled"] == upstream_configs["all-disabled"][:1]
    for name, entries in doc["mig-configs"].items():
        for entry in entries:
            assert set(entry) <= entry_keys, (name, entry)
            assert entry["devices"] == "all"
            if not entry["mig-enabled"]:
                continue
            ids = set(entry["device-filter"])
            gpu = next(g for g in GPUS.values() if ids == set(g.pci_device_ids))
            table = MIG_TABLES[gpu.mig_table or ""]
            assert set(entry["mig-devices"]) <= set(table.profiles), (name, entry)
            # Same name upstream for the same GPU: the same partitioning.
            for up in upstream_configs.get(name, []):
                if ids & set(up.get("device-filter", [])):
                    assert entry["mig-devices"] == up["mig-devices"], name
    assert doc["mig-configs"]["custom-h100-custom"][0]["mig-devices"] == {"2g.20gb": 2, "3g.40gb": 1}


def test_named_layout_agrees_with_upstream_for_the_same_gpu() -> None:
    plan = gpu_operator_plan(resolve_gpu_operator({"cloud": "gke", "pools": [H100_MIG]}))
    doc = yaml.safe_load(mig_parted_config_data(plan)[MIG_PARTED_KEY])
    (ours,) = doc["mig-configs"]["all-1g.10gb"]
    up = next(e for e in _upstream_mig_configs()["all-1g.10gb"] if "0x233010DE" in e.get("device-filter", []))
    assert ours["mig-devices"] == up["mig-devices"] == {"1g.10gb": 7}


# --- pool labels name keys that exist --------------------------------------------------------------


def test_mixed_cluster_time_sliced_l4_and_mig_h100() -> None:
    plan = mixed_cluster()
    l4, h100 = plan.pools
    dp = device_plugin_config_data(plan)
    mig = yaml.safe_load(mig_parted_config_data(plan)[MIG_PARTED_KEY])
    l4_labels, h100_labels = pool_labels(l4, plan.driver), pool_labels(h100, plan.driver)

    # Each pool's label names a key of the ConfigMap the operator reads, and nothing else.
    assert list(dp) == [l4_labels[DEVICE_PLUGIN_CONFIG_LABEL]]
    assert MIG_CONFIG_LABEL not in l4_labels
    assert DEVICE_PLUGIN_CONFIG_LABEL not in h100_labels
    assert h100_labels[MIG_CONFIG_LABEL] == "all-1g.10gb"
    assert set(mig["mig-configs"]) == {"all-disabled", "all-1g.10gb"}
    (entry,) = mig["mig-configs"]["all-1g.10gb"]
    assert set(entry["device-filter"]) == set(h100.gpu.pci_device_ids)

    ts = yaml.safe_load(dp[l4_labels[DEVICE_PLUGIN_CONFIG_LABEL]])
    assert ts["sharing"]["timeSlicing"] == {
        "renameByDefault": False,
        "failRequestsGreaterThanOne": True,
        "resources": [{"name": "nvidia.com/gpu", "replicas": 4}],
    }
    values = plan.values
    assert values["mig"]["strategy"] == "mixed"  # MIG resources as nvidia.com/mig-<profile>
    assert advertised_resources(l4) == {"nvidia.com/gpu": 4}
    assert advertised_resources(h100) == {"nvidia.com/mig-1g.10gb": 56}
    # GKE: our device plugin replaces GKE's on both pools.
    assert l4_labels["gke-no-default-nvidia-gpu-device-plugin"] == "true"
    assert h100_labels["gke-no-default-nvidia-gpu-device-plugin"] == "true"


@pytest.mark.parametrize(
    "cloud_pools",
    [
        (
            "gke",
            [
                L4_TS,
                H100_MIG,
                {
                    "name": "a100",
                    "machine_type": "a2-ultragpu-1g",
                    "max_nodes": 1,
                    "sharing": {"mode": "mig", "mig": {"layout": "all-1g.10gb"}},
                },
            ],
        ),
        (
            "eks",
            [
                {
                    "name": "l4",
                    "machine_type": "g6.xlarge",
                    "max_nodes": 1,
                    "sharing": {"mode": "mps", "replicas": 2},
                },
                {
                    "name": "h",
                    "machine_type": "p5.48xlarge",
                    "max_nodes": 1,
                    "sharing": {"mode": "mig", "mig": {"profiles": ["4g.40gb", "3g.40gb"]}},
                },
            ],
        ),
        (
            "aks",
            [
                {
                    "name": "t4",
                    "machine_type": "Standard_NC4as_T4_v3",
                    "max_nodes": 1,
                    "sharing": {"mode": "time-slicing", "replicas": 8},
                },
                {
                    "name": "h",
                    "machine_type": "Standard_ND96isr_H100_v5",
                    "max_nodes": 1,
                    "sharing": {"mode": "mig", "mig": {"layout": "all-3g.40gb"}},
                },
            ],
        ),
    ],
)
def test_every_pool_label_names_an_existing_key(cloud_pools: tuple[str, list[dict[str, Any]]]) -> None:
    cloud, pools = cloud_pools
    plan = gpu_operator_plan(resolve_gpu_operator({"cloud": cloud, "pools": pools}))
    dp = device_plugin_config_data(plan)
    mig = yaml.safe_load(mig_parted_config_data(plan)[MIG_PARTED_KEY])["mig-configs"]
    for pool in plan.pools:
        labels = pool_labels(pool, plan.driver)
        if DEVICE_PLUGIN_CONFIG_LABEL in labels:
            assert labels[DEVICE_PLUGIN_CONFIG_LABEL] in dp
        if MIG_CONFIG_LABEL in labels:
            layout = mig[labels[MIG_CONFIG_LABEL]]
            # The layout holds an entry for this pool's GPU (mig-parted picks it by device ID).
            assert any(set(pool.gpu.pci_device_ids) == set(e.get("device-filter", [])) for e in layout)
    values = plan.values
    assert values["devicePlugin"]["config"]["name"]
    assert "default" not in values["devicePlugin"]["config"]  # pools select their key by label


def test_one_named_layout_on_two_gpus_gets_one_entry_per_gpu() -> None:
    plan = gpu_operator_plan(
        resolve_gpu_operator(
            {
                "cloud": "gke",
                "pools": [
                    H100_MIG,
                    {
                        "name": "a100",
                        "machine_type": "a2-ultragpu-1g",
                        "max_nodes": 1,
                        "sharing": {"mode": "mig", "mig": {"layout": "all-1g.10gb"}},
                    },
                ],
            }
        )
    )
    entries = yaml.safe_load(mig_parted_config_data(plan)[MIG_PARTED_KEY])["mig-configs"]["all-1g.10gb"]
    assert [set(e["device-filter"]) for e in entries] == [
        set(GPUS["h100-80gb"].pci_device_ids),
        set(GPUS["a100-80gb"].pci_device_ids),
    ]


def test_no_configmaps_without_sharing() -> None:
    plan = gpu_operator_plan(
        resolve_gpu_operator(
            {"cloud": "gke", "pools": [{"name": "l4", "machine_type": "g2-standard-8", "max_nodes": 1}]}
        )
    )
    assert device_plugin_config_data(plan) == {} and mig_parted_config_data(plan) == {}
    values = plan.values
    assert "config" not in values["devicePlugin"] and "config" not in values["migManager"]


# --- driver upgrades (issue 20) ------------------------------------------------------------------------

UBUNTU_T4 = {
    "name": "t4",
    "machine_type": "n1-standard-8",
    "gpus_per_node": 1,
    "max_nodes": 2,
    "image": "UBUNTU_CONTAINERD",
}


def test_operator_driver_rolls_one_node_at_a_time_waiting_for_jobs() -> None:
    """The rendered ClusterPolicy carries the policy: one node at a time, batch jobs waited for without a
    timeout, other GPU pods evicted with the chart's timeout, no drain without a DRA pool."""
    plan = gpu_operator_plan(resolve_gpu_operator({"cloud": "gke", "pools": [UBUNTU_T4]}))
    policy = rendered_cluster_policy(plan.values)["spec"]["driver"]["upgradePolicy"]
    assert policy == {
        "autoUpgrade": True,
        "maxParallelUpgrades": 1,
        "maxUnavailable": 1,
        "waitForCompletion": {"timeoutSeconds": 0, "podSelector": "batch.kubernetes.io/job-name"},
        "podDeletion": {"force": False, "timeoutSeconds": 300, "deleteEmptyDir": True},
        "drain": {"enable": False, "force": False, "timeoutSeconds": 300, "deleteEmptyDir": True},
    }


def test_a_dra_pool_turns_drain_on() -> None:
    """DRA pods hold claims, not nvidia.com/* resources: GPU pod deletion cannot find them, drain can."""
    pools = [
        {"name": "l4", "gpu": "l4", "gpus_per_node": 4, "max_nodes": 2, "allocation": "dra"},
        {"name": "l4-plain", "gpu": "l4", "gpus_per_node": 1, "max_nodes": 2},
    ]
    driver = {"owner": "operator", "version": "580.105.08"}
    plan = gpu_operator_plan(resolve_gpu_operator({"cloud": "existing", "pools": pools, "driver": driver}))  # type: ignore[typeddict-item]
    assert plan.values["driver"]["upgradePolicy"]["drain"]["enable"] is True
    plain = gpu_operator_plan(
        resolve_gpu_operator({"cloud": "existing", "pools": pools[1:], "driver": driver})  # type: ignore[typeddict-item]
    )
    assert plain.values["driver"]["upgradePolicy"]["drain"]["enable"] is False


def test_no_policy_where_the_operator_does_not_install_the_driver() -> None:
    plan = gpu_operator_plan(resolve_gpu_operator({"cloud": "gke", "pools": [L4_TS]}))  # COS: Google's driver
    assert plan.values["driver"]["enabled"] is False and "upgradePolicy" not in plan.values["driver"]


def test_user_values_override_the_upgrade_policy() -> None:
    values = {
        "driver": {"upgradePolicy": {"maxParallelUpgrades": 2, "waitForCompletion": {"timeoutSeconds": 7200}}}
    }
    plan = gpu_operator_plan(
        resolve_gpu_operator({"cloud": "gke", "pools": [UBUNTU_T4], "values": values})  # type: ignore[typeddict-unknown-key]
    )
    policy = plan.values["driver"]["upgradePolicy"]
    assert policy["maxParallelUpgrades"] == 2 and policy["waitForCompletion"] == {
        "timeoutSeconds": 7200,
        "podSelector": "batch.kubernetes.io/job-name",
    }
    assert policy["maxUnavailable"] == 1
