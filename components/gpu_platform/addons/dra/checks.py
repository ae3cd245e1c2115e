"""Dynamic Resource Allocation: every DRA check, written once for stack files and components.

A pool is DRA-managed (``allocation: dra``) or device-plugin-managed, never both. What a DRA pool may be
follows from the pinned versions (tests/upstream/NEW_COMPONENTS_NOTES.md section 6):

- Kubernetes >= 1.34.2: ``resource.k8s.io/v1`` is GA from 1.34 and the DRA driver v0.4.1 lists v1.34.2 as
  its minimum (dra-driver-nvidia-gpu docs/prerequisites.md). The cluster version must be declared so the
  plan can check it; an undeclared version is refused rather than guessed.
- NVIDIA driver >= 565 (same document); the cloud images' catalog floors are lower, so a cloud-installed
  driver must be declared with ``driver.host_version``.
- No device-plugin sharing: time-slicing and MPS replicas are a device-plugin concept (with DRA, pods share
  a GPU by sharing one ResourceClaim; MPS is the driver's alpha ``MPSSupport`` gate).
- MIG only when the layout exists before the DRA kubelet plugin starts and nothing re-partitions the GPUs
  under it: the plugin publishes the MIG devices it finds (static MIG; ``DynamicMIG`` is alpha and needs
  Kubernetes' partitionable devices). The GPU Operator's MIG manager does not restart the DRA plugin after
  re-partitioning (it is not one of its operands), and GPU Operator 26.7 documents only "preconfigured MIG
  devices" for DRA. So: AKS ``gpu_instance_profile`` (applied when the node is provisioned; AKS documents a
  MIG + DRA walkthrough for 1.34) yes; the operator's MIG manager no; GKE ``gpu_partition_size`` no (done by
  Google's installer DaemonSet after the driver, racing the DRA plugin; no GKE DRA + MIG procedure).
- Bottlerocket ships its own NVIDIA device plugin that the library cannot switch off: refused.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from gpu_platform import versions
from gpu_platform.addons.dra.settings import DEFAULT_CLAIM_NAMESPACES
from gpu_platform.catalog.drivers import DriverVersion
from gpu_platform.cloud_facts.profile import PoolProblems
from gpu_platform.driver import DriverPlan
from gpu_platform.errors import Problems
from gpu_platform.mirror import Mirror
from gpu_platform.pools import GpuPool
from gpu_platform.resolve.dra_pools import dra_pools
from gpu_platform.resolve.kubernetes import namespace_problem

MIN_KUBERNETES = (1, 34, 2)
"""DRA driver v0.4.1 docs/prerequisites.md: "v1.34.2 or later"; ``resource.k8s.io/v1`` is GA in 1.34."""
MIN_DRIVER = DriverVersion.parse("565")
"""DRA driver v0.4.1 docs/prerequisites.md: "v565 or later for GPU allocation"."""
MIN_DRIVER_COMPUTE_DOMAINS = DriverVersion.parse("570.158.01")
"""Same document: ComputeDomains (IMEX daemons with DNS names, on by default) need 570.158.01."""

_VERSION = re.compile(r"^v?(\d+)\.(\d+)(?:\.(\d+))?(?:[-+].*)?$")
CHART_VERSION = re.compile(r"^\d+\.\d+\.\d+$")


@dataclass(frozen=True)
class DraSpec:
    """The DRA driver's settings with every default applied: the only place those defaults are written."""

    enabled: bool = False
    version: str = versions.DRA_DRIVER.version
    compute_domains: bool = False
    claim_namespaces: tuple[str, ...] = DEFAULT_CLAIM_NAMESPACES
    values: Mapping[str, Any] = field(default_factory=dict)
    """The user's escape-hatch chart values."""

    @classmethod
    def from_settings(cls, settings: Mapping[str, Any]) -> DraSpec:
        """From the stack file's ``dra`` section or the component's checked arguments."""
        return cls(
            enabled=settings.get("enabled", cls.enabled),
            version=settings.get("version", cls.version),
            compute_domains=settings.get("compute_domains", cls.compute_domains),
            claim_namespaces=tuple(settings.get("claim_namespaces", cls.claim_namespaces)),
            values=dict(settings.get("values", {})),
        )


@dataclass(frozen=True)
class ResolvedDra:
    """What the DRA plan is made from: checked settings, resolved pools, the driver plan and the cluster version."""

    cloud: str
    pools: tuple[GpuPool, ...]
    driver: DriverPlan
    kubernetes_version: str
    settings: DraSpec
    namespace: str
    mirror: Mirror | None = None
    """Where the chart and its image come from instead of upstream."""


def check_dra_settings(settings: DraSpec, p: Problems) -> None:
    """The driver's own settings (shared by the stack file's ``dra`` and ``DraDriverArgs``)."""
    version = settings.version
    if not CHART_VERSION.match(version):
        p.add(("version",), f"{version!r} is not a chart version like {versions.DRA_DRIVER.version} (no 'v')")
    namespaces = list(settings.claim_namespaces)
    for i, ns in enumerate(namespaces):
        if reason := namespace_problem(ns):
            p.add(("claim_namespaces", i), reason)
        elif ns in namespaces[:i]:
            p.add(("claim_namespaces", i), f"'{ns}' is listed twice")
    if "namespace" in settings.values:
        p.add(
            ("values", "namespace"),
            "the chart refuses a 'namespace' value (templates/validation.yaml); the release namespace is set by "
            "the library",
        )
    if settings.values.get("resources", {}).get("gpus", {}).get("enabled") is False:
        p.add(
            ("values", "resources"), "the GPU kubelet plugin is what serves the DRA pools; it stays enabled"
        )


@dataclass(frozen=True)
class KubernetesVersion:
    major: int
    minor: int
    patch: int | None
    text: str

    @property
    def release(self) -> tuple[int, int, int]:
        return (self.major, self.minor, self.patch or 0)

    def __str__(self) -> str:
        return self.text


def parse_kubernetes_version(text: str) -> KubernetesVersion | None:
    """``1.34``, ``1.34.2``, ``v1.35.1``, ``1.34.2-gke.1000000``, ``1.34.2-eks-...`` -> the release."""
    m = _VERSION.match(text.strip())
    if m is None:
        return None
    patch = int(m.group(3)) if m.group(3) is not None else None
    return KubernetesVersion(int(m.group(1)), int(m.group(2)), patch, text.strip())


def kubernetes_version_problem(text: str | None, what: str = "DRA") -> str | None:
    """Why the cluster version cannot run DRA (``None`` when it can). ``1.34`` without a patch is accepted:
    the managed clouds roll control-plane patches, and the minimum patch is named in the reason otherwise."""
    floor = ".".join(map(str, MIN_KUBERNETES))
    if text is None:
        return (
            f"{what} needs Kubernetes >= {floor} (resource.k8s.io/v1); declare the cluster's version here so "
            "the plan can check it"
        )
    version = parse_kubernetes_version(text)
    if version is None:
        return f"{text!r} is not a Kubernetes version like '1.34' or '1.34.2'"
    if (version.major, version.minor) < MIN_KUBERNETES[:2] or (
        (version.major, version.minor) == MIN_KUBERNETES[:2]
        and version.patch is not None
        and version.patch < MIN_KUBERNETES[2]
    ):
        return (
            f"Kubernetes {text} is too old for {what}: resource.k8s.io/v1 is GA from 1.34 and the NVIDIA DRA "
            f"driver needs v{floor} or later"
        )
    return None


# --- per pool ---------------------------------------------------------------------------------------


# --- per cluster --------------------------------------------------------------------------------------


def dra_driver_problems(
    pools: Sequence[GpuPool], driver: DriverPlan, compute_domains: bool, at: PoolProblems, driver_p: Problems
) -> None:
    """The node driver must be new enough for the DRA driver (filed at ``driver`` once)."""
    if not dra_pools(pools):
        return
    need = MIN_DRIVER_COMPUTE_DOMAINS if compute_domains else MIN_DRIVER
    if driver.driver_version >= need:
        return
    source = "GPU Operator" if driver.driver == "operator" else "cloud image (catalog floor)"
    fix = "{{driver.version}}" if driver.driver == "operator" else "{{driver.host_version}}"
    what = "ComputeDomains need" if compute_domains else "the NVIDIA DRA driver needs"
    driver_p.add(
        ("version" if driver.driver == "operator" else "host_version",),
        f"{what} NVIDIA driver >= {need}, but the DRA pools run {driver.driver_version} ({source} driver); "
        f"set {fix} to the driver the nodes really run",
    )


def declares_dra(raw_pools: Sequence[object]) -> bool:
    """Some pool asks for DRA, resolved or not (a broken DRA pool is not also "no DRA pool")."""
    return any(isinstance(p, Mapping) and p.get("allocation") == "dra" for p in raw_pools)


def cluster_dra_problems(
    pools: Sequence[GpuPool], raw_pools: Sequence[object], enabled: bool, at: PoolProblems, section: Problems
) -> None:
    """Stack file: DRA pools need the ``dra`` section enabled, and an enabled driver needs DRA pools."""
    dra = dra_pools(pools)
    if not enabled:
        for pool in dra:
            at(pool.index).add(("allocation",), "'dra' needs the NVIDIA DRA driver: set {{dra.enabled}} true")
    elif not declares_dra(raw_pools):
        section.add(
            ("enabled",),
            "no GPU pool has {{allocation}} 'dra': the DRA driver would own no GPUs; set allocation: dra on the "
            "pools whose GPUs pods should claim",
        )
