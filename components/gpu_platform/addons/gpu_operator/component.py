"""``GpuOperator``: the NVIDIA GPU Operator, configured from the GPU pools.

One ``helm.v3.Release`` of ``gpu-operator`` (``versions.GPU_OPERATOR``) in a PodSecurity-privileged
namespace, plus what the chart needs around it: the device-plugin ConfigMap (time-slicing/MPS per pool),
the mig-parted ConfigMap (MIG layouts), and on GKE the quota for critical-priority pods and Google's COS
driver installer. Everything comes from ``addons.gpu_operator.plan``, built from the same ``DriverPlan`` and
pool labels the node pools use.
"""

from typing import Any, cast

import pulumi
import pulumi_kubernetes as k8s
from pulumi_kubernetes.helm.v3.outputs import ReleaseStatus

from gpu_platform.addons.gpu_operator import plan as g
from gpu_platform.addons.gpu_operator.checks import resolve_gpu_operator
from gpu_platform.addons.gpu_operator.startup_taint import remover_objects, startup_taint_remover_plan
from gpu_platform.args.operators import GpuOperatorArgs
from gpu_platform.cloud_facts import profile_of
from gpu_platform.component import PlannedComponent
from gpu_platform.helm_release import helm_namespace, helm_release
from gpu_platform.plans.mirror import mirrored_object
from gpu_platform.releases import GPU_OPERATOR

RELEASE_NAME = GPU_OPERATOR.release_name
_SNAKE = {"roleRef": "role_ref"}
"""Top-level object fields whose Python argument is spelt differently."""


class GpuOperator(PlannedComponent[g.OperatorPlan]):
    """NVIDIA GPU Operator for the given pools, with driver ownership matching the node pools."""

    _type_token = "gpu-platform:index:GpuOperator"

    status: pulumi.Output[ReleaseStatus]
    """The Helm release status."""
    namespace: pulumi.Output[str]
    """Namespace the operator and its operands run in."""

    def __init__(self, name: str, args: GpuOperatorArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        """Check ``args`` (every problem at once; nothing is created on one), then create it. NVIDIA GPU Operator
        for the given pools, with driver ownership matching the node pools."""
        self._start(name, g.gpu_operator_plan(resolve_gpu_operator(args)), opts)

    def _prerequisites(self, name: str, plan: g.OperatorPlan, ns: Any) -> list[pulumi.Resource]:
        """What must exist before the chart: the cloud's objects (GKE: quota and driver installer), the sharing
        ConfigMaps."""
        ns_name, out = ns.metadata.name, [ns]
        meta: Any
        kinds: dict[str, Any] = {
            "ResourceQuota": k8s.core.v1.ResourceQuota,
            "DaemonSet": k8s.apps.v1.DaemonSet,
        }
        for obj in profile_of(plan.cloud).gpu_operator_objects(
            plan.pools, plan.driver, plan.installer_version
        ):
            meta = {**obj.metadata, "namespace": ns_name} if obj.in_operator_namespace else obj.metadata
            spec = mirrored_object(obj.spec, plan.mirror)
            out.append(
                kinds[obj.kind](
                    f"{name}-{obj.suffix}", metadata=meta, spec=cast(Any, spec), opts=self.child_opts()
                )
            )
        for suffix, config_map, data in (
            ("device-plugin-config", g.DEVICE_PLUGIN_CONFIG_MAP, g.device_plugin_config_data(plan)),
            ("mig-parted-config", g.MIG_PARTED_CONFIG_MAP, g.mig_parted_config_data(plan)),
        ):
            if data:
                meta = {"name": config_map, "namespace": ns_name}
                out.append(
                    k8s.core.v1.ConfigMap(
                        f"{name}-{suffix}", metadata=meta, data=data, opts=self.child_opts()
                    )
                )
        return out

    def _startup_taint_remover(self, name: str, plan: g.OperatorPlan, ns: Any) -> None:
        """On pools whose nodes start with the startup taint: the DaemonSet that removes it once the
        operands have made the node's GPU resources appear (``addons.gpu_operator.startup_taint``)."""
        objects: list[dict[str, Any]] = mirrored_object(
            remover_objects(startup_taint_remover_plan(plan.pools, plan.namespace)), plan.mirror
        )
        if not objects:
            return
        kinds: dict[str, Any] = {
            "ServiceAccount": k8s.core.v1.ServiceAccount,
            "ClusterRole": k8s.rbac.v1.ClusterRole,
            "ClusterRoleBinding": k8s.rbac.v1.ClusterRoleBinding,
            "ConfigMap": k8s.core.v1.ConfigMap,
            "DaemonSet": k8s.apps.v1.DaemonSet,
        }
        in_ns = self.child_opts(depends_on=[ns])
        for obj in objects:
            body = {_SNAKE.get(k, k): v for k, v in obj.items() if k not in ("apiVersion", "kind")}
            suffix = "startup-taint-remover" + (
                "" if obj["kind"] == "DaemonSet" else f"-{obj['kind'].lower()}"
            )
            kinds[obj["kind"]](f"{name}-{suffix}", **body, opts=in_ns)

    def _create(self, name: str, plan: g.OperatorPlan) -> dict[str, Any]:
        ns = helm_namespace(self, f"{name}-ns", plan.namespace, labels=g.PSA_PRIVILEGED_LABELS)
        release = helm_release(
            self,
            f"{name}-helm",
            GPU_OPERATOR.pin,
            GPU_OPERATOR.release_name,
            ns.metadata.name,
            values=plan.values,
            secret=plan.secret_values,
            version=plan.version,
            depends_on=self._prerequisites(name, plan, ns),
            mirror=plan.mirror,
        )
        self._startup_taint_remover(name, plan, ns)
        self.status = release.status
        self.namespace = ns.metadata.name
        return {"status": self.status, "namespace": self.namespace}
