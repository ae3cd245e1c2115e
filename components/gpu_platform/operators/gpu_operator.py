"""The NVIDIA GPU Operator, configured from the GPU pools: driver ownership, sharing, MIG, DCGM.

One ``helm.v3.Release`` of ``gpu-operator`` (chart and version from ``versions.GPU_OPERATOR``) in a
PodSecurity-privileged namespace, plus what the chart needs around it: the device-plugin ConfigMap
(time-slicing/MPS per pool), the mig-parted ConfigMap (MIG layouts), and on GKE the quota for
critical-priority pods and Google's COS driver installer. Values are built by
``gpu_operator_values`` from the same ``DriverPlan`` and pool labels the node pools use.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, NotRequired, TypedDict

import pulumi
import pulumi_kubernetes as k8s

from gpu_platform.args import GpuPoolArgs, pool_args_to_config, pool_config_to_args
from gpu_platform.catalog.drivers import CUDA_MIN_DRIVER, DriverVersion, min_driver_for_cuda
from gpu_platform.config.errors import ConfigError
from gpu_platform.config.stack import resolve_pools
from gpu_platform.driver import DriverPlan, DriverPlanError, plan_driver
from gpu_platform.operators.gpu_operator_values import (
    DEVICE_PLUGIN_CONFIG_MAP,
    GKE_INSTALLER_NAME,
    GKE_QUOTA_NAME,
    MIG_PARTED_CONFIG_MAP,
    PSA_PRIVILEGED_LABELS,
    OperatorPlan,
    device_plugin_config_data,
    device_plugin_pools,
    gke_driver_installer_spec,
    gke_resource_quota_spec,
    helm_values,
    mig_parted_config_data,
    operator_mig_strategy,
)
from gpu_platform.versions import GPU_OPERATOR

if TYPE_CHECKING:
    from gpu_platform.config import PlatformSpec

TYPE_TOKEN = "gpu-platform:index:GpuOperator"
RELEASE_NAME = "gpu-operator"
CLOUDS = ("gke", "eks", "aks", "existing")
DRIVER_OWNERS = ("auto", "operator", "cloud")
CHART_VERSION = re.compile(r"^v\d+\.\d+\.\d+$")


class GpuOperatorArgs(TypedDict):
    """Arguments of ``GpuOperator``. Everything here decides which objects exist and what the chart
    values are, so it must be known at plan time (plain values, not Outputs)."""

    cloud: str
    """``gke``, ``eks``, ``aks`` or ``existing``."""
    pools: Sequence[GpuPoolArgs]
    """The cluster's GPU pools, exactly as given to the node pools (same resolution, same labels)."""
    version: NotRequired[str]
    """Chart version; default ``versions.GPU_OPERATOR.version`` (v26.7.0)."""
    driver_owner: NotRequired[str]
    """``auto`` (default: GKE COS Google's installer, GKE Ubuntu the operator, EKS the NVIDIA AMI,
    AKS the operator with the AKS driver skipped), ``operator`` or ``cloud``. Existing clusters must
    say ``operator`` or ``cloud``."""
    driver_version: NotRequired[str]
    """Operator-managed driver version (default: the chart's default driver for ``version``)."""
    host_driver_version: NotRequired[str]
    """Cloud-managed driver on the nodes, for the CUDA check; on GKE, the version Google's COS
    installer installs (must be COS-qualified). Default: the catalog's floor for the cloud image."""
    cuda_version: NotRequired[str]
    """CUDA ``major.minor`` of the images, for pools that do not declare ``cuda_version``."""
    dcgm_exporter: NotRequired[bool]
    """DCGM exporter on every GPU node (default true)."""
    dcgm_service_monitor: NotRequired[bool]
    """Let the operator create a ServiceMonitor for the DCGM exporter (default false). Needs the
    Prometheus Operator CRDs (``monitoring.coreos.com``) in the cluster, or the operator reports the
    DCGM exporter state not ready."""
    values: NotRequired[Mapping[str, Any]]
    """Escape hatch: chart values merged under the library's; the library's typed values win."""
    namespace: NotRequired[str]
    """Namespace created for the operator (default ``gpu-operator``)."""


def _driver_version_problem(text: str | None) -> str | None:
    if text is None:
        return None
    try:
        DriverVersion.parse(text)
    except ValueError as exc:
        return str(exc)
    return None


def _check_scalars(args: Mapping[str, Any]) -> list[tuple[str, str]]:
    problems: list[tuple[str, str]] = []
    cloud = args.get("cloud")
    if cloud not in CLOUDS:
        problems.append(("cloud", f"{cloud!r} is not valid; valid: {', '.join(CLOUDS)}"))
    version = args.get("version", GPU_OPERATOR.version)
    if not isinstance(version, str) or not CHART_VERSION.match(version):
        problems.append(("version", f"{version!r} is not a chart version like {GPU_OPERATOR.version}"))
    owner = args.get("driver_owner", "auto")
    if owner not in DRIVER_OWNERS:
        problems.append(("driver_owner", f"{owner!r} is not valid; valid: {', '.join(DRIVER_OWNERS)}"))
    for key in ("driver_version", "host_driver_version"):
        reason = _driver_version_problem(args.get(key))
        if reason:
            problems.append((key, reason))
    cuda = args.get("cuda_version")
    if cuda is not None and cuda not in CUDA_MIN_DRIVER:
        valid = ", ".join(CUDA_MIN_DRIVER)
        reason = f"'{cuda}' is not a CUDA release in the driver table; valid: {valid}"
        problems.append(("cuda_version", reason))
    if not args.get("pools"):
        problems.append(("pools", "at least one GPU pool is required"))
    if args.get("dcgm_service_monitor") and args.get("dcgm_exporter") is False:
        problems.append(("dcgm_service_monitor", "needs dcgm_exporter (the ServiceMonitor scrapes it)"))
    return problems


def _plan_driver(
    args: Mapping[str, Any], pools: Sequence[Any]
) -> tuple[DriverPlan | None, list[tuple[str, str]]]:
    """The same per-pool decision as the stack config, and the same refusal of mixed ownership."""
    problems: list[tuple[str, str]] = []
    plans: dict[int, DriverPlan] = {}
    for pool in pools:
        try:
            plans[pool.index] = plan_driver(
                args["cloud"],
                pool.image,
                args.get("driver_owner", "auto"),
                args.get("version", GPU_OPERATOR.version),
                args.get("driver_version"),
                args.get("host_driver_version"),
            )
        except DriverPlanError as exc:
            problems.append(("driver_owner", f"{exc} (pools[{pool.index}])"))
    if len({(p.driver, p.toolkit, p.device_plugin) for p in plans.values()}) > 1:
        problems.append(
            (
                "pools",
                "pools disagree on who owns the driver/toolkit/device plugin (e.g. Bottlerocket "
                "next to AL2023); keep one node image per cluster so nothing is installed twice",
            )
        )
    return (next(iter(plans.values())) if plans else None), problems


def _check_cuda(args: Mapping[str, Any], pools: Sequence[Any], driver: DriverPlan) -> list[tuple[str, str]]:
    """Refuse a pool whose images need a newer driver than the one that will run there."""
    problems: list[tuple[str, str]] = []
    for pool in pools:
        if pool.cuda_version is None:
            continue
        need = min_driver_for_cuda(pool.cuda_version)
        if driver.driver_version >= need:
            continue
        raw = args["pools"][pool.index]
        own = raw.get("cuda_version", raw.get("cudaVersion")) is not None  # type: ignore[call-overload]
        where = f"pools[{pool.index}].cuda_version" if own else "cuda_version"
        if driver.driver == "operator":
            source, fix = "GPU Operator", "raise driver_version"
        else:
            source, fix = "cloud image", "raise host_driver_version (a newer node image)"
        problems.append(
            (
                where,
                f"CUDA {pool.cuda_version} needs driver >= {need}, but pool '{pool.name}' runs "
                f"{driver.driver_version} ({source} driver); {fix}, or build the images for an "
                "older CUDA",
            )
        )
    return problems


def _check_sharing(plan: OperatorPlan) -> list[tuple[str, str]]:
    """Sharing the operator cannot deliver: a cloud device plugin, or two MIG strategies on its plugin."""
    problems: list[tuple[str, str]] = []
    served = {p.name for p in device_plugin_pools(plan)}
    for pool in plan.pools:
        s = pool.sharing
        if s.mode != "none" and s.managed_by == "operator" and pool.name not in served:
            problems.append(
                (
                    f"pools[{pool.index}].sharing.mode",
                    f"'{s.mode}' is configured through the GPU Operator's device plugin, but "
                    f"{pool.image or 'the node image'} ships its own device plugin; use AL2023_x86_64_NVIDIA "
                    "nodes or mode 'none'",
                )
            )
    strategy = operator_mig_strategy(plan)
    for pool in plan.pools:
        if pool.name in served and pool.sharing.mode == "mig" and pool.sharing.mig_strategy != strategy:
            problems.append(
                (
                    f"pools[{pool.index}].sharing.mig.strategy",
                    f"'{pool.sharing.mig_strategy}' conflicts with '{strategy}' needed by other pools; "
                    "the GPU Operator's device plugin has one MIG strategy per cluster",
                )
            )
    return problems


def plan_gpu_operator(args: GpuOperatorArgs) -> OperatorPlan:
    """Validate the args like the stack config does and resolve them; raise ``ConfigError`` naming
    each argument path before anything is registered."""
    problems = _check_scalars(args)
    if problems:
        raise ConfigError(problems)
    cloud = args["cloud"]
    pools = resolve_pools(
        cloud,
        [pool_args_to_config(p) for p in args["pools"]],
        path="pools",
        cuda_version=args.get("cuda_version"),
    )
    driver, problems = _plan_driver(args, pools)
    if driver is None or problems:
        raise ConfigError(problems)
    plan = OperatorPlan(
        cloud=cloud,
        pools=tuple(pools),
        driver=driver,
        version=args.get("version", GPU_OPERATOR.version),
        namespace=args.get("namespace", GPU_OPERATOR.namespace),
        dcgm_exporter=args.get("dcgm_exporter", True),
        service_monitor=args.get("dcgm_service_monitor", False),
        host_driver_version=args.get("host_driver_version"),
        user_values=dict(args.get("values") or {}),
    )
    problems = _check_cuda(args, pools, driver) + _check_sharing(plan)
    if problems:
        raise ConfigError(problems)
    return plan


class GpuOperator(pulumi.ComponentResource):
    """NVIDIA GPU Operator for the given pools, with driver ownership matching the node pools."""

    status: pulumi.Output[Any]
    """The Helm release status."""
    namespace: pulumi.Output[str]
    """Namespace the operator and its operands run in."""

    def __init__(self, name: str, args: GpuOperatorArgs, opts: pulumi.ResourceOptions | None = None):
        plan = plan_gpu_operator(args)
        super().__init__(TYPE_TOKEN, name, None, opts)
        child = pulumi.ResourceOptions(parent=self)

        ns = k8s.core.v1.Namespace(
            f"{name}-ns",
            metadata={"name": plan.namespace, "labels": PSA_PRIVILEGED_LABELS},
            opts=child,
        )
        ns_name: pulumi.Output[str] = ns.metadata.name
        prerequisites: list[pulumi.Resource] = [ns]

        if plan.cloud == "gke":
            prerequisites.append(
                k8s.core.v1.ResourceQuota(
                    f"{name}-gke-critical-pods",
                    metadata={"name": GKE_QUOTA_NAME, "namespace": ns_name},
                    spec=gke_resource_quota_spec(plan.pools),
                    opts=child,
                )
            )
        if plan.driver.gke_google_installer:
            prerequisites.append(
                k8s.apps.v1.DaemonSet(
                    f"{name}-gke-driver-installer",
                    metadata={
                        "name": GKE_INSTALLER_NAME,
                        "namespace": "kube-system",
                        "labels": {"k8s-app": GKE_INSTALLER_NAME},
                    },
                    spec=gke_driver_installer_spec(plan.pools, plan.host_driver_version),
                    opts=child,
                )
            )
        dp_data = device_plugin_config_data(plan)
        if dp_data:
            prerequisites.append(
                k8s.core.v1.ConfigMap(
                    f"{name}-device-plugin-config",
                    metadata={"name": DEVICE_PLUGIN_CONFIG_MAP, "namespace": ns_name},
                    data=dp_data,
                    opts=child,
                )
            )
        mig_data = mig_parted_config_data(plan)
        if mig_data:
            prerequisites.append(
                k8s.core.v1.ConfigMap(
                    f"{name}-mig-parted-config",
                    metadata={"name": MIG_PARTED_CONFIG_MAP, "namespace": ns_name},
                    data=mig_data,
                    opts=child,
                )
            )

        release = k8s.helm.v3.Release(
            f"{name}-helm",
            k8s.helm.v3.ReleaseArgs(
                name=RELEASE_NAME,
                chart=GPU_OPERATOR.chart,
                version=plan.version,
                repository_opts=k8s.helm.v3.RepositoryOptsArgs(repo=GPU_OPERATOR.repo),
                namespace=ns_name,
                create_namespace=False,
                values=helm_values(plan),
            ),
            opts=pulumi.ResourceOptions(parent=self, depends_on=prerequisites),
        )
        self.status = release.status
        self.namespace = ns_name
        self.register_outputs({"status": self.status, "namespace": self.namespace})


def gpu_operator_args_from_spec(spec: PlatformSpec) -> GpuOperatorArgs:
    """The stack config's ``gpuOperator`` and ``gpuPools`` as component args."""
    cfg = spec.config.gpu_operator
    args: GpuOperatorArgs = {
        "cloud": spec.cloud,
        "pools": [pool_config_to_args(p) for p in spec.config.gpu_pools],
        "version": cfg.version,
        "driver_owner": cfg.driver.owner,
        "dcgm_exporter": cfg.dcgm_exporter.enabled,
        "dcgm_service_monitor": cfg.dcgm_exporter.service_monitor,
        "values": dict(cfg.values),
        "namespace": GPU_OPERATOR.namespace,
    }
    if cfg.driver.version:
        args["driver_version"] = cfg.driver.version
    if cfg.driver.host_version:
        args["host_driver_version"] = cfg.driver.host_version
    if spec.config.cuda_version:
        args["cuda_version"] = spec.config.cuda_version
    return args
