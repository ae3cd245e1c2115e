"""``GpuInferenceService``: a KServe InferenceService on one GPU pool (see ``addons.kserve.service_plan``).

In ``Knative`` mode the ``nodeSelector`` and ``tolerations`` need Knative's
``kubernetes.podspec-nodeselector`` / ``kubernetes.podspec-tolerations`` features (see ``addons.kserve.plan``).
"""

from typing import Any

import pulumi
import pulumi_kubernetes as k8s

from gpu_platform.addons.kserve.service_checks import resolve_service_args
from gpu_platform.addons.kserve.service_plan import API_VERSION, InferenceServicePlan, inference_service_plan
from gpu_platform.addons.kserve.service_settings import GpuInferenceServiceArgs
from gpu_platform.component import PlannedComponent


class GpuInferenceService(PlannedComponent[InferenceServicePlan]):
    """An InferenceService whose predictor is placed on one GPU pool and asks for whole units of it."""

    _type_token = "gpu-platform:index:GpuInferenceService"

    inference_service_name: pulumi.Output[str]
    """Name of the InferenceService."""
    gpu_resource: pulumi.Output[str]
    """Extended resource each replica requests (``nvidia.com/gpu``, ``nvidia.com/mig-3g.40gb`` ...)."""
    gpu_units: pulumi.Output[int]
    """Units of ``gpu_resource`` per replica (limits == requests)."""

    def __init__(
        self, name: str, args: GpuInferenceServiceArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        """Check ``args`` (every problem at once; nothing is created on one), then create it. An InferenceService
        whose predictor is placed on one GPU pool and asks for whole units of it."""
        self._start(name, inference_service_plan(*resolve_service_args(name, args)), opts)

    def _create(self, name: str, plan: InferenceServicePlan) -> dict[str, Any]:
        if plan.standard_at_zero:
            pulumi.log.warn(
                f"{plan.request.name}: min_replicas 0 in Standard mode parks the model at zero replicas; it does "
                "not scale up on traffic (that needs Knative mode or KEDA)",
                resource=self,
            )
        if plan.uncapped_on_shared_gpu:
            pool = plan.request.pool
            pulumi.log.warn(
                f"{plan.request.name}: pool '{pool.name}' shares each GPU {pool.sharing.replicas} ways, and the "
                "library knows no memory-fraction flag for this runtime (it sets one for vLLM and TF Serving): "
                "cap the server's GPU memory in its own configuration, or its neighbours on the GPU may run out",
                resource=self,
            )
        # A component's depends_on is not inherited by its children: hand it on (KServe's releases).
        self.isvc = k8s.apiextensions.CustomResource(
            f"{name}-isvc",
            api_version=API_VERSION,
            kind="InferenceService",
            metadata=plan.metadata,
            spec=plan.spec,
            opts=self.child_opts(depends_on=self._dependencies),
        )
        self.inference_service_name = pulumi.Output.from_input(plan.request.name)
        self.gpu_resource = pulumi.Output.from_input(plan.request.resource)
        self.gpu_units = pulumi.Output.from_input(plan.request.units)
        return {
            "inference_service_name": self.inference_service_name,
            "gpu_resource": self.gpu_resource,
            "gpu_units": self.gpu_units,
        }
