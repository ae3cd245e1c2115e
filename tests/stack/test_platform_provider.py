"""``GpuPlatform.kubernetes_provider`` is the provider every add-on of the platform is created with, for every
cloud (a cluster it makes, or one made elsewhere: existing, OpenShift, Yandex): a program's own Kubernetes
object given it as ``opts.provider`` is created through it, and ``kubeconfig`` is a secret output."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pulumi
import pulumi_kubernetes as k8s
import pytest

from gpu_platform import GpuPlatform
from gpu_platform.offline import run_program
from tests.stack.test_gpu_platform import STACKS, stack_args


@pytest.mark.parametrize(("project_dir", "stack"), STACKS, ids=[f"{p.name}-{s}" for p, s in STACKS])
def test_a_namespace_given_the_platforms_provider_is_created_through_it(
    project_dir: Path, stack: str
) -> None:
    args, other, project = stack_args(project_dir, stack)
    seen: dict[str, Any] = {}

    def program() -> None:
        platform = GpuPlatform("platform", args)  # type: ignore[arg-type]  # camelCase keys, as in the file
        seen["provider"] = platform.kubernetes_provider
        seen["secret"] = asyncio.ensure_future(platform.kubeconfig.is_secret())
        k8s.core.v1.Namespace(
            "ml-research",
            metadata={"name": "ml-research"},
            opts=pulumi.ResourceOptions(provider=platform.kubernetes_provider),
        )

    plan = run_program(program, config=other, project=project, stack=stack)
    assert isinstance(seen["provider"], k8s.Provider)
    assert seen["secret"].result() is True
    [provider] = plan.by_type("pulumi:providers:kubernetes")
    namespace = plan.one("kubernetes:core/v1:Namespace", "ml-research")
    assert namespace.provider.rsplit("::", 1)[0] == provider.urn, namespace.provider
    releases = [r for r in plan.resources if r.type == "kubernetes:helm.sh/v3:Release"]
    assert releases and {r.provider for r in releases} == {namespace.provider}
