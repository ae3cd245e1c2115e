"""The mirror applied to chart values and Kubernetes objects (``plans.mirror``): each chart's own way of naming an
image is rewritten to the mirror with its tag kept, whether the value is the library's, the user's or the chart's
default; nothing changes without an image mirror."""

from __future__ import annotations

from gpu_platform.mirror import Mirror
from gpu_platform.plans.mirror import chart_images, mirrored_object, mirrored_values

MIRROR = Mirror(images="registry.acme/mirror")


def test_nvidia_style_repository_prefixes_are_mirrored_and_names_and_versions_kept() -> None:
    values = mirrored_values("gpu-operator", {"driver": {"version": "580.105.08"}}, MIRROR)
    assert values["driver"] == {
        "version": "580.105.08",
        "repository": "registry.acme/mirror/nvidia",
        "manager": {"repository": "registry.acme/mirror/nvidia/cloud-native"},
    }
    assert values["toolkit"]["repository"] == "registry.acme/mirror/nvidia/k8s"
    assert (
        values["node-feature-discovery"]["image"]["repository"]
        == "registry.acme/mirror/nfd/node-feature-discovery"
    )
    assert "image" not in values["driver"] and "version" not in values["toolkit"]


def test_the_library_s_and_the_user_s_images_are_mirrored_too() -> None:
    kueue = {
        "controllerManager": {
            "manager": {"image": {"repository": "registry.k8s.io/kueue/kueue", "tag": "v0.19.2"}}
        }
    }
    out = mirrored_values("kueue", kueue, MIRROR)
    assert out["controllerManager"]["manager"]["image"] == {
        "repository": "registry.acme/mirror/kueue/kueue",
        "tag": "v0.19.2",
    }
    own = mirrored_values("gpu-operator", {"driver": {"repository": "acme.io/drivers"}}, MIRROR)
    assert own["driver"]["repository"] == "registry.acme/mirror/drivers"
    already = mirrored_values(
        "gpu-operator", {"driver": {"repository": "registry.acme/mirror/nvidia"}}, MIRROR
    )
    assert already["driver"]["repository"] == "registry.acme/mirror/nvidia"


def test_split_registries_take_the_mirror_and_the_docker_hub_path() -> None:
    out = mirrored_values("kube-prometheus-stack", {}, MIRROR)
    assert out["prometheus"]["prometheusSpec"]["image"] == {
        "registry": "registry.acme/mirror",
        "repository": "prometheus/prometheus",
    }
    assert out["crds"]["upgradeJob"]["image"]["busybox"]["repository"] == "library/busybox"
    volcano = mirrored_values("volcano", {}, MIRROR)["basic"]
    assert volcano["image_registry"] == "registry.acme/mirror"
    assert volcano["scheduler_image_name"] == "volcanosh/vc-scheduler"


def test_whole_references_docker_hub_names_and_map_entries() -> None:
    kserve = mirrored_values("kserve-resources", {}, MIRROR)["kserve"]
    assert kserve["controller"]["rbacProxyImage"] == "registry.acme/mirror/brancz/kube-rbac-proxy:v0.18.0"
    assert kserve["storage"]["image"] == "registry.acme/mirror/kserve/storage-initializer"
    slurm = {
        "nodesets": {"h100": {"slurmd": {"image": {"repository": "ghcr.io/slinkyproject/slurmd-pyxis"}}}}
    }
    nodesets = mirrored_values("slurm", slurm, MIRROR)["nodesets"]["h100"]
    assert nodesets["slurmd"]["image"]["repository"] == "registry.acme/mirror/slinkyproject/slurmd-pyxis"
    assert nodesets["logfile"]["image"]["repository"] == "registry.acme/mirror/library/alpine"


def test_containers_the_values_add_to_a_chart_s_pods_are_mirrored() -> None:
    values = {"extraContainers": [{"name": "remedy", "image": "registry.k8s.io/kubectl:v1.34.1"}]}
    out = mirrored_values("node-problem-detector", values, MIRROR)
    assert out["extraContainers"][0]["image"] == "registry.acme/mirror/kubectl:v1.34.1"


def test_objects_keep_preloaded_images_and_mirror_nvidia_custom_resources() -> None:
    pod = {
        "initContainers": [
            {"name": "install", "image": "cos-nvidia-installer:fixed", "imagePullPolicy": "Never"},
            {"name": "partition", "image": "gcr.io/gke-release/nvidia-partition-gpu:1"},
        ],
        "containers": [{"name": "pause", "image": "gke.gcr.io/pause:3.8"}],
    }
    out = mirrored_object({"spec": {"template": {"spec": pod}}}, MIRROR)["spec"]["template"]["spec"]
    assert [c["image"] for c in out["initContainers"]] == [
        "cos-nvidia-installer:fixed",
        "registry.acme/mirror/gke-release/nvidia-partition-gpu:1",
    ]
    assert out["containers"][0]["image"] == "registry.acme/mirror/pause:3.8"
    policy = {"ofedDriver": {"repository": "nvcr.io/nvidia/mellanox", "image": "doca-driver", "version": "1"}}
    assert (
        mirrored_object(policy, MIRROR)["ofedDriver"]["repository"] == "registry.acme/mirror/nvidia/mellanox"
    )


def test_without_an_image_mirror_values_and_objects_are_returned_as_they_are() -> None:
    values = {"driver": {"version": "1"}}
    assert mirrored_values("gpu-operator", values, None) is values
    assert mirrored_values("gpu-operator", values, Mirror(charts="oci://r.acme/helm")) is values
    assert mirrored_object(values, None) is values


def test_images_a_release_runs_follow_its_switches() -> None:
    def refs(values: dict[str, object]) -> set[str]:
        return {i.reference for i in chart_images("gpu-operator", values)}

    default = refs({})
    assert "nvcr.io/nvidia/driver:595.91.07" in default and not any("nvidia-fs" in r for r in default)
    off = refs({"driver": {"enabled": False}, "gds": {"enabled": True}})
    assert (
        "nvcr.io/nvidia/driver:595.91.07" not in off and "nvcr.io/nvidia/cloud-native/nvidia-fs:2.29.4" in off
    )
    (driver,) = [
        i for i in chart_images("gpu-operator", {"driver": {"version": "580.1"}}) if "/driver:" in i.reference
    ]
    assert driver.reference == "nvcr.io/nvidia/driver:580.1" and "OS" in driver.note
