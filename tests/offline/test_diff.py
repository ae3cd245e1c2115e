"""`gpu-platform diff`: added/removed/changed/replaced, renames through aliases, destructive changes,
MIG layout changes, the three report formats and the exit codes — on hand-made plans and on the
repository's real stacks planned twice."""

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from gpu_platform.cli import main
from gpu_platform.offline import run_plan, write_plan
from gpu_platform.offline.diff import (
    FORCE_NEW,
    STATEFUL_TYPES,
    PlanDiff,
    _named_in_place,
    diff_dirs,
    diff_plans,
    parse_path,
    render,
    values_at,
)
from tests.conftest import REPO, stack_raw_config

P = "urn:pulumi:dev::gpu-platform::"
NODE_GROUP = "aws:eks/nodeGroup:NodeGroup"
GKE_POOL = "gcp:container/nodePool:NodePool"
NAMESPACE = "kubernetes:core/v1:Namespace"
CONFIG_MAP = "kubernetes:core/v1:ConfigMap"
RELEASE = "kubernetes:helm.sh/v3:Release"


def res(
    type_: str, name: str, inputs: dict[str, Any] | None = None, parent: str = "", **options: Any
) -> dict[str, Any]:
    qualified = f"{parent}${type_}" if parent else type_
    return {
        "urn": f"{P}{qualified}::{name}",
        "type": type_,
        "name": name,
        "inputs": inputs or {},
        "options": {
            "protect": False,
            "retainOnDelete": False,
            "ignoreChanges": [],
            "deleteBeforeReplace": False,
            "replaceOnChanges": [],
            "aliases": [],
            **options,
        },
    }


def plan(*resources: dict[str, Any]) -> dict[str, Any]:
    return {"project": "gpu-platform", "stack": "dev", "resources": list(resources)}


def only(d: PlanDiff) -> Any:
    assert len(d.changes) == 1, [(c.action, c.name) for c in d.changes]
    return d.changes[0]


NG = {
    "nodeGroupName": "h100",
    "instanceTypes": ["p5.48xlarge"],
    "scalingConfig": {"desiredSize": 0, "maxSize": 2},
    "labels": {"nvidia.com/mig.config": "all-balanced"},
}


def test_added_removed_changed_and_unchanged() -> None:
    base = plan(
        res(NAMESPACE, "a", {"metadata": {"name": "a"}}), res(CONFIG_MAP, "cm", {"metadata": {"name": "cm"}})
    )
    head = plan(
        res(NAMESPACE, "a", {"metadata": {"name": "a", "labels": {"team": "x"}}}),
        res("kubernetes:kueue.x-k8s.io/v1beta2:LocalQueue", "lq", {"spec": {"clusterQueue": "q"}}),
    )
    d = diff_plans(base, head)
    assert [(c.action, c.name) for c in d.changes] == [
        ("removed", "cm"),
        ("changed", "a"),
        ("added", "lq"),
    ]
    assert d.of("changed")[0].paths == ["metadata.labels"]
    assert d.destructive == [] and d.unchanged == 0
    assert diff_plans(base, base).changes == [] and diff_plans(base, base).unchanged == 2


def test_force_new_property_replaces_and_stateful_replacement_is_destructive() -> None:
    base = plan(res(NODE_GROUP, "h100-nodegroup", NG, deleteBeforeReplace=True))
    new_inputs = {**NG, "instanceTypes": ["p5e.48xlarge"]}
    head = plan(res(NODE_GROUP, "h100-nodegroup", new_inputs, deleteBeforeReplace=True))
    c = only(diff_plans(base, head))
    assert (c.action, c.replace_triggers, c.delete_first, c.destructive) == (
        "replaced",
        ["instanceTypes"],
        True,
        True,
    )
    text = render(diff_plans(base, head))
    assert "DESTRUCTIVE changes (1)" in text
    assert "h100-nodegroup: delete first, then create, because instanceTypes changed" in text


def test_create_before_delete_is_said() -> None:
    base = plan(res(GKE_POOL, "pool", {"name": "l4", "nodeConfig": {"spot": True}}))
    head = plan(res(GKE_POOL, "pool", {"name": "l4", "nodeConfig": {"spot": False}}))
    c = only(diff_plans(base, head))
    assert c.action == "replaced" and c.replace_triggers == ["nodeConfig.spot"] and not c.delete_first
    assert "create replacement, then delete" in render(diff_plans(base, head))


def test_ignore_changes_are_not_changes() -> None:
    base = plan(res(NODE_GROUP, "ng", NG, ignoreChanges=["scalingConfig.desiredSize"]))
    head_inputs = copy.deepcopy(NG)
    head_inputs["scalingConfig"]["desiredSize"] = 2
    head = plan(res(NODE_GROUP, "ng", head_inputs, ignoreChanges=["scalingConfig.desiredSize"]))
    d = diff_plans(base, head)
    assert d.changes == [] and d.unchanged == 1


def test_replace_on_changes_option_replaces_any_type() -> None:
    lq = "kubernetes:kueue.x-k8s.io/v1beta2:LocalQueue"
    opts = {"replaceOnChanges": ["spec.clusterQueue"], "deleteBeforeReplace": True}
    base = plan(res(lq, "lq", {"spec": {"clusterQueue": "a"}}, **opts))
    head = plan(res(lq, "lq", {"spec": {"clusterQueue": "b"}}, **opts))
    c = only(diff_plans(base, head))
    assert (c.action, c.replace_triggers, c.delete_first, c.destructive) == (
        "replaced",
        ["spec.clusterQueue"],
        True,
        False,  # a LocalQueue holds no state worth flagging
    )


def test_kubernetes_metadata_name_replaces() -> None:
    base = plan(res(NAMESPACE, "ns", {"metadata": {"name": "ml"}}))
    head = plan(res(NAMESPACE, "ns", {"metadata": {"name": "ml-team"}}))
    c = only(diff_plans(base, head))
    assert c.action == "replaced" and c.replace_triggers == ["metadata.name"] and c.destructive


def test_rename_through_an_alias_urn_is_not_remove_and_add() -> None:
    old = res(NODE_GROUP, "gpu-nodegroup", NG)
    new = res(NODE_GROUP, "h100-nodegroup", NG, aliases=[old["urn"]])
    d = diff_plans(plan(old), plan(new))
    c = only(d)
    assert (c.action, c.renamed_from, c.destructive) == ("changed", old["urn"], False)
    assert "(renamed from gpu-nodegroup)" in render(d)
    assert d.to_json()["summary"]["renamed"] == 1


def test_rename_through_an_alias_name_and_reparenting() -> None:
    comp = "gpu-platform:index:GpuOperator"
    old = res(NAMESPACE, "gpu-operator-ns", {"metadata": {"name": "gpu-operator"}})
    new = res(
        NAMESPACE,
        "gpu-operator-ns",
        {"metadata": {"name": "gpu-operator"}},
        parent=comp,
        aliases=[old["urn"]],  # the SDK records Alias(parent=ROOT_STACK_RESOURCE) as this URN
    )
    renamed = res(CONFIG_MAP, "cm-new", {"metadata": {"name": "cm"}}, aliases=["cm-old"])
    d = diff_plans(plan(old, res(CONFIG_MAP, "cm-old", {"metadata": {"name": "cm"}})), plan(new, renamed))
    assert sorted((c.action, c.name, c.renamed_from.rsplit("::", 1)[-1]) for c in d.changes) == [
        ("changed", "cm-new", "cm-old"),
        ("changed", "gpu-operator-ns", "gpu-operator-ns"),
    ]
    assert d.destructive == []


def test_without_the_alias_a_rename_is_a_destructive_remove() -> None:
    old = res(NODE_GROUP, "gpu-nodegroup", NG)
    new = res(NODE_GROUP, "h100-nodegroup", NG)
    d = diff_plans(plan(old), plan(new))
    assert sorted((c.action, c.destructive) for c in d.changes) == [("added", False), ("removed", True)]


def test_retain_on_delete_is_reported_as_retained_not_destructive() -> None:
    kept = res("gcp:container/cluster:Cluster", "gke", {"name": "gpu-dev"}, retainOnDelete=True)
    d = diff_plans(plan(kept), plan())
    c = only(d)
    assert (c.action, c.retained, c.destructive) == ("removed", True, False)
    assert "retained: retainOnDelete keeps the old one running" in render(d)
    replaced = res("gcp:container/cluster:Cluster", "gke", {"name": "gpu-dev-2"}, retainOnDelete=True)
    c = only(diff_plans(plan(kept), plan(replaced)))
    assert (c.action, c.retained, c.destructive) == ("replaced", True, False)


@pytest.mark.parametrize(
    ("chart", "destructive"),
    [
        ("oci://ghcr.io/kserve/charts/kserve-crd", True),
        ("oci://registry.k8s.io/kueue/charts/kueue", True),
        ("cert-manager", True),
        ("oci://ghcr.io/kserve/charts/kserve-runtime-configs", False),
    ],
)
def test_removing_a_release_that_installs_crds_is_destructive(chart: str, destructive: bool) -> None:
    c = only(diff_plans(plan(res(RELEASE, "r", {"chart": chart, "name": "r"})), plan()))
    assert c.action == "removed" and c.destructive is destructive


def test_release_name_change_replaces() -> None:
    base = plan(res(RELEASE, "kueue-helm", {"chart": "kueue", "name": "kueue", "namespace": "kueue-system"}))
    head = plan(res(RELEASE, "kueue-helm", {"chart": "kueue", "name": "kueue", "namespace": "kueue"}))
    c = only(diff_plans(base, head))
    assert c.action == "replaced" and c.replace_triggers == ["namespace"] and c.destructive


def test_gke_subnetwork_cidr_expansion_is_in_place_and_shrinking_replaces() -> None:
    sub = "gcp:compute/subnetwork:Subnetwork"
    base = plan(res(sub, "nodes", {"name": "nodes", "ipCidrRange": "10.10.0.0/20"}))
    grown = plan(res(sub, "nodes", {"name": "nodes", "ipCidrRange": "10.10.0.0/16"}))
    shrunk = plan(res(sub, "nodes", {"name": "nodes", "ipCidrRange": "10.10.0.0/24"}))
    assert only(diff_plans(base, grown)).action == "changed"
    c = only(diff_plans(base, shrunk))
    assert c.action == "replaced" and c.destructive


def test_mig_label_change_is_flagged() -> None:
    head_inputs = copy.deepcopy(NG)
    head_inputs["labels"]["nvidia.com/mig.config"] = "all-1g.10gb"
    d = diff_plans(plan(res(NODE_GROUP, "ng", NG)), plan(res(NODE_GROUP, "ng", head_inputs)))
    c = only(d)
    assert c.action == "changed" and not c.destructive
    assert c.mig_layout == "nvidia.com/mig.config: all-balanced -> all-1g.10gb"
    assert d.mig_layout_changes == [c]
    assert "MIG layout changes (1): GPUs are repartitioned, their pods evicted" in render(d)


def test_mig_parted_config_map_change_is_flagged() -> None:
    meta = {"name": "gpu-platform-mig-parted-config", "namespace": "gpu-operator"}
    base = plan(
        res(
            CONFIG_MAP,
            "mig",
            {"metadata": meta, "data": {"config.yaml": "version: v1\nmig-configs: {a: []}\n"}},
        )
    )
    head = plan(
        res(
            CONFIG_MAP,
            "mig",
            {"metadata": meta, "data": {"config.yaml": "version: v1\nmig-configs: {b: []}\n"}},
        )
    )
    c = only(diff_plans(base, head))
    assert c.mig_layout == 'data["config.yaml"]: <2 lines> -> <2 lines>'
    assert c.action == "replaced" and c.replace_triggers == ["data"]  # pulumi-kubernetes replaces ConfigMaps
    # The layout's lines that change, whole, under the flags.
    text = render(diff_plans(base, head))
    assert "    -mig-configs: {a: []}\n    +mig-configs: {b: []}" in text


def test_json_and_markdown_reports() -> None:
    base = plan(res(NAMESPACE, "ns", {"metadata": {"name": "ml"}}), res(NODE_GROUP, "ng", NG))
    head = plan(res(NODE_GROUP, "ng", {**NG, "labels": {"nvidia.com/mig.config": "all-disabled"}}))
    d = diff_plans(base, head)
    doc = json.loads(render(d, "json"))
    assert doc["summary"] == {
        "added": 0,
        "removed": 1,
        "changed": 1,
        "replaced": 0,
        "renamed": 0,
        "unchanged": 0,
        "destructive": 1,
        "migLayoutChanges": 1,
        "disruptive": 0,
        "blocked": 0,
    }
    removed = next(c for c in doc["changes"] if c["action"] == "removed")
    assert removed["destructive"] is True and removed["urn"].endswith("::ns") and removed["flagged"] is True
    md = render(d, "markdown")
    assert md.startswith("### Plan diff `gpu-platform/dev`")
    assert "> **1 destructive change(s)**: state is lost." in md
    assert "> **1 MIG layout change(s)**: GPU pods are evicted." in md
    assert "| :warning: | removed | `kubernetes:core/v1:Namespace` | `ns` |" in md


def test_property_paths() -> None:
    assert parse_path('metadata.labels["nvidia.com/mig.config"]') == [
        "metadata",
        "labels",
        "nvidia.com/mig.config",
    ]
    assert parse_path("spec.containers[*].image") == ["spec", "containers", "*", "image"]
    obj = {"spec": {"containers": [{"image": "a"}, {"image": "b"}]}}
    assert values_at(obj, parse_path("spec.containers[*].image")) == ["a", "b"]
    assert values_at(obj, parse_path("spec.containers[1].image")) == ["b"]
    assert values_at(obj, parse_path("spec.missing")) == []


def test_force_new_table_covers_every_stateful_cloud_type() -> None:
    cloud_stateful = {t for t in STATEFUL_TYPES if not t.startswith("kubernetes:")}
    assert cloud_stateful <= set(FORCE_NEW)


# ---------------------------------------------------------------------------------------------
# CLI: exit codes and bad input
# ---------------------------------------------------------------------------------------------


def _write(directory: Path, doc: Any) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "plan.json").write_text(json.dumps(doc))
    return directory


def test_cli_exit_codes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    base = _write(tmp_path / "base", plan(res(NAMESPACE, "ns", {"metadata": {"name": "ml"}})))
    same = _write(tmp_path / "same", plan(res(NAMESPACE, "ns", {"metadata": {"name": "ml"}})))
    gone = _write(tmp_path / "gone", plan())
    assert main(["diff", str(base), str(same)]) == 0
    assert "No changes." in capsys.readouterr().out
    assert main(["diff", str(base), str(gone), "--format", "markdown"]) == 3
    assert "destructive change(s)" in capsys.readouterr().out
    # Non-destructive changes exit 0.
    added = _write(
        tmp_path / "added", plan(res(NAMESPACE, "ns", {"metadata": {"name": "ml"}}), res(CONFIG_MAP, "c"))
    )
    assert main(["diff", str(base), str(added), "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["summary"]["added"] == 1
    # A MIG layout change destroys nothing but evicts GPU pods: flagged, exit 3.
    relabelled = copy.deepcopy(NG)
    relabelled["labels"]["nvidia.com/mig.config"] = "all-1g.10gb"
    mig_base = _write(tmp_path / "mig-base", plan(res(NODE_GROUP, "ng", NG)))
    mig_head = _write(tmp_path / "mig-head", plan(res(NODE_GROUP, "ng", relabelled)))
    assert main(["diff", str(mig_base), str(mig_head)]) == 3
    out = capsys.readouterr().out
    assert "MIG layout changes (1)" in out and "DESTRUCTIVE" not in out


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda d: None, "no such plan directory"),
        (lambda d: d.mkdir(), "no plan.json"),
        (lambda d: (d.mkdir(), (d / "plan.json").write_text("{oops")), "not valid JSON"),
        (lambda d: (d.mkdir(), (d / "plan.json").write_text("[]")), "not a plan"),
        (
            lambda d: (d.mkdir(), (d / "plan.json").write_text('{"resources": [{"urn": 1}]}')),
            "resources[0] needs a urn",
        ),
    ],
    ids=["missing-dir", "no-plan-json", "bad-json", "not-a-plan", "bad-resource"],
)
def test_cli_bad_input_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], make: Any, message: str
) -> None:
    good = _write(tmp_path / "good", plan())
    bad = tmp_path / "bad"
    make(bad)
    assert main(["diff", str(good), str(bad)]) == 2
    err = capsys.readouterr().err
    assert message in err and err.startswith("error: ") and "Traceback" not in err


# ---------------------------------------------------------------------------------------------
# The real planner, twice
# ---------------------------------------------------------------------------------------------


def _plan_dir(tmp_path: Path, name: str, stack: str, config: dict[str, Any]) -> Path:
    out = tmp_path / name
    write_plan(run_plan(REPO, stack, config_override=config), out)
    return out


def test_real_prod_plans_diff(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """prod with the inference pool's MIG layout changed and the training pool moved to another zone."""
    raw = stack_raw_config("prod")
    edited = copy.deepcopy(raw)
    edited["gpuPools"][0]["sharing"]["mig"]["layout"] = "all-3g.40gb"
    edited["kserve"]["services"] = [
        s for s in edited["kserve"]["services"] if s.get("migProfile") != "1g.10gb"
    ]
    edited["gpuPools"][1]["zones"] = ["us-east-1b"]
    base, head = _plan_dir(tmp_path, "base", "prod", raw), _plan_dir(tmp_path, "head", "prod", edited)
    d = diff_dirs(base, head)
    training = next(c for c in d.changes if c.name == "h100-training-nodegroup")
    # A new generated name: created before the old group is deleted (destructive: the old nodes go).
    assert (training.action, training.replace_triggers, training.delete_first, training.destructive) == (
        "replaced",
        ["nodeGroupName", "subnetIds"],
        False,
        True,
    )
    inference = next(c for c in d.changes if c.name == "h100-inference-nodegroup")
    assert inference.mig_layout == "nvidia.com/mig.config: all-balanced -> all-3g.40gb"
    mig_cm = next(c for c in d.changes if c.name == "gpu-operator-mig-parted-config")
    assert mig_cm.mig_layout.startswith('data["config.yaml"]: <')  # its lines that change are printed below
    # The profiles all-3g.40gb no longer has leave the Auto Scaling group's node template too.
    assert {c.name for c in d.of("removed")} == {
        "serving.guard-isvc",
        "serving.guard",
        "h100-inference-asg-resources/nvidia.com/mig-1g.10gb",
        "h100-inference-asg-resources/nvidia.com/mig-2g.20gb",
    }
    assert not any(c.destructive for c in d.of("removed"))  # neither holds state
    assert main(["diff", str(base), str(head)]) == 3
    out = capsys.readouterr().out
    assert "DESTRUCTIVE changes (1)" in out and "MIG layout changes (2)" in out


def test_real_dev_plan_diff_against_itself_is_empty_and_a_scale_change_is_in_place(tmp_path: Path) -> None:
    raw = stack_raw_config("dev")
    edited = copy.deepcopy(raw)
    edited["gpuPools"][0]["maxNodes"] = 5
    base, head = _plan_dir(tmp_path, "base", "dev", raw), _plan_dir(tmp_path, "head", "dev", edited)
    assert diff_dirs(base, base).changes == []
    d = diff_dirs(base, head)
    pool = next(c for c in d.changes if c.type == GKE_POOL)
    assert pool.action == "changed" and pool.paths == ["autoscaling.totalMaxNodeCount"]
    assert d.destructive == [] and d.of("replaced") == [] and d.of("removed") == []


# ---------------------------------------------------------------------------------------------
# Disruptive and blocked changes (issue 20)
# ---------------------------------------------------------------------------------------------

NODEPOOL = "kubernetes:karpenter.sh/v1:NodePool"
GPU_OPERATOR_CHART = "gpu-operator"


def _exit(tmp_path: Path, base: dict[str, Any], head: dict[str, Any]) -> int:
    return main(["diff", str(_write(tmp_path / "b", base)), str(_write(tmp_path / "h", head))])


def test_removing_a_karpenter_node_pool_is_disruptive(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pool = res(NODEPOOL, "h100-nodepool", {"metadata": {"name": "h100"}})
    c = only(diff_plans(plan(pool), plan()))
    assert c.action == "removed" and not c.destructive and c.flagged
    assert c.disruptions == [
        "Karpenter terminates every node it launched for this NodePool, and the GPU pods on them"
    ]
    assert _exit(tmp_path, plan(pool), plan()) == 3
    assert "DISRUPTIVE changes (1)" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("kind", "fragment"),
    [
        ("ClusterQueue", "pending workloads are never admitted"),
        ("LocalQueue", "stay suspended"),
        ("ResourceFlavor", "stop admitting"),
        ("WorkloadPriorityClass", "no longer admitted"),
    ],
)
def test_removing_kueue_objects_strands_jobs(kind: str, fragment: str) -> None:
    c = only(diff_plans(plan(res(f"kubernetes:kueue.x-k8s.io/v1beta2:{kind}", "x")), plan()))
    assert c.flagged and not c.destructive and fragment in c.disruptions[0]


def test_removing_a_volcano_queue_says_up_fails() -> None:
    d = diff_plans(plan(res("kubernetes:scheduling.volcano.sh/v1beta1:Queue", "q")), plan())
    assert "Volcano refuses to delete a Queue that is not Closed" in only(d).disruptions[0]
    assert "`pulumi up` fails" in render(d)


def test_removing_a_volcano_queue_is_blocked_until_it_is_closed() -> None:
    # Volcano off (or a team removed) with open queues: `pulumi up` would fail at the Queue, so the diff
    # lists it as blocked, with the step that unblocks it, and exits 3.
    d = diff_plans(plan(res("kubernetes:scheduling.volcano.sh/v1beta1:Queue", "q")), plan())
    c = only(d)
    assert c.blocked.startswith("blocked by Volcano") and "--action close" in c.blocked
    assert c.flagged and d.flagged == [c]
    text = render(d)
    assert "BLOCKED (1)" in text and "blocked by Volcano" in text
    # A queue kept on delete never reaches Volcano's webhook.
    kept = res("kubernetes:scheduling.volcano.sh/v1beta1:Queue", "q")
    kept["options"]["retainOnDelete"] = True
    assert not only(diff_plans(plan(kept), plan())).blocked


def _operator(version: str, driver: dict[str, Any]) -> dict[str, Any]:
    inputs = {
        "chart": GPU_OPERATOR_CHART,
        "name": "gpu-operator",
        "version": version,
        "values": {"driver": driver},
    }
    return res(RELEASE, "gpu-operator-helm", inputs)


def test_a_gpu_operator_bump_that_changes_the_node_driver_is_disruptive(tmp_path: Path) -> None:
    # v26.3.0's default driver is 580.126.20, v26.7.0's 595.91.07 (catalog.drivers).
    base, head = plan(_operator("v26.3.0", {"enabled": True})), plan(_operator("v26.7.0", {"enabled": True}))
    c = only(diff_plans(base, head))
    assert c.disruptions and c.disruptions[0].startswith("node driver: 580.126.20 -> 595.91.07")
    assert "version: v26.3.0 -> v26.7.0" in c.values
    assert _exit(tmp_path, base, head) == 3
    # The same bump with the driver pinned, or with a driver the operator does not install, evicts nothing.
    pinned = {"enabled": True, "version": "580.105.08"}
    assert not only(
        diff_plans(plan(_operator("v26.3.0", pinned)), plan(_operator("v26.7.0", pinned)))
    ).flagged
    host = {"enabled": False}
    assert not only(diff_plans(plan(_operator("v26.3.0", host)), plan(_operator("v26.7.0", host)))).flagged


def test_gke_machine_type_change_recreates_the_nodes_in_place() -> None:
    base = plan(res(GKE_POOL, "pool", {"name": "l4", "nodeConfig": {"machineType": "g2-standard-8"}}))
    head = plan(res(GKE_POOL, "pool", {"name": "l4", "nodeConfig": {"machineType": "g2-standard-16"}}))
    c = only(diff_plans(base, head))
    assert c.action == "changed" and c.flagged
    assert "recreating every node of the pool" in c.disruptions[0]
    assert c.values == ["nodeConfig.machineType: g2-standard-8 -> g2-standard-16"]


def test_cert_manager_keeping_its_crds_is_not_destructive() -> None:
    kept = res(
        RELEASE,
        "cert-manager-helm",
        {"chart": "cert-manager", "values": {"crds": {"enabled": True, "keep": True}}},
    )
    assert not only(diff_plans(plan(kept), plan())).destructive
    dropped = res(
        RELEASE, "cert-manager-helm", {"chart": "cert-manager", "values": {"crds": {"enabled": True}}}
    )
    assert only(diff_plans(plan(dropped), plan())).destructive


def test_protect_blocks_only_what_pulumi_refuses() -> None:
    old = res(GKE_POOL, "pool", {"name": "l4", "nodeConfig": {"spot": True}}, protect=True)
    new = res(GKE_POOL, "pool", {"name": "l4", "nodeConfig": {"spot": False}}, protect=True)
    c = only(diff_plans(plan(old), plan(new)))
    assert c.blocked.startswith("blocked by protect") and c.flagged
    text = render(diff_plans(plan(old), plan(new)))
    assert "blocked by protect: `pulumi up` refuses to replace it" in text
    assert "create replacement, then delete" not in text and "BLOCKED (1)" in text
    # Unprotected in the same update (disposable): Pulumi replaces it, create-before-delete.
    unprotected = res(GKE_POOL, "pool", {"name": "l4", "nodeConfig": {"spot": False}}, protect=False)
    c = only(diff_plans(plan(old), plan(unprotected)))
    assert not c.blocked and "create replacement, then delete" in render(
        diff_plans(plan(old), plan(unprotected))
    )
    # Removing a protected resource is refused.
    assert only(diff_plans(plan(old), plan())).blocked.endswith(
        "refuses to delete it (docs/day2.md, Protection)"
    )


def test_changes_show_old_and_new_values_and_name_list_items() -> None:
    cq = "kubernetes:kueue.x-k8s.io/v1beta2:ClusterQueue"

    def queue(*flavors: tuple[str, int]) -> dict[str, Any]:
        groups = [
            {
                "flavors": [
                    {"name": n, "resources": [{"name": "nvidia.com/gpu", "nominalQuota": q}]}
                    for n, q in flavors
                ]
            }
        ]
        return res(cq, "kueue-cq-gpu", {"spec": {"resourceGroups": groups}})

    base = plan(queue(("h100", 16), ("l4", 8)))
    head = plan(queue(("l4", 4), ("h100", 16)))  # reordered, one quota changed
    c = only(diff_plans(base, head))
    assert c.paths == ["spec.resourceGroups[0].flavors[name=l4].resources[name=nvidia.com/gpu].nominalQuota"]
    assert c.values == [f"{c.paths[0]}: 8 -> 4"]
    assert f"{c.paths[0]}: 8 -> 4" in render(diff_plans(base, head))


def _driver_object_edit(project: Path, stack: str, type_: str, path: tuple[str, ...], value: Any) -> Any:
    """The plan of ``project``'s ``stack``, and the same plan with one field of each custom resource of ``type_``
    changed, diffed."""
    from gpu_platform.offline import plan_document

    before = plan_document(run_plan(project, stack))
    after = copy.deepcopy(before)
    edited = [r for r in after["resources"] if r["type"] == type_]
    assert edited, type_
    for res in edited:
        obj = res["inputs"]
        for key in path[:-1]:
            obj = obj.setdefault(key, {})
        obj[path[-1]] = value
    return diff_plans(before, after)


@pytest.mark.parametrize(
    ("project", "stack", "type_", "path", "what"),
    [
        (
            REPO / "examples" / "openshift-olm",
            "example",
            "kubernetes:nvidia.com/v1:ClusterPolicy",
            ("spec", "driver", "version"),
            "NVIDIA GPU driver",
        ),
        (
            REPO / "examples" / "topology-aware-training",
            "aks-nd-h100",
            "kubernetes:mellanox.com/v1alpha1:NicClusterPolicy",
            ("spec", "ofedDriver", "version"),
            "DOCA (MOFED) network driver",
        ),
    ],
)
def test_a_driver_reload_in_any_custom_resource_is_disruptive(
    project: Path, stack: str, type_: str, path: tuple[str, ...], what: str
) -> None:
    """The gate reads every object that selects a node driver, not only the GPU Operator's Helm release: a new
    driver version in OLM's ClusterPolicy or the Network Operator's NicClusterPolicy reloads it on the nodes."""
    d = _driver_object_edit(project, stack, type_, path, "99.0.0")
    assert d.flagged
    (change,) = d.disruptive  # one object of each kind in these plans
    assert change.type == type_ and what in change.disruptions[0] and "99.0.0" in change.disruptions[0]


def test_a_new_karpenter_node_image_is_disruptive() -> None:
    """Karpenter drifts every node of a pool whose EC2NodeClass selects another AMI (the pinned alias moving with a
    library release, or ``ami_version``): the gate flags it so the team drains or marks jobs first."""
    d = _driver_object_edit(
        REPO / "examples" / "eks-karpenter-gpu",
        "example",
        "kubernetes:karpenter.k8s.aws/v1:EC2NodeClass",
        ("spec", "amiSelectorTerms"),
        [{"alias": "al2023@v20990101"}],
    )
    assert d.flagged
    assert any(
        "node image" in c.disruptions[0] and "do-not-disrupt" in c.disruptions[0] for c in d.disruptive
    )


def test_flagged_values_are_shown_whole_and_unflagged_ones_shortened() -> None:
    """A flagged field's old -> new value is never cut short (text, markdown, JSON); other fields stay summarized."""
    nodeset = {
        "slurmd": {"resources": {"limits": {"nvidia.com/gpu": 8}}},
        "extraConfMap": {"Gres": ["gpu:h100:8"]},
    }
    long_note = "x" * 80

    def slurm(nodesets: dict[str, Any], note: str) -> dict[str, Any]:
        inputs = {"chart": "slurm", "name": "slurm", "values": {"nodesets": nodesets, "note": note}}
        return res(RELEASE, "slurm-helm", inputs)

    d = diff_plans(plan(slurm({"h100": nodeset}, "a")), plan(slurm({}, long_note)))
    c = only(d)
    assert c.flagged and c.effects == ["ends running jobs"]
    whole = json.dumps(nodeset, sort_keys=True)
    assert f"values.nodesets.h100: {whole} -> (none)" in c.values
    assert f"values.note: a -> {long_note[:45]}..." in c.values
    for fmt in ("text", "markdown"):
        assert whole in render(d, fmt)
    doc = json.loads(render(d, "json"))
    assert doc["changes"][0]["flaggedValues"] == [
        {"path": "values.nodesets.h100", "old": nodeset, "new": None}
    ]


def test_rules_read_inputs_of_any_shape_without_a_traceback() -> None:
    """A hand-written plan may hold a list where a rule reads a map: the rule reads nothing, the diff goes on."""
    odd = res(CONFIG_MAP, "cm", {"metadata": ["x"], "data": ["not", "a", "map"]})
    release = res(RELEASE, "r", {"chart": "kube-prometheus-stack", "values": {"prometheus": "odd"}})
    d = diff_plans(plan(odd, release), plan(res(CONFIG_MAP, "cm", {"metadata": ["y"], "data": []})))
    assert {c.name for c in d.changes} == {"cm", "r"}


def test_a_named_kubernetes_object_is_deleted_before_its_replacement(tmp_path: Path) -> None:
    """The Kubernetes provider replaces an object that keeps its name by deleting it first (two objects cannot
    share a name): the diff says so, as the real ``pulumi up`` of ``tests/control_plane/test_pulumi_up_cloud.py``
    does it. A node pool, which gets a new generated name, is still created before the old one goes."""
    raw = stack_raw_config("dev")
    edited = copy.deepcopy(raw)
    edited["gpuPools"][0]["sharing"]["replicas"] = 2
    d = diff_dirs(_plan_dir(tmp_path, "base", "dev", raw), _plan_dir(tmp_path, "head", "dev", edited))
    config_map = next(c for c in d.changes if c.type == "kubernetes:core/v1:ConfigMap")
    assert (config_map.action, config_map.replace_triggers, config_map.delete_first) == (
        "replaced",
        ["data"],
        True,
    )
    assert f"{config_map.name}: delete first, then create, because data changed" in render(d)
    old = {"type": "kubernetes:core/v1:ConfigMap", "inputs": {"metadata": {"name": "a", "namespace": "n"}}}
    renamed = {"type": old["type"], "inputs": {"metadata": {"name": "b", "namespace": "n"}}}
    moved = {"type": old["type"], "inputs": {"metadata": {"name": "a", "namespace": "m"}}}
    assert _named_in_place(old, old)
    assert not _named_in_place(old, renamed) and not _named_in_place(old, moved)
    release = {"type": "kubernetes:helm.sh/v3:Release", "inputs": {"metadata": {"name": "a"}}}
    assert not _named_in_place(release, release)
