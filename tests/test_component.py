"""``PlannedComponent``: what every component refuses in the ``opts`` it is given. Pulumi drops a provider that
is not a ``ProviderResource`` (an ``Output`` of one, another kind of resource) without a word, and the
component's Kubernetes objects would then go to whatever cluster the ambient kubeconfig points at."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pulumi
import pulumi_kubernetes as k8s
import pytest

from gpu_platform import CertManager
from gpu_platform.cli import main
from gpu_platform.errors import ArgumentsError
from gpu_platform.offline import run_program

KUBECONFIG = "apiVersion: v1\nkind: Config\n"


def untyped(value: Any) -> Any:
    """``value`` where the type checker would refuse it, as an untyped program passes it."""
    return value


def refused(opts: Any) -> tuple[ArgumentsError, list[str]]:
    """The error ``CertManager`` refuses ``opts(provider)`` with, and the types registered by the program."""
    errors: list[ArgumentsError] = []

    def program() -> None:
        provider = k8s.Provider("cluster", kubeconfig=KUBECONFIG)
        with pytest.raises(ArgumentsError) as err:
            CertManager("cert-manager", opts=opts(provider))
        errors.append(err.value)

    plan = run_program(program)
    return errors[0], [r.type for r in plan.resources]


def test_an_output_of_a_provider_is_refused_not_dropped() -> None:
    err, registered = refused(lambda p: pulumi.ResourceOptions(provider=untyped(pulumi.Output.from_input(p))))
    assert err.component == "CertManager 'cert-manager'"
    [(path, reason)] = err.problems
    assert path == "opts.provider"
    assert reason.startswith("an Output is not a provider: Pulumi would ignore it"), reason
    assert "kubernetes_provider" in reason
    assert registered == ["pulumi:providers:kubernetes"]  # nothing of the component's


def test_a_resource_that_is_no_provider_is_refused() -> None:
    def namespace(provider: Any) -> pulumi.ResourceOptions:
        ns = k8s.core.v1.Namespace("ns", opts=pulumi.ResourceOptions(provider=provider))
        return pulumi.ResourceOptions(provider=untyped(ns))

    err, _ = refused(namespace)
    [(path, reason)] = err.problems
    assert path == "opts.provider" and reason.startswith("a Namespace resource is not a provider"), reason


def test_every_entry_of_providers_is_checked() -> None:
    err, _ = refused(lambda p: pulumi.ResourceOptions(providers=[p, untyped(pulumi.Output.from_input(p))]))
    assert [path for path, _ in err.problems] == ["opts.providers[1]"]
    err, _ = refused(
        lambda p: pulumi.ResourceOptions(providers={"kubernetes": untyped(pulumi.Output.from_input(p))})
    )
    assert [path for path, _ in err.problems] == ["opts.providers['kubernetes']"]


def test_a_provider_itself_is_taken() -> None:
    def program() -> None:
        provider = k8s.Provider("cluster", kubeconfig=KUBECONFIG)
        CertManager("cert-manager", opts=pulumi.ResourceOptions(providers=[provider]))

    plan = run_program(program)
    [provider] = plan.by_type("pulumi:providers:kubernetes")
    release = plan.one("kubernetes:helm.sh/v3:Release")
    assert release.provider.rsplit("::", 1)[0] == provider.urn


def test_the_plan_exits_2_naming_the_component_and_the_option(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    (project / "Pulumi.yaml").write_text("name: own\nruntime: python\n")
    (project / "Pulumi.test.yaml").write_text("config: {}\n")
    (project / "__main__.py").write_text(
        "import pulumi\nimport pulumi_kubernetes as k8s\nfrom gpu_platform import CertManager\n"
        f"provider = k8s.Provider('cluster', kubeconfig={KUBECONFIG!r})\n"
        "CertManager('cert-manager', opts=pulumi.ResourceOptions(provider=pulumi.Output.from_input(provider)))\n"
    )
    out = tmp_path / "out"
    assert main(["plan", "--project", str(project), "--stack", "test", "--out", str(out)]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err[0] == "error: invalid arguments for CertManager 'cert-manager':"
    assert err[1].startswith("  opts.provider: an Output is not a provider"), err
    assert "Traceback" not in "\n".join(err) and not (out / "plan.json").exists()
