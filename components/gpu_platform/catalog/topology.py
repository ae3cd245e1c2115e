"""Network topologies the clouds publish as node labels, for Kueue Topology-Aware Scheduling (TAS).

Kueue's ``Topology`` lists node label keys from the broadest network domain to the narrowest, with
``kubernetes.io/hostname`` last: node taints (the ``nvidia.com/gpu`` taint of every GPU pool) are only
respected when hostname is the lowest level (Kueue ``concepts/topology_aware_scheduling.md``; the
sample ``site/static/examples/tas/sample-gpu-queues.yaml`` at v0.19.2).

Which labels a cloud publishes, and which machines carry them, are that cloud's facts
(``cloud_facts/<cloud>/topology.py``, and ``MachineType.topology`` in ``cloud_facts/<cloud>/machines.py``); a
machine without one gets no Topology, and a pool asking for TAS on it is refused rather than given a hierarchy
whose labels no node has (Kueue would then find no domain and never admit a job).
"""

from __future__ import annotations

from dataclasses import dataclass

HOSTNAME_LABEL = "kubernetes.io/hostname"


@dataclass(frozen=True)
class NetworkTopology:
    name: str
    """The Kueue ``Topology`` object's name (flavors name it in ``spec.topologyName``)."""
    levels: tuple[str, ...]
    """Node label keys, broadest first, ``kubernetes.io/hostname`` last."""
    source: str
    """Where the labels are documented."""

    def __post_init__(self) -> None:
        assert self.levels and self.levels[-1] == HOSTNAME_LABEL, "hostname must be the lowest level"


HOST_TOPOLOGY = NetworkTopology(
    "hostname",
    (HOSTNAME_LABEL,),
    "Kueue concepts/topology_aware_scheduling.md (a single hostname level); AKS publishes no network "
    "topology node label",
)
"""AKS ND-series (InfiniBand): AKS documents no node label for a VM's place in the fabric, so the only
level is the node; TAS still packs a pod set onto as few nodes as its requests allow, honours
``podset-required-topology: kubernetes.io/hostname`` and respects the GPU taint."""


def __getattr__(name: str) -> object:
    """The clouds' label hierarchies moved to ``cloud_facts.<cloud>.topology`` (``gpu_platform._moved``)."""
    from gpu_platform._moved import moved_attribute

    return moved_attribute(__name__, name)
