"""Every namespace the stack needs, created once, by one owner, and kept when nobody asks for it any more.

A namespace wanted by a team (Kueue) and by an inference service is one resource, ``namespace-<name>``;
switching Kueue off or removing the team changes its labels, never its owner. 0.1.0 created the same
namespaces as ``kueue-ns-<name>`` (inside the Kueue component) or ``kserve-namespace-<name>``: both are
aliases, so upgrading moves them without deleting anything.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import pulumi

from gpu_platform.addons.kueue.plan import CLUSTER_QUEUE_NAMESPACE_LABEL
from gpu_platform.addons.volcano.plan import TEAM_LABEL as VOLCANO_TEAM_LABEL
from gpu_platform.releases import KUEUE
from gpu_platform.resolve.kubernetes import RESERVED_NAMESPACES

if TYPE_CHECKING:
    from gpu_platform.stack.spec import PlatformSpec

KUEUE_COMPONENT = ("gpu-platform:index:Kueue", KUEUE.component_name)
"""Type and name of the stack's Kueue component (parent of the 0.1.0 team namespaces)."""


@dataclass(frozen=True)
class NamespacePlan:
    name: str
    labels: dict[str, str] = field(default_factory=dict)
    retain: bool = True
    """Kept (with everything in it) when the stack stops asking for it."""


def namespace_plans(spec: PlatformSpec) -> list[NamespacePlan]:
    """Team namespaces (labelled for their ClusterQueue or Volcano queue) and the inference services' other
    namespaces."""
    out: dict[str, NamespacePlan] = {}
    for team in spec.kueue.teams if spec.kueue else ():
        # Kept unless every team in it opts out.
        earlier = out.get(team.namespace)
        retain = team.retain_namespace or (earlier is not None and earlier.retain)
        labels = {CLUSTER_QUEUE_NAMESPACE_LABEL: team.cluster_queue}
        out[team.namespace] = NamespacePlan(team.namespace, labels, retain)
    for vteam in spec.volcano.teams if spec.volcano else ():  # Volcano's teams (never Kueue's)
        out[vteam.namespace] = NamespacePlan(vteam.namespace, {VOLCANO_TEAM_LABEL: vteam.name})
    for _, request in spec.kserve.services if spec.kserve else ():
        if request.namespace not in out and request.namespace not in RESERVED_NAMESPACES:
            out[request.namespace] = NamespacePlan(request.namespace)
    for name in spec.dra.claim_namespaces if spec.dra else ():  # DRA
        if name not in out and name not in RESERVED_NAMESPACES:
            out[name] = NamespacePlan(name)
    return sorted(out.values(), key=lambda n: n.name)


def create_namespaces(spec: PlatformSpec, opts: pulumi.ResourceOptions) -> dict[str, Any]:
    import pulumi_kubernetes as k8s

    kueue_urn = pulumi.create_urn(KUEUE_COMPONENT[1], KUEUE_COMPONENT[0])
    out: dict[str, Any] = {}
    for ns in namespace_plans(spec):
        aliases = [
            pulumi.Alias(name=f"kueue-ns-{ns.name}", parent=kueue_urn),
            pulumi.Alias(name=f"kserve-namespace-{ns.name}"),
        ]
        out[ns.name] = k8s.core.v1.Namespace(
            f"namespace-{ns.name}",
            metadata={"name": ns.name, "labels": ns.labels} if ns.labels else {"name": ns.name},
            opts=pulumi.ResourceOptions.merge(
                opts, pulumi.ResourceOptions(aliases=aliases, retain_on_delete=ns.retain)
            ),
        )
    return out
