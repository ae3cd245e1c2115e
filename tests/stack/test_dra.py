"""The stack file's ``dra`` section (issue 16): checked with the rest of the stack, planned after the operator."""

from __future__ import annotations

from typing import Any

import pytest
import yaml

from gpu_platform.stack import load_platform
from tests.conftest import REPO
from tests.support.refusals import config_problems
from tests.support.stacks import existing, with_compute_domains

RELEASE = "kubernetes:helm.sh/v3:Release"


def test_dra_section_resolves() -> None:
    spec = load_platform(existing())
    assert spec.dra is not None and spec.dra.claim_namespaces == ("ml",)
    assert [p.name for p in spec.pools if p.dra] == ["h100"]


def test_dra_pool_without_the_driver_is_refused() -> None:
    raw = existing(dra={"enabled": False})
    assert config_problems(raw) == {
        "gpu-platform:gpuPools[0].allocation": "'dra' needs the NVIDIA DRA driver: set dra.enabled true"
    }


def test_driver_without_dra_pools_is_refused() -> None:
    raw = existing()
    raw["gpuPools"][0].pop("allocation")
    found = config_problems(raw)
    assert list(found) == ["gpu-platform:dra.enabled"]
    assert "allocation 'dra'" in found["gpu-platform:dra.enabled"]


@pytest.mark.parametrize(
    ("version", "reason"),
    [(None, "declare the cluster's version"), ("1.33", "too old for DRA"), ("1.34.1", "too old for DRA")],
)
def test_cluster_version_is_checked(version: str | None, reason: str) -> None:
    raw = existing()
    if version is None:
        raw["cluster"].pop("kubernetesVersion")
    else:
        raw["cluster"]["kubernetesVersion"] = version
    found = config_problems(raw)
    assert list(found) == ["gpu-platform:cluster.kubernetesVersion"]
    assert reason in found["gpu-platform:cluster.kubernetesVersion"]


def test_every_problem_once_in_camel_case() -> None:
    raw = existing(
        dra={"enabled": True, "version": "v0.4.1", "claimNamespaces": ["Ml"], "computeDomains": "yes"},
        gpuOperator={"enabled": False, "driver": {"owner": "operator"}},
    )
    raw["gpuPools"][0]["sharing"] = {"mode": "mps", "replicas": 4}
    found = config_problems(raw)
    # A wrong type in one DRA setting hides none of the section's other problems.
    assert set(found) == {
        "gpu-platform:dra.computeDomains",
        "gpu-platform:dra.version",
        "gpu-platform:dra.claimNamespaces[0]",
        "gpu-platform:dra.enabled",
        "gpu-platform:gpuPools[0].sharing.mode",
        "gpu-platform:gpuPools[1].sharing.mode",  # time-slicing needs the operator that is switched off
    }
    raw["dra"].pop("computeDomains")
    found = config_problems(raw)
    assert set(found) == {
        "gpu-platform:dra.version",
        "gpu-platform:dra.claimNamespaces[0]",
        "gpu-platform:dra.enabled",
        "gpu-platform:gpuPools[0].sharing.mode",
        "gpu-platform:gpuPools[1].sharing.mode",  # time-slicing needs the operator that is switched off
    }
    assert "gpuOperator.enabled" in found["gpu-platform:dra.enabled"]


def test_kserve_service_on_a_dra_pool_is_refused() -> None:
    raw = existing(
        kserve={"enabled": True, "services": [{"name": "llm", "pool": "h100", "modelFormat": "huggingface"}]}
    )
    found = config_problems(raw)
    assert "allocation 'dra'" in found["gpu-platform:kserve.services[0].pool"]
    assert "predictor_claims" in found["gpu-platform:kserve.services[0].pool"]


def stack_config(raw: dict[str, Any]) -> dict[str, Any]:
    """The stack file's keys for the program; the kubeconfig as a secret, as a real stack holds it."""
    raw = {**raw, "cluster": {**raw["cluster"], "kubeconfig": {"secure": "v1:placeholder"}}}
    return {f"gpu-platform:{k}": v for k, v in raw.items()}


def test_stack_program_plans_the_driver_after_operator_and_kueue(plan_stack: Any) -> None:
    config = stack_config(existing())
    plan = plan_stack("test", REPO, config)
    release = plan.one(RELEASE, "dra-driver-helm")
    # After the operator (a component: all its children) and Kueue's release, not every Kueue queue.
    assert {plan.one(RELEASE, "gpu-operator-helm").urn, plan.one(RELEASE, "kueue-helm").urn} <= set(
        release.depends_on
    )
    assert not [d for d in release.depends_on if "kueue.x-k8s.io" in d]
    values = release.inputs["values"]
    assert values["nvidiaDriverRoot"] == "/run/nvidia/driver"  # the operator's driver container
    templates = plan.by_type("kubernetes:resource.k8s.io/v1:ResourceClaimTemplate")
    # One GPU, and a whole 8-GPU node, in the team's namespace (made by the stack, which it waits for).
    assert sorted((t.inputs["metadata"]["namespace"], t.inputs["metadata"]["name"]) for t in templates) == [
        ("ml", "gpu"),
        ("ml", "gpu-8"),
    ]
    (ns,) = [r for r in plan.by_type("kubernetes:core/v1:Namespace") if r.inputs["metadata"]["name"] == "ml"]
    assert all(ns.urn in t.depends_on for t in templates)
    # The operator: device plugin kept for the time-sliced pool, its config only for that pool, and the
    # driver manager evicts the DRA plugin.
    op_values = plan.one(RELEASE, "gpu-operator-helm").inputs["values"]
    assert op_values["devicePlugin"]["enabled"] is True
    assert op_values["driver"]["manager"]["env"][0]["value"] == "nvidia.com/dra-kubelet-plugin"
    (dp_config,) = [
        r
        for r in plan.by_type("kubernetes:core/v1:ConfigMap")
        if "device-plugin" in r.inputs["metadata"]["name"]
    ]
    assert list(dp_config.inputs["data"]) == ["l40s-time-slicing-2"]
    # Kueue charges the DRA pool's claims to a quota only its flavor has: a DRA job can never be given the
    # time-sliced pool's flavor (its claim would not allocate there), nor a device-plugin job the DRA pool's.
    conf = yaml.safe_load(
        plan.one(RELEASE, "kueue-helm").inputs["values"]["managerConfig"]["controllerManagerConfigYaml"]
    )
    assert conf["resources"]["deviceClassMappings"] == [
        {"name": "dra.gpu-platform.io/gpu", "deviceClassNames": ["whole-gpu.gpu.nvidia.com"]}
    ]
    (cq,) = plan.by_type("kubernetes:kueue.x-k8s.io/v1beta2:ClusterQueue")
    (group,) = cq.inputs["spec"]["resourceGroups"]
    quota = {f["name"]: {r["name"]: r["nominalQuota"] for r in f["resources"]} for f in group["flavors"]}
    assert quota["h100"]["dra.gpu-platform.io/gpu"] == 16 and quota["h100"]["nvidia.com/gpu"] == 0
    assert quota["l40s"]["dra.gpu-platform.io/gpu"] == 0 and quota["l40s"]["nvidia.com/gpu"] == 16


def test_each_claim_template_waits_for_its_own_namespace_only(plan_stack: Any) -> None:
    """Links grow with templates, not templates x namespaces."""
    raw = existing()
    raw["kueue"] = {"teams": [{"name": "ml", "clusterQueue": "gpu"}, {"name": "cv", "clusterQueue": "gpu"}]}
    raw["dra"] = {"enabled": True, "claimNamespaces": ["ml", "cv"]}
    raw["gpuPools"][1].pop("sharing")  # two teams on a time-sliced pool are refused (no memory isolation)
    plan = plan_stack("test", REPO, stack_config(raw))
    namespaces = {
        r.inputs["metadata"]["name"]: r.urn
        for r in plan.by_type("kubernetes:core/v1:Namespace")
        if r.inputs["metadata"]["name"] in ("ml", "cv")
    }
    templates = plan.by_type("kubernetes:resource.k8s.io/v1:ResourceClaimTemplate")
    assert len(templates) == 4
    release = plan.one(RELEASE, "dra-driver-helm").urn
    for t in templates:
        own = t.inputs["metadata"]["namespace"]
        assert release in t.depends_on and namespaces[own] in t.depends_on
        assert not set(namespaces.values()) - {namespaces[own]} & set(t.depends_on), t.name


def test_no_dra_no_kueue_resources_block(plan_stack: Any) -> None:
    raw = existing()
    raw.pop("dra")
    raw["gpuPools"][0].pop("allocation")
    plan = plan_stack("test", REPO, stack_config(raw))
    assert not [r for r in plan.by_type(RELEASE) if r.name == "dra-driver-helm"]
    conf = yaml.safe_load(
        plan.one(RELEASE, "kueue-helm").inputs["values"]["managerConfig"]["controllerManagerConfigYaml"]
    )
    assert "resources" not in conf


def test_aks_stack_with_a_mig_dra_pool_plans_device_classes_and_no_sharing_config(plan_stack: Any) -> None:
    raw = {
        "cloud": "aks",
        "cluster": {"name": "gpu-dra", "region": "westeurope", "kubernetesVersion": "1.34"},
        "gpuPools": [
            {
                "name": "a100mig",
                "machineType": "Standard_ND96asr_v4",
                "minNodes": 1,  # AKS's autoscaler cannot grow a MIG pool from zero (Azure/AKS#4216)
                "maxNodes": 1,
                "allocation": "dra",
                "sharing": {"mode": "mig", "managedBy": "cloud", "mig": {"layout": "all-1g.5gb"}},
            },
            {
                "name": "t4",
                "machineType": "Standard_NC8as_T4_v3",
                "minNodes": 1,
                "maxNodes": 2,
                "sharing": {"mode": "time-slicing", "replicas": 2},
            },
        ],
        "gpuOperator": {"driver": {"owner": "cloud", "hostVersion": "580.95.05"}},
        "kueue": {"teams": [{"name": "inference", "clusterQueue": "gpu"}]},
        "dra": {"enabled": True, "claimNamespaces": ["inference"]},
    }
    plan = plan_stack("test", REPO, {f"gpu-platform:{k}": v for k, v in raw.items()})
    (cls,) = plan.by_type("kubernetes:resource.k8s.io/v1:DeviceClass")
    assert cls.inputs["metadata"]["name"] == "mig-1g-5gb.gpu.nvidia.com"
    (template,) = plan.by_type("kubernetes:resource.k8s.io/v1:ResourceClaimTemplate")
    assert template.inputs["metadata"] == {
        "name": "mig-1g-5gb",
        "namespace": "inference",
        "labels": {"app.kubernetes.io/managed-by": "gpu-platform"},
    }
    pools = {
        p.name.removesuffix("-agentpool"): p for p in plan.by_type("azure-native:containerservice:AgentPool")
    }
    assert pools["a100mig"].inputs["gpuInstanceProfile"] == "MIG1g"
    assert pools["a100mig"].inputs["nodeLabels"]["nvidia.com/dra-kubelet-plugin"] == "true"
    # The device-plugin ConfigMap serves only the time-sliced pool; no MIG manager config at all.
    config_maps = {r.inputs["metadata"]["name"]: r for r in plan.by_type("kubernetes:core/v1:ConfigMap")}
    assert list(config_maps["gpu-platform-device-plugin-config"].inputs["data"]) == ["t4-time-slicing-2"]
    assert "gpu-platform-mig-parted-config" not in config_maps
    conf = yaml.safe_load(
        plan.one(RELEASE, "kueue-helm").inputs["values"]["managerConfig"]["controllerManagerConfigYaml"]
    )
    assert conf["resources"]["deviceClassMappings"] == [
        {"name": "dra.gpu-platform.io/mig-1g.5gb", "deviceClassNames": ["mig-1g-5gb.gpu.nvidia.com"]}
    ]


def test_kueue_objects_with_dra_quota_names_pass_kueues_crds_and_webhook() -> None:
    from gpu_platform.addons.kueue.plan import kueue_plan
    from tests.support.kueue import kueue_problems

    spec = load_platform(existing())
    assert spec.kueue is not None
    objects = kueue_plan(spec.pools, spec.kueue, "kueue-system").objects
    for obj in objects.custom_resources():
        assert kueue_problems(obj) == [], obj["metadata"]["name"]


def test_compute_domain_channels_are_mapped_and_quota_d_for_the_dra_pools(plan_stack: Any) -> None:
    """Kueue 0.19 refuses a workload whose claim names an unmapped DeviceClass ("DeviceClass ... is not mapped
    in DRA configuration", pkg/dra/claims.go), so with ComputeDomains the channel class is mapped and the DRA
    pool's flavor holds a channel per GPU; the device-plugin pool's flavor holds none."""
    raw = with_compute_domains(existing())
    plan = plan_stack("test", REPO, stack_config(raw))
    conf = yaml.safe_load(
        plan.one(RELEASE, "kueue-helm").inputs["values"]["managerConfig"]["controllerManagerConfigYaml"]
    )
    assert {
        "name": "dra.gpu-platform.io/compute-domain-channel",
        "deviceClassNames": ["compute-domain-default-channel.nvidia.com"],
    } in conf["resources"]["deviceClassMappings"]
    (cq,) = plan.by_type("kubernetes:kueue.x-k8s.io/v1beta2:ClusterQueue")
    (group,) = cq.inputs["spec"]["resourceGroups"]
    assert "dra.gpu-platform.io/compute-domain-channel" in group["coveredResources"]
    quota = {f["name"]: {r["name"]: r["nominalQuota"] for r in f["resources"]} for f in group["flavors"]}
    assert quota["h100"]["dra.gpu-platform.io/compute-domain-channel"] == 8  # 2 GB200 nodes x 4 GPUs
    assert quota["l40s"]["dra.gpu-platform.io/compute-domain-channel"] == 0
    # Without ComputeDomains nothing is mapped or covered for channels.
    plain = plan_stack("test", REPO, stack_config(existing()))
    (cq,) = plain.by_type("kubernetes:kueue.x-k8s.io/v1beta2:ClusterQueue")
    assert (
        "dra.gpu-platform.io/compute-domain-channel"
        not in cq.inputs["spec"]["resourceGroups"][0]["coveredResources"]
    )


def test_queue_limits_count_the_compute_domain_channel() -> None:
    """The channel is one more covered resource: 64 flavors x 8 resources fit Kueue's 512 quotas per resource
    group, and the same queue with ComputeDomains (64 x 9) is refused before anything is planned."""

    def sixty_four_flavors(compute_domains: bool) -> dict[str, Any]:
        raw = existing()
        h100 = {k: v for k, v in raw["gpuPools"][0].items() if k != "allocation"}
        profiles = ("1g.10gb", "2g.20gb", "3g.40gb", "7g.80gb")
        raw["gpuPools"] += [
            {**h100, "name": f"mig{i}", "sharing": {"mode": "mig", "mig": {"layout": f"all-{profile}"}}}
            for i, profile in enumerate(profiles)
        ]
        raw["gpuPools"] += [{**raw["gpuPools"][1], "name": f"l40s{i}"} for i in range(58)]
        return with_compute_domains(raw) if compute_domains else raw

    spec = load_platform(sixty_four_flavors(False))
    assert len(spec.pools) == 64
    found = config_problems(sixty_four_flavors(True))
    assert found == {
        "gpu-platform:kueue.clusterQueues.pools": "64 pools x 9 resources = 576 quotas; Kueue allows 512 per "
        "resource group: split the pools over queues"
    }
