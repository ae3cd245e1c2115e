"""Slurm on Kubernetes (SchedMD Slinky): the values of the three pinned charts, decided once from a ``SlurmSpec``.

Model (SlinkyProject/slurm-operator@v1.2.1 ``docs/installation.md`` "With GPUs", ``docs/usage/pyxis.md``):

- ``slurm-operator-crds``: the CRDs (group ``slinky.slurm.net``) as their own release, kept when removed, so
  taking the operator away never deletes a Controller, NodeSet or LoginSet (nor the jobs' state).
- ``slurm-operator``: the operator and its webhook (``crds.enabled=false``: the CRDs are the release above),
  with webhook certificates from cert-manager.
- ``slurm``: one Slurm cluster. One NodeSet per Slurm pool, keyed by the pool's name, so the Slurm nodes are
  ``<pool>-<n>`` and the NodeSet's partition is ``<pool>`` (the operator names both after the NodeSet's
  hostname prefix). ``scalingMode: DaemonSet`` puts one slurmd on every node of the pool; each slurmd asks
  for all of its node's GPUs (``nvidia.com/gpu`` = the pool's GPUs per node) and declares the same count as
  GRES (``Gres=gpu:<type>:<count>``), which ``gres.conf`` ``AutoDetect=nvidia`` finds on the node. The
  slurmd and login images are the pyxis ones, and ``plugstack.conf`` includes pyxis, so
  ``srun --container-image=...`` runs the step in an enroot container.
- GRES type: the catalog GPU's family (``h100`` for ``h100-80gb``). With AutoDetect, Slurm matches a
  configured type that is a substring of the detected device name (``nvidia_h100_80gb_hbm3``), so jobs ask
  ``--gres=gpu:h100:8``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from gpu_platform import versions
from gpu_platform.addons.cert_manager.plan import CertManagerPlan, cert_manager_plan
from gpu_platform.addons.slurm.checks import SlurmSpec, resolve_slurm_args
from gpu_platform.addons.slurm.settings import SlurmClusterArgs
from gpu_platform.addons.workloads.plan import Placement, controller_placement, pool_placement
from gpu_platform.catalog.gpus import GpuModel
from gpu_platform.mirror import Mirror
from gpu_platform.plans.helm import deep_merge
from gpu_platform.pools import GpuPool
from gpu_platform.releases import SLURM, SLURM_OPERATOR
from gpu_platform.sharing import GPU_RESOURCE, HUGEPAGES_2MI_RESOURCE, node_resources, resource_quantity

GRES_CONF = "AutoDetect=nvidia\n"
"""Slurm finds each node's GPUs itself, from the driver's device files (Slinky's "With GPUs" guide)."""
PLUGSTACK_CONF = "include /usr/share/pyxis/*\n"
"""A glob, as Slinky's pyxis guide requires: slurmctld has no pyxis and must not fail on the include."""
LOGIN_SET = "login"
"""The LoginSet's key: its CR is ``<release>-login-login`` and its SSH service the same name."""
ALL_PARTITION = "all"
"""The default partition over every NodeSet; each pool also has a partition of its own name."""


def gres_type(gpu: GpuModel) -> str:
    """The GRES type jobs ask for: the GPU family from the catalog key (``h100-80gb`` -> ``h100``), lower case,
    a substring of the name AutoDetect reads (``NVIDIA H100 80GB HBM3``)."""
    return gpu.key.split("-", 1)[0]


def gres(pool: GpuPool) -> str:
    """``gpu:<type>:<count>``: every GPU of a node of the pool, as the device plugin advertises them."""
    return f"gpu:{gres_type(pool.gpu)}:{pool.gpus_per_node}"


def image(repository: str) -> dict[str, Any]:
    return {"repository": repository, "tag": versions.SLURM_IMAGE_TAG}


def slurmd_resources(pool: GpuPool) -> dict[str, dict[str, int | str]]:
    """What one slurmd holds for its steps: every device a node of the pool advertises (its GPUs, and on EFA or
    InfiniBand pools the fabric and EFA's huge pages, so srun steps run NCCL over it), limits equal to requests.
    Huge pages need a cpu or memory request beside them (Kubernetes core validation), so such a slurmd also
    requests the memory the huge pages take, with no memory limit: its job steps run in its cgroup."""
    devices: dict[str, int | str] = {
        name: resource_quantity(name, units) for name, units in node_resources(pool).items()
    }
    requests = dict(devices)
    if HUGEPAGES_2MI_RESOURCE in devices:
        requests["memory"] = devices[HUGEPAGES_2MI_RESOURCE]
    return {"requests": requests, "limits": devices}


def nodeset_values(pool: GpuPool) -> dict[str, Any]:
    """One pool's NodeSet: pyxis slurmd on every node of the pool, holding all of the node's GPUs."""
    placement = pool_placement(pool)
    return {
        "enabled": True,
        # One slurmd per node of the pool, however many nodes the pool has now.
        "scalingMode": "DaemonSet",
        "slurmd": {
            "image": image(versions.SLURMD_PYXIS_IMAGE_REPOSITORY),
            "resources": slurmd_resources(pool),
        },
        "extraConfMap": {"Gres": [gres(pool)], "Features": [pool.gpu.key]},
        "partition": {"enabled": True, "configMap": {"State": "UP", "MaxTime": "UNLIMITED"}},
        "podSpec": {
            "nodeSelector": dict(placement["nodeSelector"]),
            "tolerations": list(placement["tolerations"]),
        },
    }


def _system(placement: Placement) -> dict[str, Any]:
    return {"podSpec": placement.pod_values()}


def slurm_values(spec: SlurmSpec, placement: Placement) -> dict[str, Any]:
    """The ``slurm`` chart's values; every key exists in its values.yaml at 1.2.1."""
    persistence: dict[str, Any] = {
        "enabled": True,
        "resources": {"requests": {"storage": f"{spec.storage_gib}Gi"}},
    }
    if spec.storage_class is not None:
        persistence["storageClassName"] = spec.storage_class
    controller: dict[str, Any] = {
        **_system(placement),
        "persistence": persistence,
        "extraConfMap": {"GresTypes": ["gpu"]},
    }
    values: dict[str, Any] = {
        "configFiles": {"gres.conf": GRES_CONF, "plugstack.conf": PLUGSTACK_CONF},
        "controller": controller,
        "restapi": _system(placement),
        "nodesets": {pool.name: nodeset_values(pool) for pool in spec.pools},
        "partitions": {
            ALL_PARTITION: {
                "enabled": True,
                "nodesets": ["ALL"],
                "configMap": {"Default": "YES", "MaxTime": "UNLIMITED"},
            }
        },
        "loginsets": {},
    }
    login = spec.login
    if login.enabled:
        values["loginsets"][LOGIN_SET] = {
            "enabled": True,
            "replicas": login.replicas,
            "login": {
                "image": image(versions.LOGIN_PYXIS_IMAGE_REPOSITORY),
                "securityContext": {"privileged": login.privileged},
            },
            "rootSshAuthorizedKeys": login.root_ssh_authorized_keys,
            "service": {"spec": {"type": login.service_type}},
            **_system(placement),
        }
    db = spec.database
    if db is not None:
        controller["extraConfMap"]["AccountingStorageTRES"] = ["gres/gpu"]
        values["accounting"] = {
            "enabled": True,
            "external": False,
            "storageConfig": {
                "host": db.host,
                "port": db.port,
                "database": db.database,
                "username": db.username,
                "passwordKeyRef": {"name": db.password_secret, "key": db.password_key},
            },
            **_system(placement),
        }
    # The user's values first: the library's NodeSets, GRES, images and placement win.
    return deep_merge(spec.values, values)


def operator_values(placement: Placement) -> dict[str, Any]:
    """The ``slurm-operator`` chart's values: the CRDs are their own release; both pods off the GPU nodes."""
    pods = placement.pod_values()
    return {
        "crds": {"enabled": False},
        "certManager": {"enabled": True},
        "operator": dict(pods),
        "webhook": dict(pods),
    }


@dataclass(frozen=True)
class SlurmPlan:
    """Everything ``SlurmCluster`` creates, decided at plan time."""

    spec: SlurmSpec
    namespace: str
    """The Slurm cluster's namespace."""
    operator_namespace: str
    operator_values: dict[str, Any]
    slurm_values: dict[str, Any]
    cert_manager: CertManagerPlan | None
    """cert-manager, when the component installs it."""
    nodesets: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    """Pool -> its NodeSet, partition, GRES and the GPUs its slurmd asks for (component output)."""
    secret_values: bool = False
    """The user's values hold a secret: the values inputs are stored encrypted."""
    mirror: Mirror | None = None
    """Where the charts and their images come from instead of upstream."""


def slurm_plan(
    spec: SlurmSpec,
    placement: Placement,
    cert_manager: bool | None = None,
    secret: bool = False,
    mirror: Mirror | None = None,
) -> SlurmPlan:
    """The plan from a resolved spec; ``cert_manager`` overrides ``spec.install_cert_manager`` (the stack
    installs cert-manager once for Slurm and KServe); ``mirror`` (the stack's) overrides ``spec.mirror``."""
    install = spec.install_cert_manager if cert_manager is None else cert_manager
    mirror = mirror if mirror is not None else spec.mirror
    nodesets = {
        pool.name: {
            "nodeSet": f"{SLURM.release_name}-worker-{pool.name}",
            "partition": pool.name,
            "gres": gres(pool),
            "gpus": {GPU_RESOURCE: pool.gpus_per_node},
        }
        for pool in spec.pools
    }
    return SlurmPlan(
        spec=spec,
        namespace=spec.namespace,
        operator_namespace=SLURM_OPERATOR.namespace,
        operator_values=operator_values(placement),
        slurm_values=slurm_values(spec, placement),
        cert_manager=cert_manager_plan(versions.CERT_MANAGER.namespace, mirror=mirror) if install else None,
        nodesets=nodesets,
        secret_values=secret,
        mirror=mirror,
    )


def slurm_cluster_plan(args: SlurmClusterArgs) -> SlurmPlan:
    """``SlurmCluster``'s plan from its arguments (every check first)."""
    spec = resolve_slurm_args(args)
    return slurm_plan(spec, controller_placement(args["cloud"], spec.node_selector))
