"""The workload controllers the queues promise: ``JobSet``, ``LeaderWorkerSet``, ``KubeflowTrainer``, ``KubeRay``.

Each is one pinned ``helm.v3.Release`` of the official chart (``versions``) in its own namespace, values from
``addons.workloads.plan`` (system pool, never GPU nodes; release images; Volcano gang scheduling when asked).

What outlives the component (docs/workloads.md has the table):

- namespaces are ``retain_on_delete``: removing a component never deletes the workloads in them;
- JobSet, LWS and KubeRay ship their CRDs in the chart's ``crds/`` directory: Helm installs them once and never
  deletes them, so every JobSet, LeaderWorkerSet and RayCluster survives an uninstall (and ``helm upgrade`` never
  updates them: apply a new chart's CRDs first);
- Kubeflow Trainer renders its CRDs as templates (``crds.enabled``) with no keep policy: uninstalling the release
  would delete the CRDs and with them every TrainJob. Its release is therefore ``retain_on_delete``: removing the
  component (or ``pulumi destroy``) leaves the release installed, and ``helm uninstall -n kubeflow-system
  kubeflow-trainer`` is a deliberate act.
- Trainer's ClusterTrainingRuntimes are created here, after the release whose webhook validates them.
"""

from typing import Any, ClassVar

import pulumi
from pulumi_kubernetes.apiextensions import CustomResource
from pulumi_kubernetes.helm.v3.outputs import ReleaseStatus

from gpu_platform import releases
from gpu_platform.addons.workloads.checks import resolve_controller_args
from gpu_platform.addons.workloads.plan import ControllerPlan, settings_plan
from gpu_platform.addons.workloads.settings import (
    JobSetArgs,
    KubeflowTrainerArgs,
    KubeRayArgs,
    LeaderWorkerSetArgs,
)
from gpu_platform.component import PlannedComponent
from gpu_platform.helm_release import helm_namespace, helm_release
from gpu_platform.releases import Addon


def controller_release(
    owner: PlannedComponent[Any], name: str, plan: ControllerPlan, depends_on: list[Any]
) -> Any:
    """The controller's namespace (kept when the component goes) and its pinned release."""
    ns = helm_namespace(owner, f"{name}-namespace", plan.namespace, depends_on=depends_on)
    return helm_release(
        owner,
        f"{name}-helm",
        plan.pin,
        plan.release_name,
        plan.namespace,
        values=plan.values,
        secret=plan.secret_values,
        depends_on=[ns, *depends_on],
        retain_on_delete=plan.crds_in_release,
        mirror=plan.mirror,
    )


class _Controller(PlannedComponent[ControllerPlan]):
    _addon: ClassVar[Addon]
    """The registry entry of the controller it installs."""
    status: pulumi.Output[ReleaseStatus]
    """The Helm release status."""

    def _create(self, name: str, plan: ControllerPlan) -> dict[str, Any]:
        release = controller_release(self, name, plan, self._dependencies)
        for obj in plan.objects:
            CustomResource(
                f"{name}-{obj['kind'].lower()}-{obj['metadata']['name']}",
                api_version=obj["apiVersion"],
                kind=obj["kind"],
                metadata=obj["metadata"],
                spec=obj["spec"],
                opts=self.child_opts(depends_on=[release]),
            )
        self.status = release.status
        return {"status": self.status}


_NO_ARGS: Any = {}


class JobSet(_Controller):
    """JobSet (``jobset.x-k8s.io/v1alpha2``): groups of Jobs for multi-node training; Kueue queues them
    (``jobset.x-k8s.io/jobset``) and Kubeflow Trainer runs on it."""

    _type_token = "gpu-platform:index:JobSet"
    _addon = releases.JOBSET

    def __init__(
        self, name: str, args: JobSetArgs = _NO_ARGS, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        """Check ``args`` (every problem at once; nothing is created on one), then create it. JobSet
        (``jobset.x-k8s.io/v1alpha2``): groups of Jobs for multi-node training; Kueue queues them
        (``jobset.x-k8s.io/jobset``) and Kubeflow Trainer runs on it."""
        self._start(name, settings_plan(resolve_controller_args(self._addon.key, JobSetArgs, args)), opts)


class LeaderWorkerSet(_Controller):
    """LeaderWorkerSet (``leaderworkerset.x-k8s.io/v1``): a leader and workers as one unit, e.g. one model
    served across several GPU nodes; in ``lws-system``, the namespace its CRD's conversion webhook expects."""

    _type_token = "gpu-platform:index:LeaderWorkerSet"
    _addon = releases.LEADER_WORKER_SET

    def __init__(
        self, name: str, args: LeaderWorkerSetArgs = _NO_ARGS, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        """Check ``args`` (every problem at once; nothing is created on one), then create it. LeaderWorkerSet
        (``leaderworkerset.x-k8s.io/v1``): a leader and workers as one unit, e.g. one model served across
        several GPU nodes; in ``lws-system``, the namespace its CRD's conversion webhook expects."""
        self._start(
            name, settings_plan(resolve_controller_args(self._addon.key, LeaderWorkerSetArgs, args)), opts
        )


class KubeRay(_Controller):
    """The KubeRay operator (``ray.io/v1`` RayCluster, RayJob, RayService)."""

    _type_token = "gpu-platform:index:KubeRay"
    _addon = releases.KUBERAY

    def __init__(
        self, name: str, args: KubeRayArgs = _NO_ARGS, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        """Check ``args`` (every problem at once; nothing is created on one), then create it. The KubeRay
        operator (``ray.io/v1`` RayCluster, RayJob, RayService)."""
        self._start(name, settings_plan(resolve_controller_args(self._addon.key, KubeRayArgs, args)), opts)


class KubeflowTrainer(_Controller):
    """Kubeflow Trainer v2 (``trainer.kubeflow.org/v1alpha1`` TrainJob) with its torch and DeepSpeed
    ClusterTrainingRuntimes. Needs JobSet: make it depend on the ``JobSet`` component (the ``depends_on`` resource option)."""

    _type_token = "gpu-platform:index:KubeflowTrainer"
    _addon = releases.TRAINER

    runtimes: pulumi.Output[list[str]]
    """Names of the ClusterTrainingRuntimes created (what a TrainJob's ``runtimeRef.name`` says)."""

    def __init__(
        self, name: str, args: KubeflowTrainerArgs = _NO_ARGS, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        """Check ``args`` (every problem at once; nothing is created on one), then create it. Kubeflow Trainer v2
        (``trainer.kubeflow.org/v1alpha1`` TrainJob) with its torch and DeepSpeed ClusterTrainingRuntimes.
        Needs JobSet: make it depend on the ``JobSet`` component (the ``depends_on`` resource option)."""
        self._start(
            name, settings_plan(resolve_controller_args(self._addon.key, KubeflowTrainerArgs, args)), opts
        )

    def _create(self, name: str, plan: ControllerPlan) -> dict[str, Any]:
        outputs = super()._create(name, plan)
        self.runtimes = pulumi.Output.from_input([o["metadata"]["name"] for o in plan.objects])
        return {**outputs, "runtimes": self.runtimes}


CONTROLLER_COMPONENTS: tuple[type[_Controller], ...] = (JobSet, LeaderWorkerSet, KubeRay, KubeflowTrainer)


def controller_component(key: str) -> type[_Controller]:
    """The component class that installs the workload controller ``key`` (an ``addons`` key)."""
    return next(cls for cls in CONTROLLER_COMPONENTS if cls._addon.key == key)
