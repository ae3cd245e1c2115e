"""Arguments of Slurm on Kubernetes (SchedMD Slinky): the stack file's ``slurm`` section and ``SlurmClusterArgs``.

No ``from __future__ import annotations``: Pulumi's component analyzer needs real annotations.
"""

import enum
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal, NotRequired, TypeAlias

from pydantic import with_config
from typing_extensions import TypedDict

from gpu_platform.args.common import Cloud
from gpu_platform.args.mirror import MirrorArgs
from gpu_platform.args.pool import GpuPoolArgs
from gpu_platform.args.validate import ARGS_CONFIG

DEFAULT_SLURM_NAMESPACE = "slurm"
"""Where the Slurm cluster runs (Slinky's installation guide uses ``slurm``)."""
DEFAULT_LOGIN_REPLICAS = 1
DEFAULT_CONTROLLER_STORAGE_GIB = 4
"""The slurm chart's default size of slurmctld's state-save volume."""
DEFAULT_DATABASE_PORT = 3306
DEFAULT_DATABASE_NAME = "slurm_acct_db"
DEFAULT_DATABASE_USER = "slurm"


class LoginServiceType(enum.StrEnum):
    """How the login pods' SSH service is reached."""

    CLUSTER_IP = "ClusterIP"
    """Inside the cluster only (``kubectl port-forward``); the library's default."""
    LOAD_BALANCER = "LoadBalancer"
    """A cloud load balancer: SSH reachable from outside (the chart's default)."""


LoginServiceTypeName = Literal["ClusterIP", "LoadBalancer"]
"""``LoginServiceType``'s values as the strings stack files and the other languages use."""
if TYPE_CHECKING:
    LoginServiceTypeValue: TypeAlias = LoginServiceType | LoginServiceTypeName
else:  # Pulumi's analyzer and pydantic read the enum: a schema enum type, values checked
    LoginServiceTypeValue = LoginServiceType


@with_config(ARGS_CONFIG)
class SlurmLoginArgs(TypedDict):
    """The login set: where users run ``srun``/``sbatch`` (sackd, sshd and sssd in one pod)."""

    enabled: NotRequired[bool]
    """Default true."""
    replicas: NotRequired[int]
    """Default 1."""
    service_type: NotRequired[LoginServiceTypeValue]
    """``ClusterIP`` (default) or ``LoadBalancer``; a load balancer puts SSH on the network."""
    root_ssh_authorized_keys: NotRequired[str]
    """Public keys written to root's ``authorized_keys`` (Slinky's way in before sssd is configured)."""
    privileged: NotRequired[bool]
    """Run the login container privileged so enroot works there too (``enroot import`` on the login pod);
    default false: ``srun --container-image`` runs enroot on the slurmd pods, not on the login pod."""


@with_config(ARGS_CONFIG)
class SlurmPasswordSecretArgs(TypedDict):
    """A Secret key in the Slurm namespace holding the database password (never the password itself)."""

    name: str
    """The Secret's name."""
    key: str
    """The key in the Secret whose value is the password."""


@with_config(ARGS_CONFIG)
class SlurmDatabaseArgs(TypedDict):
    """A MySQL/MariaDB database slurmdbd writes to (a managed cloud database or one run elsewhere)."""

    host: str
    """The database's host name or address."""
    port: NotRequired[int]
    """Default 3306."""
    database: NotRequired[str]
    """Default ``slurm_acct_db``."""
    username: NotRequired[str]
    """Default ``slurm``."""
    password_secret: SlurmPasswordSecretArgs
    """The Secret (in the Slurm namespace) with the user's password."""


@with_config(ARGS_CONFIG)
class SlurmAccountingArgs(TypedDict):
    """Slurm accounting (slurmdbd): job and step history for ``sacct``, fair share and QOS limits."""

    enabled: NotRequired[bool]
    """Default false."""
    database: NotRequired[SlurmDatabaseArgs]
    """Required when enabled: the database slurmdbd uses."""


@with_config(ARGS_CONFIG)
class SlurmControllerArgs(TypedDict):
    """slurmctld's state-save volume (jobs and node state survive a controller restart)."""

    storage_class: NotRequired[str]
    """StorageClass of the volume; default the cluster's default class."""
    storage_gib: NotRequired[int]
    """Default 4."""


@with_config(ARGS_CONFIG)
class SlurmSettings(TypedDict):
    """Slurm settings shared by the stack file (``slurm``) and ``SlurmClusterArgs``."""

    pools: NotRequired[Sequence[str]]
    """The GPU pools Slurm owns (at least one): one NodeSet and one partition each; Kueue and Volcano never
    count them."""
    namespace: NotRequired[str]
    """Default ``slurm``."""
    install_cert_manager: NotRequired[bool]
    """Install cert-manager (the operator's webhook certificates need it); default true; false when the
    cluster runs it already."""
    login: NotRequired[SlurmLoginArgs]
    """The login set (on by default)."""
    accounting: NotRequired[SlurmAccountingArgs]
    """slurmdbd with an external database (off by default)."""
    controller: NotRequired[SlurmControllerArgs]
    """slurmctld's state-save volume."""
    values: NotRequired[Mapping[str, Any]]
    """Escape hatch: extra ``slurm`` chart values (the library's NodeSets, GRES and images win)."""


class SlurmClusterArgs(SlurmSettings):
    """A Slurm cluster from the pinned Slinky charts over GPU pools given as the node pools are."""

    cloud: Cloud
    """``gke``, ``eks``, ``aks`` or ``existing``: how ``gpu_pools`` resolve."""
    gpu_pools: Sequence[GpuPoolArgs]
    """Every GPU pool of the cluster, exactly as given to the node pools; ``pools`` names Slurm's."""
    cuda_version: NotRequired[str]
    """CUDA ``major.minor`` of the images, for pools without their own ``cuda_version``."""
    node_selector: NotRequired[Mapping[str, str]]
    """Node labels the operator, slurmctld, slurmrestd and login pods select (the system pool); default
    the cloud's system pool."""
    mirror: NotRequired[MirrorArgs]
    """Pull the charts and every Slurm image (cert-manager's too) from a mirror; default: upstream."""
