"""Slurm on Kubernetes (Slinky 1.2.1): the three charts render at their pins with the library's values, the
Controller/NodeSet/LoginSet/RestApi/Accounting CRs the ``slurm`` chart renders validate against the vendored
CRDs (CEL included), each NodeSet's GRES is exactly the GPUs its pool advertises, and Kueue's quotas and
Volcano's queues never count a Slurm pool."""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from typing import Any

import pytest
import yaml

from gpu_platform import versions
from gpu_platform.addons.kueue.checks import pool_owners, without_exclusive
from gpu_platform.addons.kueue.plan import kueue_plan
from gpu_platform.addons.slurm.component import SlurmCluster
from gpu_platform.addons.slurm.plan import (
    GRES_CONF,
    PLUGSTACK_CONF,
    SlurmPlan,
    gres_type,
    slurm_cluster_plan,
    slurm_plan,
)
from gpu_platform.addons.workloads.plan import controller_placement, pool_placement
from gpu_platform.errors import ArgumentsError, ConfigError
from gpu_platform.offline import Plan
from gpu_platform.releases import SLURM, SLURM_OPERATOR, SLURM_OPERATOR_CRDS, addon
from gpu_platform.resolve.pools import ResolvedPools
from gpu_platform.sharing import GPU_RESOURCE, advertised_resources
from gpu_platform.stack.spec import load_platform
from tests.conftest import REPO, UPSTREAM, load_yaml_docs, upstream
from tests.support import ssh_keys
from tests.support.chart_values import missing_keys
from tests.support.crds import problems_of
from tests.support.helm import of_kind, render_chart
from tests.support.stacks import declared_h100_and_l4

RELEASE = "kubernetes:helm.sh/v3:Release"
NAMESPACE = "kubernetes:core/v1:Namespace"
CHARTS = {
    SLURM_OPERATOR_CRDS.key: "slurm-operator-crds-1.2.1",
    SLURM_OPERATOR.key: "slurm-operator-1.2.1",
    SLURM.key: "slurm-1.2.1",
}


def _pool(name: str, gpu: str, gpus: int, **extra: Any) -> dict[str, Any]:
    return {
        "name": name,
        "gpu": gpu,
        "gpus_per_node": gpus,
        "cpus_per_node": 208,
        "memory_gib_per_node": 1872,
        "max_nodes": 2,
        **extra,
    }


H100 = _pool("h100", "h100-80gb", 8)
L4 = _pool("l4", "l4", 4)
A100 = _pool("a100", "a100-40gb", 8)
KEY = ssh_keys.ED25519
DATABASE = {"host": "mysql.example.internal", "password_secret": {"name": "slurm-db", "key": "password"}}


def _args(**extra: Any) -> Any:
    return {"cloud": "existing", "gpu_pools": [H100, L4, A100], "pools": ["h100", "l4", "a100"], **extra}


def _plan_of(args: Any) -> SlurmPlan:
    """``slurm_cluster_plan`` on arguments built as plain dicts (the checks are the point, not the static types)."""
    return slurm_cluster_plan(args)


@functools.cache
def _plan(accounting: bool = True) -> Any:
    extra: dict[str, Any] = {"login": {"root_ssh_authorized_keys": KEY + "\n"}}
    if accounting:
        extra["accounting"] = {"enabled": True, "database": DATABASE}
    return _plan_of(_args(**extra))


@functools.cache
def _slurm_objects(accounting: bool = True) -> list[dict[str, Any]]:
    plan = _plan(accounting)
    return render_chart(CHARTS[SLURM.key], plan.slurm_values, SLURM.release_name, plan.namespace)


def _conf(line: str) -> dict[str, str]:
    """``Gres=gpu:h100:8\\nFeatures=h100-80gb`` -> ``{"Gres": ..., "Features": ...}``."""
    return dict(part.split("=", 1) for part in line.split())


# --- pins and vendored charts -------------------------------------------------------------------


def test_pins_are_the_vendored_charts() -> None:
    for key, directory in CHARTS.items():
        pin = addon(key).pin
        chart = yaml.safe_load(upstream("charts", directory, "Chart.yaml").read_text())
        assert pin.chart == f"oci://ghcr.io/slinkyproject/charts/{chart['name']}"
        assert pin.version == chart["version"] == "1.2.1"
        assert pin in versions.ALL_CHARTS
    source = yaml.safe_load(upstream("slurm-operator", "SOURCE.yaml").read_text())
    assert (source["repo"], source["tag"]) == ("SlinkyProject/slurm-operator", "v1.2.1")
    # The slurm chart defaults every Slurm image to the tag the library pins for the pyxis images.
    values = yaml.safe_load(upstream("charts", CHARTS[SLURM.key], "values.yaml").read_text())
    assert values["nodesetDefaults"]["slurmd"]["image"]["tag"] == versions.SLURM_IMAGE_TAG
    assert values["loginsetDefaults"]["login"]["image"]["tag"] == versions.SLURM_IMAGE_TAG


def _open_selectors(values: Any) -> Any:
    """``nodeSelector`` is an open label map even where the chart's default holds a label."""
    if isinstance(values, Mapping):
        return {k: ({} if k == "nodeSelector" else _open_selectors(v)) for k, v in values.items()}
    return values


def test_every_value_the_library_sets_exists_in_the_charts() -> None:
    plan = _plan()
    slurm_chart = yaml.safe_load(upstream("charts", CHARTS[SLURM.key], "values.yaml").read_text())
    ours = _open_selectors(plan.slurm_values)
    # NodeSets and LoginSets are open maps whose entries take the *Defaults keys.
    values = {k: v for k, v in ours.items() if k not in ("nodesets", "loginsets")}
    assert missing_keys(values, slurm_chart) == []
    assert ours["nodesets"] and ours["loginsets"]
    for nodeset in ours["nodesets"].values():
        assert missing_keys(nodeset, slurm_chart["nodesetDefaults"]) == []
    for login in ours["loginsets"].values():
        assert missing_keys(login, slurm_chart["loginsetDefaults"]) == []
    operator_chart = yaml.safe_load(upstream("charts", CHARTS[SLURM_OPERATOR.key], "values.yaml").read_text())
    assert missing_keys(plan.operator_values, operator_chart) == []


def test_crds_chart_renders_the_vendored_crds() -> None:
    rendered = render_chart(CHARTS[SLURM_OPERATOR_CRDS.key], {}, SLURM_OPERATOR_CRDS.release_name, "slinky")
    vendored = {
        d["metadata"]["name"]: d
        for path in sorted((UPSTREAM / "slurm-operator" / "crds").glob("*.yaml"))
        for d in load_yaml_docs(path)
    }
    assert {c["metadata"]["name"] for c in rendered} == set(vendored)
    assert {c["spec"]["names"]["kind"] for c in rendered} >= {
        "Controller",
        "NodeSet",
        "LoginSet",
        "RestApi",
        "Accounting",
    }
    for crd in rendered:
        assert crd["spec"] == vendored[crd["metadata"]["name"]]["spec"]


def test_operator_chart_renders_without_crds_and_with_cert_manager_certificates() -> None:
    plan = _plan()
    objects = render_chart(
        CHARTS[SLURM_OPERATOR.key], plan.operator_values, SLURM_OPERATOR.release_name, plan.operator_namespace
    )
    kinds = {o["kind"] for o in objects}
    assert "CustomResourceDefinition" not in kinds  # the CRDs are their own release
    assert {"Certificate", "Issuer", "ValidatingWebhookConfiguration", "Deployment"} <= kinds
    for deployment in of_kind(objects, "Deployment"):
        pod = deployment["spec"]["template"]["spec"]
        assert not any(t.get("key") == GPU_RESOURCE for t in pod.get("tolerations") or [])
        terms = pod["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"][
            "nodeSelectorTerms"
        ]
        assert terms  # off the GPU nodes


# --- the slurm chart's custom resources --------------------------------------------------------


def test_slurm_chart_renders_one_nodeset_per_pool_and_a_login_set() -> None:
    objects = _slurm_objects()
    kinds = sorted(o["kind"] for o in objects if o["apiVersion"].startswith("slinky.slurm.net/"))
    assert kinds == ["Accounting", "Controller", "LoginSet", "NodeSet", "NodeSet", "NodeSet", "RestApi"]
    names = {o["metadata"]["name"] for o in of_kind(objects, "NodeSet")}
    assert names == {f"slurm-worker-{p}" for p in ("h100", "l4", "a100")}
    assert names == {n["nodeSet"] for n in _plan().nodesets.values()}


@pytest.mark.parametrize("kind", ["Controller", "NodeSet", "LoginSet", "RestApi", "Accounting"])
def test_custom_resources_validate_against_the_crds(kind: str) -> None:
    found = of_kind(_slurm_objects(), kind)
    assert found
    for obj in found:
        assert problems_of(obj) == [], obj["metadata"]["name"]


def test_crd_validation_catches_a_broken_nodeset_and_controller() -> None:
    """The CEL rules of the CRDs run: the checks above can fail."""
    [nodeset, *_] = of_kind(_slurm_objects(), "NodeSet")
    scheduled = {**nodeset, "spec": {**nodeset["spec"], "updateStrategy": {"type": "ScheduledUpdate"}}}
    assert any("scheduledUpdate.startTime" in p for p in problems_of(scheduled))
    [controller] = of_kind(_slurm_objects(), "Controller")
    keyless = {**controller, "spec": {k: v for k, v in controller["spec"].items() if k != "slurmKeyRef"}}
    assert any("slurmKeyRef must be set" in p for p in problems_of(keyless))


def test_nodesets_run_pyxis_slurmd_on_their_pool_only() -> None:
    plan = _plan()
    pools = {p.name: p for p in plan.spec.pools}
    for nodeset in of_kind(_slurm_objects(), "NodeSet"):
        pool = pools[nodeset["spec"]["template"]["spec"]["hostname"].rstrip("-")]
        spec = nodeset["spec"]
        assert spec["scalingMode"] == "DaemonSet"
        assert (
            spec["slurmd"]["image"] == f"{versions.SLURMD_PYXIS_IMAGE_REPOSITORY}:{versions.SLURM_IMAGE_TAG}"
        )
        pod = spec["template"]["spec"]
        placement = pool_placement(pool)
        assert placement["nodeSelector"].items() <= pod["nodeSelector"].items()
        assert pod["tolerations"] == placement["tolerations"]
        assert spec["partition"]["enabled"] is True


def test_login_set_runs_pyxis_off_the_gpu_nodes_with_the_given_key() -> None:
    [login] = of_kind(_slurm_objects(), "LoginSet")
    spec = login["spec"]
    assert spec["login"]["image"] == f"{versions.LOGIN_PYXIS_IMAGE_REPOSITORY}:{versions.SLURM_IMAGE_TAG}"
    assert spec["login"]["securityContext"]["privileged"] is False
    assert spec["service"]["spec"]["type"] == "ClusterIP"
    assert KEY in spec["rootSshAuthorizedKeys"]
    assert not spec["template"]["spec"]["tolerations"]


def test_pyxis_and_gres_autodetect_are_configured() -> None:
    [config] = [
        o for o in of_kind(_slurm_objects(), "ConfigMap") if o["metadata"]["name"] == "slurm-config-extra"
    ]
    assert config["data"]["gres.conf"] == GRES_CONF == "AutoDetect=nvidia\n"
    assert config["data"]["plugstack.conf"] == PLUGSTACK_CONF
    [controller] = of_kind(_slurm_objects(), "Controller")
    lines = controller["spec"]["extraConf"].splitlines()
    assert "GresTypes=gpu" in lines
    assert "AccountingStorageTRES=gres/gpu" in lines
    assert "PartitionName=all Nodes=ALL Default=YES MaxTime=UNLIMITED" in lines


def test_accounting_uses_the_external_database_from_its_secret() -> None:
    [acct] = of_kind(_slurm_objects(), "Accounting")
    storage = acct["spec"]["storageConfig"]
    assert storage["host"] == DATABASE["host"]
    assert storage["port"] == 3306
    assert storage["passwordKeyRef"] == {"name": "slurm-db", "key": "password"}
    assert not of_kind(_slurm_objects(accounting=False), "Accounting")


# --- GRES = advertised GPUs ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "pool",
    [H100, L4, A100, _pool("h200", "h200-141gb", 8), _pool("t4", "t4", 1), _pool("l40s", "l40s", 4)],
    ids=lambda p: p["name"],
)
def test_gres_equals_the_gpus_the_pool_advertises(pool: dict[str, Any]) -> None:
    plan = _plan_of(
        {"cloud": "existing", "gpu_pools": [pool, L4 if pool is not L4 else H100], "pools": [pool["name"]]}
    )
    [resolved] = plan.spec.pools
    advertised = advertised_resources(resolved)
    objects = render_chart(CHARTS[SLURM.key], plan.slurm_values, SLURM.release_name, plan.namespace)
    [nodeset] = of_kind(objects, "NodeSet")
    gres = _conf(nodeset["spec"]["extraConf"])["Gres"]
    kind, family, count = gres.split(":")
    assert (kind, int(count)) == ("gpu", advertised[GPU_RESOURCE])
    assert family == gres_type(resolved.gpu) and family in resolved.gpu.display.lower()
    assert nodeset["spec"]["slurmd"]["resources"]["limits"] == advertised
    assert nodeset["spec"]["slurmd"]["resources"]["requests"] == advertised


def test_mig_and_shared_pools_are_refused_with_why() -> None:
    mig = _pool("a100", "a100-80gb", 8, sharing={"mode": "mig", "mig": {"layout": "all-1g.10gb"}})
    sliced = _pool("l4", "l4", 4, sharing={"mode": "time-slicing", "replicas": 4})
    with pytest.raises(ArgumentsError) as err:
        _plan_of({"cloud": "existing", "gpu_pools": [mig, sliced, H100], "pools": ["a100", "l4"]})
    errors = dict(err.value.problems)
    assert set(errors) == {"pools[0]", "pools[1]"}
    assert "AutoDetect=nvml" in errors["pools[0]"] and "MIG" in errors["pools[0]"]
    assert "time-slicing" in errors["pools[1]"]
    # The same pool with whole GPUs is Slurm's.
    assert (
        _plan_of({"cloud": "existing", "gpu_pools": [H100], "pools": ["h100"]}).nodesets["h100"]["gres"]
        == "gpu:h100:8"
    )


# --- Kueue and Volcano never count Slurm pools ---------------------------------------------------

EXISTING = {
    "cloud": "existing",
    "cluster": {"name": "research", "kubeconfig": "apiVersion: v1\nkind: Config\n"},
    "gpuPools": declared_h100_and_l4(),
    "gpuOperator": {"driver": {"owner": "operator"}},
}


def test_kueue_quota_excludes_slurm_pools() -> None:
    spec = load_platform({**EXISTING, "slurm": {"enabled": True, "pools": ["h100"]}})
    assert spec.slurm is not None and spec.slurm.pool_names == ("h100",)
    assert [p.name for p in spec.queue_pools] == ["l4"]
    assert spec.kueue is not None
    plan = kueue_plan(spec.queue_pools, spec.kueue, "kueue-system")
    assert [f["metadata"]["name"] for f in plan.objects.flavors] == ["l4"]
    [queue] = plan.objects.cluster_queues
    quota = {
        r["name"]: r["nominalQuota"]
        for group in queue["spec"]["resourceGroups"]
        for flavor in group["flavors"]
        for r in flavor["resources"]
    }
    assert quota[GPU_RESOURCE] == 8  # 2 x 4 L4, none of the 16 H100
    # Without Slurm the same queue counts both pools.
    both = load_platform(EXISTING)
    assert both.kueue is not None
    both_plan = kueue_plan(both.queue_pools, both.kueue, "kueue-system")
    assert sorted(f["metadata"]["name"] for f in both_plan.objects.flavors) == ["h100", "l4"]


def test_volcano_queues_exclude_slurm_pools() -> None:
    spec = load_platform(
        {
            **EXISTING,
            "kueue": {"enabled": False},
            "volcano": {"enabled": True, "teams": [{"name": "research"}]},
            "slurm": {"enabled": True, "pools": ["h100"]},
        }
    )
    assert spec.volcano is not None
    assert [p.name for p in spec.volcano.pools] == ["l4"]
    assert spec.volcano.teams[0].pools == ("l4",)


def test_a_pool_claimed_by_kueue_and_slurm_is_refused_once() -> None:
    cfg = {
        **EXISTING,
        "kueue": {
            "clusterQueues": [{"name": "training", "pools": ["h100"]}, {"name": "serving", "pools": ["l4"]}]
        },
        "slurm": {"enabled": True, "pools": ["h100"]},
    }
    with pytest.raises(ConfigError) as err:
        load_platform(cfg)
    lines = str(err.value).splitlines()
    problems = [line for line in lines if line.startswith("gpu-platform:")]
    assert len(problems) == 1 and problems[0].startswith("gpu-platform:slurm.pools[0]:")
    assert "ClusterQueue 'training'" in problems[0]


def test_without_exclusive_is_what_pool_owners_sees() -> None:
    spec = load_platform(EXISTING)
    pools = ResolvedPools(list(spec.pools))
    kept = without_exclusive(pools, ["h100"])
    assert [p.name for p in kept.pools] == ["l4"] and "h100" in kept.broken
    assert pool_owners([spec.kueue.cluster_queues[0]], [p.name for p in kept.pools]) == {"l4": 0}  # type: ignore[union-attr]
    assert without_exclusive(pools, []) is pools


# --- the component -------------------------------------------------------------------------------


def test_component_installs_crds_operator_and_cluster_in_order(run_component: Callable[..., Plan]) -> None:
    plan = run_component(lambda: SlurmCluster("slurm", _args(login={"enabled": False})))
    releases = {r.inputs["name"]: r for r in plan.by_type(RELEASE)}
    assert set(releases) == {"cert-manager", "slurm-operator-crds", "slurm-operator", "slurm"}
    for key, name in (
        (SLURM_OPERATOR_CRDS.key, "slurm-operator-crds"),
        (SLURM_OPERATOR.key, "slurm-operator"),
        (SLURM.key, "slurm"),
    ):
        pin = addon(key).pin
        assert (releases[name].inputs["chart"], releases[name].inputs["version"]) == (pin.chart, pin.version)
    crds, operator, slurm, certs = (
        releases[n] for n in ("slurm-operator-crds", "slurm-operator", "slurm", "cert-manager")
    )
    assert crds.options["retainOnDelete"] is True
    assert not operator.options.get("retainOnDelete")
    assert crds.urn in operator.depends_on and certs.urn in operator.depends_on
    assert operator.urn in slurm.depends_on and crds.urn in slurm.depends_on
    assert slurm.inputs["values"]["loginsets"] == {}
    namespaces = {ns.inputs["metadata"]["name"]: ns for ns in plan.by_type(NAMESPACE)}
    assert {"slinky", "slurm"} <= set(namespaces)
    assert all(ns.options["retainOnDelete"] for ns in namespaces.values())


def test_component_without_cert_manager(run_component: Callable[..., Plan]) -> None:
    plan = run_component(lambda: SlurmCluster("slurm", _args(install_cert_manager=False)))
    assert {r.inputs["name"] for r in plan.by_type(RELEASE)} == {
        "slurm-operator-crds",
        "slurm-operator",
        "slurm",
    }


def test_user_values_never_override_the_nodesets() -> None:
    values = {
        "nodesets": {"h100": {"slurmd": {"image": {"repository": "example.com/slurmd"}}}},
        "asciiArt": False,
    }
    plan = _plan_of(_args(values=values))
    assert plan.slurm_values["asciiArt"] is False
    assert (
        plan.slurm_values["nodesets"]["h100"]["slurmd"]["image"]["repository"]
        == versions.SLURMD_PYXIS_IMAGE_REPOSITORY
    )


def test_controllers_follow_the_system_pool_selector() -> None:
    spec = _plan_of(_args()).spec
    placement = controller_placement("aks")
    plan = slurm_plan(spec, placement)
    assert plan.slurm_values["controller"]["podSpec"]["nodeSelector"] == {
        "kubernetes.azure.com/mode": "system"
    }
    assert plan.operator_values["operator"]["nodeSelector"] == {"kubernetes.azure.com/mode": "system"}


def test_example_readme_shows_pyxis_srun_on_h100() -> None:
    project = REPO / "examples" / "slurm-h100-pyxis"
    readme = (project / "README.md").read_text()
    assert "srun --partition=h100 --gres=gpu:h100:8 --container-image=" in readme
    stack: Mapping[str, Any] = yaml.safe_load((project / "Pulumi.example.yaml").read_text())["config"]
    assert stack["gpu-platform:slurm"]["pools"] == ["h100"]


# --- the fast network of a Slurm pool -----------------------------------------------------------


def test_slurmd_holds_the_efa_devices_and_huge_pages_of_an_efa_node_without_a_memory_limit() -> None:
    """An EFA pool's slurmd asks for every EFA interface and EFA's 2 MiB huge pages with its GPUs (else srun
    steps run NCCL over TCP); huge pages need a memory request beside them (Kubernetes core validation), and no
    memory limit, since the steps run in slurmd's cgroup."""
    p5 = {"name": "p5", "machine_type": "p5.48xlarge", "max_nodes": 2, "efa": True, "zones": ["us-east-1a"]}
    g6 = {"name": "g6", "machine_type": "g6.xlarge", "max_nodes": 2}
    plan = _plan_of({"cloud": "eks", "gpu_pools": [p5, g6], "pools": ["p5"]})
    objects = render_chart(CHARTS[SLURM.key], plan.slurm_values, SLURM.release_name, plan.namespace)
    [nodeset] = of_kind(objects, "NodeSet")
    resources = nodeset["spec"]["slurmd"]["resources"]
    devices = {GPU_RESOURCE: 8, "vpc.amazonaws.com/efa": 32, "hugepages-2Mi": "5120Mi"}
    assert resources["limits"] == devices
    assert resources["requests"] == {**devices, "memory": "5120Mi"}
