"""Settings shared by several components and the stack file: the cloud and the driver.

No ``from __future__ import annotations``: Pulumi's component analyzer needs real annotations.
"""

import enum
from typing import TYPE_CHECKING, Literal, NotRequired, TypeAlias

from pydantic import with_config
from typing_extensions import TypedDict

from gpu_platform.args.validate import ARGS_CONFIG


class Cloud(enum.StrEnum):
    """Where the cluster runs."""

    GKE = "gke"
    """Google Kubernetes Engine (``pip install 'gpu-platform[gke]'``)."""
    EKS = "eks"
    """Amazon Elastic Kubernetes Service (``pip install 'gpu-platform[eks]'``)."""
    AKS = "aks"
    """Azure Kubernetes Service (``pip install 'gpu-platform[aks]'``)."""
    EXISTING = "existing"
    """A cluster made elsewhere: only the add-ons are installed; the pools' facts are declared."""
    OPENSHIFT = "openshift"
    """OpenShift (self-managed, ROSA, ARO): an existing cluster; the GPU Operator comes from OLM."""
    YANDEX = "yandex"
    """Yandex Managed Service for Kubernetes: its node groups are declared pools (no Yandex SDK)."""


CloudName = Literal["gke", "eks", "aks", "existing", "openshift", "yandex"]
"""``Cloud``'s values as the strings stack files and the other languages use."""
if TYPE_CHECKING:
    CloudValue: TypeAlias = Cloud | CloudName
else:  # Pulumi's analyzer and pydantic read the enum: a schema enum type, values checked
    CloudValue = Cloud


class DriverOwner(enum.StrEnum):
    """Who installs the NVIDIA driver on the GPU nodes (see docs/pitfalls.md, "drivers twice")."""

    AUTO = "auto"
    """Each cloud's documented path: GKE COS: Google's installer; GKE Ubuntu: the operator; EKS: the
    NVIDIA AMI; AKS: the operator with AKS's own install skipped."""
    OPERATOR = "operator"
    """The GPU Operator's driver containers."""
    CLOUD = "cloud"
    """The node image or the cloud's installer."""


DriverOwnerName = Literal["auto", "operator", "cloud"]
"""``DriverOwner``'s values as the strings stack files and the other languages use."""
if TYPE_CHECKING:
    DriverOwnerValue: TypeAlias = DriverOwner | DriverOwnerName
else:  # Pulumi's analyzer and pydantic read the enum: a schema enum type, values checked
    DriverOwnerValue = DriverOwner


DEFAULT_DRIVER_OWNER = DriverOwner.AUTO.value


@with_config(ARGS_CONFIG)
class DriverArgs(TypedDict):
    """The NVIDIA driver: who installs it and which version runs, decided once for pools and operator."""

    owner: NotRequired[DriverOwnerValue]
    """``auto`` (default), ``operator`` or ``cloud``. Existing clusters must say ``operator`` or ``cloud``."""
    version: NotRequired[str]
    """Operator-installed driver version (``"580.105.08"``); default: the operator chart's default driver."""
    host_version: NotRequired[str]
    """Cloud-installed driver version on the nodes, used only by the CUDA check; default: the catalog's
    conservative floor for the cloud image. It installs nothing."""
    installer_version: NotRequired[str]
    """GKE with Google's COS installer only: the driver version ``cos-gpu-installer`` installs (it must be
    one the node's COS release supports, for every pool's GPU: A4X's installer takes it too); default: the COS
    release's default driver (A4X: the latest). Set ``host_version`` to the same value for the CUDA check.
    Refused below a pool GPU's documented minimum driver."""
