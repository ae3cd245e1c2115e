"""``CloudProfile`` is joined from one part per concern (``cloud_facts/parts/``); a cloud's profile still reads and
overrides every attribute on itself."""

from __future__ import annotations

from gpu_platform.cloud_facts import PROFILES
from gpu_platform.cloud_facts.parts.base import ProfileBase
from gpu_platform.cloud_facts.profile import CloudProfile, DriverFacts, SharingFacts


def _parts() -> list[type]:
    return [c for c in CloudProfile.__mro__ if c not in (CloudProfile, object)]


def test_each_attribute_and_method_belongs_to_one_part() -> None:
    owners: dict[str, list[str]] = {}
    for part in _parts():
        names = {n for n in (*vars(part), *getattr(part, "__annotations__", {})) if not n.startswith("__")}
        for name in names:
            owners.setdefault(name, []).append(part.__name__)
    assert {name: parts for name, parts in owners.items() if len(parts) > 1} == {}
    assert len(owners) > 100
    assert all(issubclass(part, ProfileBase) for part in _parts())


def test_the_profile_itself_adds_nothing_beyond_its_parts() -> None:
    assert {n for n in vars(CloudProfile) if not n.startswith("__")} == set()


def test_a_clouds_profile_reads_and_overrides_through_the_parts() -> None:
    aks, gke = PROFILES["aks"], PROFILES["gke"]
    assert isinstance(aks, SharingFacts) and isinstance(gke, DriverFacts)
    assert aks.cloud_mig_setting == "gpu_instance_profile" and aks.dra_cloud_mig is True
    assert gke.cloud_mig_setting is None and gke.dra_cloud_mig is False
    assert gke.default_device_plugin_off_label == ("gke-no-default-nvidia-gpu-device-plugin", "true")
    assert PROFILES["eks"].image_ships_device_plugin("BOTTLEROCKET_x86_64_NVIDIA") is True
    assert PROFILES["eks"].image_ships_device_plugin("AL2023_x86_64_NVIDIA") is False
