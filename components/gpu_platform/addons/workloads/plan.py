"""Plans of the workload controllers (JobSet, LeaderWorkerSet, Kubeflow Trainer, KubeRay) and where pods go.

Each controller is one pinned Helm release (``versions``) whose values set, per chart:

- placement: a required node affinity that keeps the controller off every GPU pool node (``gpu-platform.io/pool``
  DoesNotExist), the system pool's node label where the cloud has one (AKS), no GPU toleration, ever;
- the release image where the chart in its repository carries a development tag (JobSet, LWS;
  NEW_COMPONENTS_NOTES.md section 0 "stamped" table);
- gang scheduling through Volcano when Volcano is the stack's gang scheduler (LWS
  ``gangSchedulingManagement.schedulerProvider``, KubeRay ``batchScheduler.name``, Trainer runtimes'
  ``podGroupPolicy.volcano``);
- Trainer: ``jobset.install=false`` (JobSet is its own release) and no chart-installed runtimes: the library
  creates the ClusterTrainingRuntimes itself from the upstream manifests (the chart applies them with a hook Job
  that runs ``apk add kubectl`` at install time, which needs egress to the Alpine mirrors, and Pulumi would
  neither show nor own them).

Workload pods get the opposite: ``pool_placement`` gives exactly the node labels and tolerations a pool's
nodes need (``scheduling``), the ones Kueue's flavor for the pool injects.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from gpu_platform import versions
from gpu_platform.addons.workloads.checks import (
    BUILTIN_FRAMEWORKS,
    CONTROLLER_FRAMEWORKS,
    ControllerSettings,
    WorkloadsSpec,
    resolve_controller_args,
    resolve_pool_args,
)
from gpu_platform.addons.workloads.settings import (
    DEFAULT_GANG_SCHEDULER,
    DEFAULT_TRAINING_RUNTIMES,
    Controller,
    JobSetArgs,
    KubeflowTrainerArgs,
    KubeRayArgs,
    LeaderWorkerSetArgs,
)
from gpu_platform.cloud_facts import profile_of
from gpu_platform.mirror import Mirror
from gpu_platform.packaged_data import packaged_yaml
from gpu_platform.plans.helm import deep_merge
from gpu_platform.plans.mirror import mirrored_object
from gpu_platform.pools import GpuPool
from gpu_platform.releases import addon
from gpu_platform.scheduling import POOL_LABEL, pool_tolerations, selector_labels
from gpu_platform.versions import ChartPin

OFF_GPU_NODES: dict[str, Any] = {
    "nodeAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": {
            "nodeSelectorTerms": [{"matchExpressions": [{"key": POOL_LABEL, "operator": "DoesNotExist"}]}]
        }
    }
}
"""Controllers never run on a GPU pool's nodes (each carries ``gpu-platform.io/pool``), even if a values
escape hatch or a cluster's own taints would let them."""
VOLCANO_SCHEDULER_NAME = "volcano"
"""The scheduler name of the Volcano chart (``custom.scheduler_name`` unset)."""

TRAINER_RUNTIME_FILES = {
    "torch": versions.TRAINER_TORCH_RUNTIME,
    "deepspeed": versions.TRAINER_DEEPSPEED_RUNTIME,
}
TRAINER_RUNTIME_NAMES = {"torch": "torch-distributed", "deepspeed": "deepspeed-distributed"}
MANAGED_BY_LABEL = {"app.kubernetes.io/managed-by": "gpu-platform"}


# ---------------------------------------------------------------------------------------------
# Where controllers run, where workload pods run
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Placement:
    """Where a controller's pods run."""

    node_selector: Mapping[str, str] = field(default_factory=dict)
    affinity: Mapping[str, Any] = field(default_factory=lambda: copy.deepcopy(OFF_GPU_NODES))

    def pod_values(self) -> dict[str, Any]:
        """``nodeSelector`` and ``affinity`` as most charts spell them."""
        return {"nodeSelector": dict(self.node_selector), "affinity": copy.deepcopy(dict(self.affinity))}


def controller_placement(cloud: str, node_selector: Mapping[str, str] | None = None) -> Placement:
    """The system pool, never a GPU node: ``node_selector``, else the label the cloud puts on system-pool nodes
    (``system_pool_labels``: AKS has one). GKE and EKS have none, and the library names their system pools
    ``system-<digest>`` (replaced create-before-delete), so nothing is pinned there: the library's clusters
    have no other untainted pool, and ``OFF_GPU_NODES`` keeps controllers off every GPU pool.
    ``workloads.nodeSelector`` names the system nodes of any other cluster."""
    selector = profile_of(cloud).system_pool_labels if node_selector is None else node_selector
    return Placement(dict(selector))


def pool_placement(pool: GpuPool) -> dict[str, Any]:
    """What a pod template needs to run on ``pool``: ``{"nodeSelector": ..., "tolerations": ...}``, the pool's
    selector labels and the tolerations of its taints (the same ones its Kueue flavor carries)."""
    return {"nodeSelector": selector_labels(pool), "tolerations": pool_tolerations(pool)}


def pool_placements(
    cloud: str, pools: Sequence[Mapping[str, Any]], cuda_version: str | None = None
) -> dict[str, dict[str, Any]]:
    """Pool name -> ``pool_placement`` for pools given like the node pools' (``GpuPoolArgs``); raises
    ``ArgumentsError`` (``pools[i]...``) when a pool does not resolve."""
    return {pool.name: pool_placement(pool) for pool in resolve_pool_args(cloud, pools, cuda_version)}


def kueue_integrations(controllers: Sequence[str]) -> list[str]:
    """Kueue's ``integrations`` for a cluster running ``controllers`` (``Controller`` values, e.g. ``["jobset",
    "trainer"]``) gang-admitted by Kueue: the plain kinds plus each controller's frameworks."""
    out = list(BUILTIN_FRAMEWORKS)
    for c in controllers:
        out += [fw for fw in CONTROLLER_FRAMEWORKS[Controller(c).value] if fw not in out]
    return out


# ---------------------------------------------------------------------------------------------
# Chart values
# ---------------------------------------------------------------------------------------------


def jobset_values(placement: Placement, extra: Mapping[str, Any] | None = None) -> dict[str, Any]:
    typed = {
        "image": {
            "repository": versions.JOBSET_IMAGE_REPOSITORY,
            "tag": versions.JOBSET_IMAGE_TAG,
            "pullPolicy": "IfNotPresent",
        },
        "controller": placement.pod_values(),
    }
    return deep_merge(dict(extra or {}), typed)


def lws_values(
    placement: Placement, gang_scheduler: str = DEFAULT_GANG_SCHEDULER, extra: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    typed: dict[str, Any] = {
        "image": {
            "manager": {
                "repository": versions.LWS_IMAGE_REPOSITORY,
                "tag": versions.LWS_IMAGE_TAG,
                "pullPolicy": "IfNotPresent",
            }
        },
        **placement.pod_values(),
    }
    if gang_scheduler == VOLCANO_SCHEDULER_NAME:
        typed["gangSchedulingManagement"] = {"schedulerProvider": VOLCANO_SCHEDULER_NAME}
    return deep_merge(dict(extra or {}), typed)


def kuberay_values(
    placement: Placement, gang_scheduler: str = DEFAULT_GANG_SCHEDULER, extra: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    typed: dict[str, Any] = placement.pod_values()
    if gang_scheduler == VOLCANO_SCHEDULER_NAME:
        # ``batchScheduler.enabled`` is the deprecated spelling; setting both is refused by the operator.
        typed["batchScheduler"] = {"name": VOLCANO_SCHEDULER_NAME}
    return deep_merge(dict(extra or {}), typed)


def trainer_values(
    placement: Placement, install_jobset: bool = False, extra: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    typed = {
        "jobset": {"install": install_jobset},
        "crds": {"enabled": True},
        "manager": placement.pod_values(),
        # The library creates the runtimes (``trainer_runtimes``); the chart's installer Job stays off.
        "runtimes": {
            "defaultEnabled": False,
            "torchDistributed": {"enabled": False},
            "deepspeedDistributed": {"enabled": False},
        },
    }
    return deep_merge(dict(extra or {}), typed)


def _with_tag(image: str, tag: str) -> str:
    return image if ":" in image.rsplit("/", 1)[-1] or "@" in image else f"{image}:{tag}"


def trainer_runtime(runtime: str, gang_scheduler: str = DEFAULT_GANG_SCHEDULER) -> dict[str, Any]:
    """A built-in ClusterTrainingRuntime as kubeflow/trainer@v2.3.0 ships it (``manifests/base/runtimes``), with
    the image tags of ``manifests/overlays/runtimes`` and, under Volcano, its gang-scheduling policy."""
    pin = TRAINER_RUNTIME_FILES[runtime]
    obj: dict[str, Any] = packaged_yaml(pin.file)
    obj["metadata"].setdefault("labels", {}).update(MANAGED_BY_LABEL)
    pod_specs = [
        rj["template"]["spec"]["template"]["spec"] for rj in obj["spec"]["template"]["spec"]["replicatedJobs"]
    ]
    for spec in pod_specs:
        for container in spec.get("containers", []):
            if container["image"].startswith("ghcr.io/kubeflow/trainer/"):
                container["image"] = _with_tag(container["image"], versions.TRAINER_IMAGE_TAG)
    if gang_scheduler == VOLCANO_SCHEDULER_NAME:
        # Trainer creates the PodGroup (podGroupPolicy.volcano) but leaves the scheduler to the pod template.
        obj["spec"]["podGroupPolicy"] = {"volcano": {}}
        for spec in pod_specs:
            spec["schedulerName"] = VOLCANO_SCHEDULER_NAME
    return obj


# ---------------------------------------------------------------------------------------------
# Plans
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ControllerPlan:
    """Everything a controller component creates: a namespace, one release and, after it, custom resources."""

    controller: str
    pin: ChartPin
    release_name: str
    values: dict[str, Any]
    objects: tuple[dict[str, Any], ...] = ()
    """Custom resources created after the release (Trainer's ClusterTrainingRuntimes)."""
    gang_scheduler: str = DEFAULT_GANG_SCHEDULER
    secret_values: bool = False
    """The user's values hold a secret (a ``secure:`` stack value): the values input is stored encrypted."""
    mirror: Mirror | None = None
    """Where the chart and its images come from instead of upstream (the runtimes' images are mirrored here)."""

    @property
    def namespace(self) -> str:
        return self.pin.namespace

    @property
    def crds_in_release(self) -> bool:
        """The chart renders its CRDs as templates with no keep policy (Trainer): uninstalling it would delete
        every TrainJob, so the release itself is kept when the component goes (``retain_on_delete``)."""
        return addon(self.controller).release_holds_crds


def controller_plan(
    controller: str,
    placement: Placement,
    values: Mapping[str, Any] | None = None,
    gang_scheduler: str = DEFAULT_GANG_SCHEDULER,
    runtimes: Sequence[str] = DEFAULT_TRAINING_RUNTIMES,
    install_jobset: bool = False,
    mirror: Mirror | None = None,
) -> ControllerPlan:
    """The plan from checked settings (the stack layer's path); ``mirror``: charts and images from it."""
    objects: tuple[dict[str, Any], ...] = ()
    if controller == Controller.JOBSET.value:
        chart_values = jobset_values(placement, values)
    elif controller == Controller.LEADER_WORKER_SET.value:
        chart_values = lws_values(placement, gang_scheduler, values)
    elif controller == Controller.KUBERAY.value:
        chart_values = kuberay_values(placement, gang_scheduler, values)
    elif controller == Controller.TRAINER.value:
        chart_values = trainer_values(placement, install_jobset, values)
        objects = tuple(mirrored_object(trainer_runtime(r, gang_scheduler), mirror) for r in runtimes)
    else:
        raise ValueError(f"the library does not install {controller!r}")
    entry = addon(controller)
    return ControllerPlan(
        controller, entry.pin, entry.release_name, chart_values, objects, gang_scheduler, mirror=mirror
    )


def workload_plans(
    cloud: str, workloads: WorkloadsSpec, secret: bool = False, mirror: Mirror | None = None
) -> list[ControllerPlan]:
    """One plan per controller the stack installs, in creation order (JobSet before Trainer); ``secret``: the
    ``workloads`` section holds a ``secure:`` value; ``mirror``: the stack's."""
    placement = controller_placement(cloud, workloads.node_selector)
    plans = [
        controller_plan(
            c,
            placement,
            workloads.values.get(c),
            workloads.gang_scheduler_of(c),
            workloads.trainer_runtimes,
            install_jobset=False,
            mirror=mirror,
        )
        for c in workloads.installed
    ]
    return [replace(plan, secret_values=secret) for plan in plans]


def settings_plan(settings: ControllerSettings) -> ControllerPlan:
    """``controller_plan`` for a component's checked arguments (``addons.workloads.checks.resolve_controller_args``)."""
    return controller_plan(
        settings.controller,
        Placement(dict(settings.node_selector)),
        settings.values,
        settings.gang_scheduler,
        settings.runtimes,
        settings.install_jobset,
        settings.mirror,
    )


def jobset_plan(args: JobSetArgs) -> ControllerPlan:
    """``JobSet``'s plan from its arguments: resolve then plan, as the component does."""
    return settings_plan(resolve_controller_args(Controller.JOBSET.value, JobSetArgs, args))


def leader_worker_set_plan(args: LeaderWorkerSetArgs) -> ControllerPlan:
    return settings_plan(
        resolve_controller_args(Controller.LEADER_WORKER_SET.value, LeaderWorkerSetArgs, args)
    )


def kuberay_plan(args: KubeRayArgs) -> ControllerPlan:
    return settings_plan(resolve_controller_args(Controller.KUBERAY.value, KubeRayArgs, args))


def kubeflow_trainer_plan(args: KubeflowTrainerArgs) -> ControllerPlan:
    return settings_plan(resolve_controller_args(Controller.TRAINER.value, KubeflowTrainerArgs, args))


def __getattr__(name: str) -> object:
    """Renamed plan functions resolve under their old names, with a warning (``gpu_platform._moved``)."""
    from gpu_platform._moved import moved_attribute

    return moved_attribute(__name__, name)
