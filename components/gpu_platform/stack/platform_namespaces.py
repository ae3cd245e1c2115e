"""Team, service and Slurm namespaces that the platform owns: refused naming the setting, on the platform where
they collide (OpenShift's ``nvidia-gpu-operator``, ``openshift-nfd``, ``openshift-monitoring``, any
``openshift-*``; ``kube-*`` everywhere), so a team's quota labels, LimitRanges and garbage collection never land in
the platform's own namespace. Namespaces every cluster reserves (``kube-system``, the library's operators'
namespaces) are refused by each section's own checks (``resolve.kubernetes.RESERVED_NAMESPACES``)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from gpu_platform.cloud_facts import profile_of
from gpu_platform.errors import Loc, Problems
from gpu_platform.resolve.kubernetes import RESERVED_NAMESPACES


def _teams(section: Any, key: str) -> Iterator[tuple[Loc, Any]]:
    """``(location, namespace)`` of each team of a ``kueue``/``volcano`` section (the name when no namespace)."""
    teams = section.get("teams") if isinstance(section, Mapping) else None
    for i, team in enumerate(teams if isinstance(teams, list) else ()):
        if isinstance(team, Mapping):
            field = "namespace" if "namespace" in team else "name"
            yield (key, "teams", i, field), team.get(field)


def namespace_settings(cfg: Mapping[str, Any]) -> Iterator[tuple[Loc, Any]]:
    """Every namespace the stack file asks for a team, an inference service or the Slurm cluster, with its key."""
    yield from _teams(cfg.get("kueue"), "kueue")
    yield from _teams(cfg.get("volcano"), "volcano")
    services = cfg.get("kserve_services")
    for i, svc in enumerate(services if isinstance(services, list) else ()):
        if isinstance(svc, Mapping) and "namespace" in svc:
            yield ("kserve", "services", i, "namespace"), svc["namespace"]
    slurm = cfg.get("slurm")
    if isinstance(slurm, Mapping) and "namespace" in slurm:
        yield ("slurm", "namespace"), slurm["namespace"]


def platform_namespace_problems(cloud: str, cfg: Mapping[str, Any], p: Problems) -> None:
    """Each of those namespaces the platform of ``cloud`` owns, refused at its key."""
    profile = profile_of(cloud)
    for loc, namespace in namespace_settings(cfg):
        if not isinstance(namespace, str) or namespace in RESERVED_NAMESPACES:
            continue
        if owner := profile.namespace_owner(namespace):
            p.add(loc, f"'{namespace}' is {owner}: give it a namespace of its own")
