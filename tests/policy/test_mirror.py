"""The ``mirror-required`` rule: off until a mirror is configured; then every Helm chart must come from the chart
mirror and every image (a release's values, the images its chart runs by default, any Kubernetes object) from the
image mirror. Configured as Pulumi configures a policy pack (``--policy-pack-config``) and, offline, with
``gpu-platform plan --policy --policy-config``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pulumi_policy
import pytest

from gpu_platform.cli import main
from gpu_platform.offline import Plan, run_plan
from gpu_platform.policy.mirror import MIRROR_CONFIG_SCHEMA
from gpu_platform.policy.offline import PolicyConfigError, check_plan, policy_config
from gpu_platform.policy.pack import build_policies
from gpu_platform.policy.rules import RULES
from tests.conftest import REPO
from tests.support.policy import res

RULE = "mirror-required"
CONFIG = {RULE: {"charts": "oci://registry.acme/helm", "images": "registry.acme/mirror"}}
OVERLAY = REPO / "tests" / "fixtures" / "mirror" / "mirror.yaml"
RELEASE = "kubernetes:helm.sh/v3:Release"


def _mirror_violations(plan: Plan, config: Any = None) -> list[Any]:
    return [v for v in check_plan(plan, config) if v.policy == RULE]


def test_the_rule_checks_nothing_until_a_mirror_is_configured() -> None:
    plan = run_plan(REPO, "prod")
    assert _mirror_violations(plan) == [] and _mirror_violations(plan, {RULE: {}}) == []


def test_a_plan_without_the_mirror_setting_is_refused_chart_by_chart_and_image_by_image() -> None:
    found = _mirror_violations(run_plan(REPO, "prod"), CONFIG)
    assert {v.level for v in found} == {"mandatory"}
    messages = "\n".join(v.message for v in found)
    assert (
        "chart 'gpu-operator' from https://helm.ngc.nvidia.com/nvidia is not pulled from the chart mirror"
        in messages
    )
    assert "use oci://registry.acme/helm/gpu-operator" in messages
    # The library's own value, a chart default it never sets (NFD), and an object it creates (the remover).
    for image in (
        "registry.k8s.io/kueue/kueue:v0.19.2",
        "registry.k8s.io/nfd/node-feature-discovery:v0.19.0",
        "registry.k8s.io/kubectl:v1.34.1",
    ):
        assert f"image {image} is not pulled from the image mirror" in messages, image


def test_the_same_plan_with_the_mirror_set_passes() -> None:
    assert _mirror_violations(run_plan(REPO, "prod", config_file=OVERLAY), CONFIG) == []


def test_an_http_chart_mirror_is_one_helm_repository() -> None:
    check = RULES[RULE].check
    config = {"charts": "https://charts.acme/gpu"}
    good = res(RELEASE, {"chart": "volcano", "repositoryOpts": {"repo": "https://charts.acme/gpu/"}})
    assert check(good, config) == []
    for bad in (
        res(
            RELEASE,
            {"chart": "volcano", "repositoryOpts": {"repo": "https://volcano-sh.github.io/helm-charts"}},
        ),
        res(RELEASE, {"chart": "oci://ghcr.io/kserve/charts/kserve-crd"}),
        res(RELEASE, {"chart": "nvidia/gpu-operator"}),  # a repository the helm CLI knows by name
    ):
        (v,) = check(bad, config)
        assert "use chart '" in v.message and "from https://charts.acme/gpu" in v.message
    assert check(res(RELEASE, {"chart": "./charts/local"}), config) == []  # nothing is pulled


def test_any_program_s_objects_are_read_and_preloaded_images_pass() -> None:
    check = RULES[RULE].check
    pod = {
        "initContainers": [{"name": "i", "image": "cos-nvidia-installer:fixed", "imagePullPolicy": "Never"}],
        "containers": [{"name": "c", "image": "ubuntu:24.04"}],
    }
    (v,) = check(res("kubernetes:apps/v1:DaemonSet", {"spec": {"template": {"spec": pod}}}), CONFIG[RULE])
    assert "image ubuntu:24.04" in v.message and "registry.acme/mirror/library/ubuntu:24.04" in v.message
    values = {"extraContainers": [{"name": "x", "image": "quay.io/x/y:1"}]}
    unknown_chart = res(RELEASE, {"chart": "oci://registry.acme/helm/other", "values": values})
    assert [v.message for v in check(unknown_chart, CONFIG[RULE])] == [
        "r: image quay.io/x/y:1 is not pulled from the image mirror: use registry.acme/mirror/x/y:1 (the "
        "mirror's copy); set the stack's mirror.images (or the component's mirror)."
    ]


def test_a_policy_config_is_read_as_pulumi_reads_one() -> None:
    config, levels = policy_config(
        {RULE: {"enforcementLevel": "advisory", "images": "r.acme"}, "gpu-pool-taint": "disabled"}
    )
    assert config == {RULE: {"images": "r.acme"}} and levels == {
        RULE: "advisory",
        "gpu-pool-taint": "disabled",
    }
    found = check_plan(run_plan(REPO, "prod"), config, levels)
    assert found and {v.level for v in found if v.policy == RULE} == {"advisory"}
    assert not any(v.policy == "gpu-pool-taint" for v in found)
    for bad, said in (
        ({"no-such-rule": "mandatory"}, "'no-such-rule' is not a rule"),
        ({RULE: "sometimes"}, "'sometimes' is not an enforcement level"),
        (
            {RULE: {"registry": "r.acme"}},
            "'registry' is not one of its settings; valid: enforcementLevel, charts, images",
        ),
        (["mirror-required"], "a policy config is a mapping"),
    ):
        with pytest.raises(PolicyConfigError, match=said):
            policy_config(bad)


def test_plan_policy_config_runs_the_rule_offline(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "policy.json"
    path.write_text(json.dumps(CONFIG))
    code = main(
        ["plan", "--stack", "prod", "--out", str(tmp_path / "a"), "--policy", "--policy-config", str(path)]
    )
    err = capsys.readouterr().err
    assert code == 1 and f"mandatory: [{RULE}]" in err
    behind = ["--config-file", str(OVERLAY)]
    code = main(
        [
            "plan",
            "--stack",
            "prod",
            "--out",
            str(tmp_path / "b"),
            *behind,
            "--policy",
            "--policy-config",
            str(path),
        ]
    )
    assert code == 0 and f"[{RULE}]" not in capsys.readouterr().err
    path.write_text("{mirror-required: {registry: x}}")
    code = main(
        ["plan", "--stack", "prod", "--out", str(tmp_path / "c"), "--policy", "--policy-config", str(path)]
    )
    assert code == 2 and "'registry' is not one of its settings" in capsys.readouterr().err


def test_the_policy_pack_takes_the_mirror_from_its_config() -> None:
    from google.protobuf import struct_pb2
    from pulumi.runtime import proto
    from pulumi_policy.policy import _PolicyAnalyzerServicer

    (policy,) = [p for p in build_policies() if p.name == RULE]
    assert policy.config_schema is not None and policy.config_schema.properties == MIRROR_CONFIG_SCHEMA

    def analyze(config: dict[str, Any] | None) -> list[str]:
        servicer = _PolicyAnalyzerServicer(
            "gpu-platform", "0.1.0", build_policies(), pulumi_policy.EnforcementLevel.MANDATORY
        )
        if config is not None:  # what the engine sends from --policy-pack-config
            properties = struct_pb2.Struct()
            properties.update(config)
            configured = proto.PolicyConfig(enforcementLevel=proto.MANDATORY, properties=properties)
            servicer.Configure(proto.ConfigureAnalyzerRequest(policyConfig={RULE: configured}), None)
        props = struct_pb2.Struct()
        props.update(
            {"spec": {"template": {"spec": {"containers": [{"name": "c", "image": "ubuntu:24.04"}]}}}}
        )
        request = proto.AnalyzeRequest(
            type="kubernetes:apps/v1:Deployment",
            properties=props,
            urn="urn:pulumi:dev::p::kubernetes:apps/v1:Deployment::d",
            name="d",
            options=proto.AnalyzerResourceOptions(),
        )
        return [d.message for d in servicer.Analyze(request, None).diagnostics if d.policyName == RULE]

    assert analyze(None) == []  # off by default
    (message,) = analyze({"images": "registry.acme/mirror"})
    assert "image ubuntu:24.04 is not pulled from the image mirror" in message
