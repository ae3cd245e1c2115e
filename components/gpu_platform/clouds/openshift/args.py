"""OpenShift's component arguments: GPU MachineSets.

No ``from __future__ import annotations``: Pulumi's component analyzer needs real annotations.
"""

from collections.abc import Mapping, Sequence
from typing import Any, NotRequired

from typing_extensions import TypedDict

from gpu_platform.args.common import DriverArgs
from gpu_platform.args.pool import GpuPoolArgs


class OpenShiftGpuMachineSetArgs(TypedDict):
    """GPU MachineSets of an OpenShift cluster (``OpenShiftGpuMachineSet``), one per zone, with the library's
    taint, labels and sharing config, and a MachineAutoscaler each when the pool autoscales."""

    pool: GpuPoolArgs
    """The pool, exactly as a ``gpuPools`` entry of an ``openshift`` stack file (its keys snake_case in Python)."""
    infrastructure_id: str
    """The cluster's infrastructure name: ``oc get infrastructure cluster -o jsonpath='{.status.infrastructureName}'``."""
    platform: str
    """The cluster's infrastructure platform: ``aws``, ``azure`` or ``gcp`` (ROSA is ``aws``, ARO ``azure``)."""
    instance_type: str
    """The GPU machine type on that platform (``p4de.24xlarge``, ``Standard_ND96amsr_A100_v4``,
    ``a2-ultragpu-8g``); its GPU model and count must be the pool's."""
    provider_spec: Mapping[str, Any]
    """``spec.template.spec.providerSpec.value`` of one of the cluster's worker MachineSets (image, subnet,
    security groups, credentials). The library sets the machine type, the zone and spot on a copy."""
    zones: Sequence[str]
    """One MachineSet per zone (``us-east-1a``; Azure ``1``; ``us-central1-a``); ``min_nodes``/``max_nodes``
    of the pool are totals over them."""
    zone_provider_specs: NotRequired[Mapping[str, Mapping[str, Any]]]
    """Per zone, what differs from ``provider_spec`` there (AWS: the zone's ``subnet``), merged over it."""
    driver: NotRequired[DriverArgs]
    """Must leave the driver to the GPU Operator: RHCOS builds it with the Driver Toolkit."""
    operator_version: NotRequired[str]
    """GPU Operator version (default ``versions.GPU_OPERATOR``), for the driver it installs."""
    cuda_version: NotRequired[str]
    """CUDA ``major.minor`` of the images, for a pool without its own ``cuda_version``."""
