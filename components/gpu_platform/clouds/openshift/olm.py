"""``OlmGpuOperator``: the GPU Operator on OpenShift, from its OLM plan (``olm_plan``), each wave after the last."""

from __future__ import annotations

from typing import Any

import pulumi

from gpu_platform.addons.gpu_operator.plan import OperatorPlan
from gpu_platform.clouds.openshift.olm_plan import olm_plan
from gpu_platform.versions import OPENSHIFT_GPU_OPERATOR


def _resource(obj: dict[str, Any], opts: pulumi.ResourceOptions) -> pulumi.Resource:
    meta = obj["metadata"]
    return kubernetes_object(
        f"{obj['kind'].lower()}-{meta.get('namespace', 'cluster')}-{meta['name']}", obj, opts
    )


def kubernetes_object(name: str, obj: dict[str, Any], opts: pulumi.ResourceOptions) -> pulumi.Resource:
    """A planned object as its Pulumi resource: typed for core kinds, a ``CustomResource`` for the rest."""
    import pulumi_kubernetes as k8s

    meta = obj["metadata"]
    if obj["kind"] == "Namespace":
        return k8s.core.v1.Namespace(name, metadata=meta, opts=opts)
    if obj["kind"] == "ConfigMap":
        return k8s.core.v1.ConfigMap(name, metadata=meta, data=obj["data"], opts=opts)
    rest = {k: v for k, v in obj.items() if k not in ("apiVersion", "kind", "metadata")}
    return k8s.apiextensions.CustomResource(
        name, api_version=obj["apiVersion"], kind=obj["kind"], metadata=meta, opts=opts, **rest
    )


class OlmGpuOperator(pulumi.ComponentResource):
    """NFD, the NVIDIA GPU Operator (OLM Subscription) and its ClusterPolicy."""

    status: pulumi.Output[Any]
    namespace: pulumi.Output[str]

    def __init__(self, name: str, plan: OperatorPlan, opts: pulumi.ResourceOptions | None = None) -> None:
        super().__init__("gpu-platform:openshift:OlmGpuOperator", name, None, opts)
        before: list[pulumi.Resource] = []
        last: list[pulumi.Resource] = []
        for wave in olm_plan(plan):
            wave_opts = pulumi.ResourceOptions(parent=self, depends_on=before)
            last = [_resource(obj, wave_opts) for obj in wave]
            before = [*before, *last]
        policy = last[0]
        self.status = pulumi.Output.from_input({"clusterPolicy": policy.urn})
        self.namespace = pulumi.Output.from_input(OPENSHIFT_GPU_OPERATOR.namespace)
        self.register_outputs({"status": self.status})


def install(name: str, plan: OperatorPlan, opts: pulumi.ResourceOptions) -> OlmGpuOperator:
    return OlmGpuOperator(name, plan, opts)
