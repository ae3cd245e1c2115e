"""The policy pack: its policies come from the rule registry and behave in the analyzer as in the rules.

``PolicyPack(...)`` starts a gRPC server, so nothing here constructs one: the pack's ``__main__.py``
runs with ``PolicyPack`` replaced by a recorder, and the policies are exercised through
pulumi_policy's own analyzer servicer with requests shaped as the engine sends them (including
values that are unknown during a preview).
"""

from __future__ import annotations

import runpy
import sys
import tomllib
from pathlib import Path
from typing import Any

import pulumi_policy
import pytest
import yaml

from gpu_platform import __version__
from gpu_platform.cli import main
from gpu_platform.policy import RULES
from gpu_platform.policy.operators import (
    OPERATOR_DEFAULT_DAEMONSET_TOLERATIONS,
    OPERATOR_DEFAULT_NFD_WORKER_TOLERATIONS,
)
from gpu_platform.policy.pack import PACK_NAME, build_policies
from gpu_platform.policy.project import REPOSITORY, default_requirement, pack_files, pack_version
from tests.conftest import REPO, load_yaml_docs, upstream

POLICY_DIR = REPO / "policy"
NODE_GROUP = "aws:eks/nodeGroup:NodeGroup"
GPU_TAINT_AKS = "nvidia.com/gpu=present:NoSchedule"


def test_policies_mirror_the_rule_registry() -> None:
    policies = build_policies()
    assert [p.name for p in policies] == list(RULES)
    for p in policies:
        rule = RULES[p.name]
        stack = isinstance(p, pulumi_policy.StackValidationPolicy)
        assert stack == (rule.scope == "stack")
        assert p.enforcement_level.value == rule.level
        assert p.description == rule.description


def run_pack(directory: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """Run a pack directory's ``__main__.py`` as Pulumi would, with ``PolicyPack`` recording its arguments."""
    built: dict[str, Any] = {}

    def recorder(**kwargs: Any) -> None:
        built.update(kwargs)

    monkeypatch.setattr(pulumi_policy, "PolicyPack", recorder)
    monkeypatch.syspath_prepend(str(directory))
    runpy.run_path(str(directory / "__main__.py"), run_name="__main__")
    return built


def assert_same_rules_as_plan_policy(built: dict[str, Any]) -> None:
    assert built["name"] == PACK_NAME
    assert built["enforcement_level"] == pulumi_policy.EnforcementLevel.MANDATORY
    policies = built["policies"]
    # `gpu-platform plan --policy` runs check_all over RULES: the pack has one policy per rule, same level.
    assert [p.name for p in policies] == list(RULES)
    assert [p.enforcement_level.value for p in policies] == [r.level for r in RULES.values()]
    assert [p.description for p in policies] == [r.description for r in RULES.values()]


def test_written_pack_runs_the_installed_librarys_rules(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    pack = tmp_path / "policy"
    assert main(["policy-pack", "write", str(pack)]) == 0
    assert sorted(p.name for p in pack.iterdir()) == ["PulumiPolicy.yaml", "__main__.py", "requirements.txt"]
    main_py = (pack / "__main__.py").read_text()
    assert "sys.path" not in main_py
    assert [line for line in main_py.splitlines() if line and not line.startswith('"""')] == [
        "from gpu_platform.policy.pack import serve",
        "serve()",
    ]
    project = yaml.safe_load((pack / "PulumiPolicy.yaml").read_text())
    assert project["runtime"] == {"name": "python", "options": {"virtualenv": "venv"}}
    assert project["description"].startswith("gpu-platform guard rails")
    assert str(project["version"]) == pack_version(__version__)
    requirements = (pack / "requirements.txt").read_text().splitlines()
    assert requirements[-1] == default_requirement(__version__)
    assert_same_rules_as_plan_policy(run_pack(pack, monkeypatch))
    assert "pulumi preview --policy-pack" in capsys.readouterr().out


def test_the_pack_without_the_policy_extra_says_which_extra_in_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A virtualenv without ``gpu-platform[policy]`` (the pack's own, or ``--virtualenv`` pointing at the
    program's): the engine shows one line naming the extra, and the pack exits 2, as ``plan`` does."""
    pack = tmp_path / "policy"
    assert main(["policy-pack", "write", str(pack)]) == 0
    capsys.readouterr()
    for name in [m for m in sys.modules if m.split(".")[0] == "pulumi_policy"]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "pulumi_policy", None)  # Python then refuses the import
    with pytest.raises(SystemExit) as exc:
        runpy.run_path(str(pack / "__main__.py"), run_name="__main__")
    assert exc.value.code == 2
    assert capsys.readouterr().err == (
        "error: the gpu-platform policy pack needs the Pulumi policy SDK (pulumi-policy): "
        "pip install 'gpu-platform[policy]'\n"
    )


def test_the_pack_installs_the_library_version_that_wrote_it() -> None:
    assert default_requirement("0.1.0") == "gpu-platform[policy]==0.1.0"
    assert default_requirement("1.4.2") == "gpu-platform[policy]==1.4.2"
    assert default_requirement("1.0.0rc1") == "gpu-platform[policy]==1.0.0rc1"
    # Between releases main is X.Y.Z.devN, which PyPI does not serve: the pack installs main itself.
    assert default_requirement("0.2.0.dev3") == f"gpu-platform[policy] @ git+{REPOSITORY}@main"
    # A source tree that was never installed has no version to pin.
    assert default_requirement("0.0.0+unknown") == "gpu-platform[policy]"


def test_the_pack_version_is_the_library_version_as_semver() -> None:
    """Pulumi reads PulumiPolicy.yaml's version as semver; PEP 440's pre and dev parts are mapped."""
    assert pack_version("0.2.0") == "0.2.0"
    assert pack_version("0.2.0.dev3") == "0.2.0-dev.3"
    assert pack_version("1.0.0rc1") == "1.0.0-rc.1"
    assert pack_version("1.0.0b2.dev1") == "1.0.0-beta.2.dev.1"
    assert pack_version("1.2") == "1.2.0"
    assert pack_version("0.2.0.dev3+g1234") == "0.2.0-dev.3"


def test_the_unreleased_pack_installs_from_the_canonical_repository() -> None:
    urls = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["urls"]
    assert urls["Repository"] == REPOSITORY


def test_writing_over_a_different_pack_needs_force(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pack = tmp_path / "p"
    assert main(["policy-pack", "write", str(pack)]) == 0
    assert main(["policy-pack", "write", str(pack)]) == 0  # same content: nothing to replace
    assert main(["policy-pack", "write", str(pack), "--virtualenv", "../.venv"]) == 2
    assert (
        capsys.readouterr().err
        == f"error: {pack}: would replace PulumiPolicy.yaml; pass --force to replace\n"
    )
    assert "virtualenv: venv" in (pack / "PulumiPolicy.yaml").read_text()
    assert main(["policy-pack", "write", str(pack), "--virtualenv", "../.venv", "--force"]) == 0
    assert "virtualenv: ../.venv" in (pack / "PulumiPolicy.yaml").read_text()


def test_repository_policy_directory_is_the_written_pack_for_this_checkout(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """policy/ is `gpu-platform policy-pack write policy --requirement '-e ..[policy]'`: no sys.path hack."""
    version = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["version"]
    expected = pack_files(version, requirement="-e ..[policy]")
    assert {name: (POLICY_DIR / name).read_text() for name in expected} == expected
    assert_same_rules_as_plan_policy(run_pack(POLICY_DIR, monkeypatch))


def _servicer() -> Any:
    from pulumi_policy.policy import _PolicyAnalyzerServicer

    return _PolicyAnalyzerServicer(
        "gpu-platform", "0.1.0", build_policies(), pulumi_policy.EnforcementLevel.MANDATORY
    )


def _struct(props: dict[str, Any]) -> Any:
    from google.protobuf import struct_pb2

    s = struct_pb2.Struct()
    s.update(props)
    return s


def _node_group(taints: Any) -> dict[str, Any]:
    return {
        "clusterName": "c",
        "amiType": "AL2023_x86_64_NVIDIA",
        "instanceTypes": ["g5.xlarge"],
        "taints": taints,
        "scalingConfig": {"minSize": 0, "maxSize": 2, "desiredSize": 0},
    }


def _analyze(props: dict[str, Any], ignore: list[str]) -> list[Any]:
    from pulumi.runtime import proto

    request = proto.AnalyzeRequest(
        type=NODE_GROUP,
        properties=_struct(props),
        urn=f"urn:pulumi:dev::p::{NODE_GROUP}::gpu",
        name="gpu",
        options=proto.AnalyzerResourceOptions(ignoreChanges=ignore),
    )
    return list(_servicer().Analyze(request, None).diagnostics)


def test_resource_policies_report_through_the_analyzer() -> None:
    from pulumi.runtime import proto

    found = _analyze(_node_group([]), ignore=[])
    assert sorted(d.policyName for d in found) == ["autoscaled-pool-ignores-size", "gpu-pool-taint"]
    assert all(d.enforcementLevel == proto.MANDATORY for d in found)
    taint = next(d for d in found if d.policyName == "gpu-pool-taint")
    assert "no NoSchedule taint with key nvidia.com/gpu" in taint.message
    good = _node_group([{"key": "nvidia.com/gpu", "value": "present", "effect": "NO_SCHEDULE"}])
    assert _analyze(good, ignore=["scalingConfig.desiredSize"]) == []


def test_values_unknown_during_preview_do_not_abort_the_policies() -> None:
    from pulumi_policy.proxy import UNKNOWN_ARRAY_VALUE

    found = _analyze(_node_group(UNKNOWN_ARRAY_VALUE), ignore=[])
    # The taint rule cannot tell and stays silent; the size rule still runs on the known values.
    assert [d.policyName for d in found] == ["autoscaled-pool-ignores-size"]
    assert not any("can't run policy" in d.message for d in found)


def test_stack_policies_report_with_the_offending_urn() -> None:
    from pulumi.runtime import proto

    pool_urn = "urn:pulumi:dev::p::azure-native:containerservice:AgentPool::gpu"
    pool = proto.AnalyzerResource(
        type="azure-native:containerservice:AgentPool",
        name="gpu",
        urn=pool_urn,
        properties=_struct(
            {"vmSize": "Standard_NC4as_T4_v3", "nodeTaints": ["nvidia.com/gpu=present:NoSchedule"]}
        ),
        options=proto.AnalyzerResourceOptions(),
    )
    release = proto.AnalyzerResource(
        type="kubernetes:helm.sh/v3:Release",
        name="gpu-operator-helm",
        urn="urn:pulumi:dev::p::kubernetes:helm.sh/v3:Release::gpu-operator-helm",
        properties=_struct({"chart": "gpu-operator", "version": "v26.7.0", "values": {}}),
        options=proto.AnalyzerResourceOptions(),
    )
    found = list(
        _servicer().AnalyzeStack(proto.AnalyzeStackRequest(resources=[pool, release]), None).diagnostics
    )
    driver = [d for d in found if d.policyName == "single-driver-owner"]
    assert len(driver) == 1 and driver[0].urn == pool_urn
    assert "AKS installs it" in driver[0].message


def test_operator_chart_defaults_match_the_pinned_upstream_values() -> None:
    values = load_yaml_docs(upstream("gpu-operator", "values.yaml"))[0]
    assert values["daemonsets"]["tolerations"] == list(OPERATOR_DEFAULT_DAEMONSET_TOLERATIONS)
    assert values["node-feature-discovery"]["worker"]["tolerations"] == list(
        OPERATOR_DEFAULT_NFD_WORKER_TOLERATIONS
    )
    assert values["driver"]["enabled"] is True and values["devicePlugin"]["enabled"] is True
    assert values["nfd"]["enabled"] is True
