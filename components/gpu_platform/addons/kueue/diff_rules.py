"""What ``gpu-platform diff`` flags in Kueue's objects (``gpu_platform.diff_rule``).

Deleting a queue, flavor or priority class strands the work that names it (Kueue concepts docs). A ResourceFlavor
with a ``topologyName`` (topology-aware scheduling) cannot change its topology, node labels or tolerations: the
CRD's validation rules refuse it (kubernetes-sigs/kueue v0.19.2
``config/components/crd/bases/kueue.x-k8s.io_resourceflavors.yaml``, "topologyName is immutable when topologyName
is set", "tolerations are immutable when topologyName is set", "nodeLabels are immutable ..."), so turning a pool's
topology off or adding a taint to a topology pool fails ``pulumi up`` at the flavor.
"""

from __future__ import annotations

from gpu_platform.diff_rule import DiffRule, Inputs, changes, gone, kind

GROUP = "kueue.x-k8s.io"


def has_topology(inputs: Inputs) -> bool:
    spec = inputs.get("spec") or {}
    return isinstance(spec, dict) and bool(spec.get("topologyName"))


DIFF_RULES: tuple[DiffRule, ...] = (
    gone(
        kind(GROUP, "ClusterQueue"),
        "strands queued work",
        "Kueue deletes the queue: its pending workloads are never admitted (stranded)",
    ),
    gone(
        kind(GROUP, "LocalQueue"),
        "strands queued work",
        "jobs submitted to this LocalQueue stay suspended: nothing admits them",
    ),
    gone(
        kind(GROUP, "ResourceFlavor"),
        "strands queued work",
        "ClusterQueues naming this flavor stop admitting workloads to it",
    ),
    gone(
        kind(GROUP, "WorkloadPriorityClass"),
        "strands queued work",
        "workloads naming this priority class are no longer admitted",
    ),
    gone(
        kind(GROUP, "Topology"),
        "strands queued work",
        "workloads that ask for a topology (kueue.x-k8s.io/podset-required-topology or -preferred-topology) are "
        "no longer admitted to the flavors that used it",
    ),
    changes(
        kind(GROUP, "ResourceFlavor"),
        "blocks the update",
        "blocked by Kueue: the ResourceFlavor CRD refuses a new topologyName, nodeLabels or tolerations on a flavor "
        "with a topology, and workloads are admitted on it; hold its ClusterQueues "
        "(`spec.stopPolicy: HoldAndDrain`), let the admitted workloads finish, delete the flavor, then run "
        "`pulumi up` (docs/day2.md)",
        "spec.topologyName",
        "spec.nodeLabels",
        "spec.tolerations",
        when=has_topology,
        when_text="when the flavor has a topologyName (topology-aware scheduling)",
    ),
)
