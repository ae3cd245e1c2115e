"""``GpuObservability``: where GPU metrics land, with the GPU dashboards and rules (docs/observability.md).

With the ``kube-prometheus-stack`` backend: the namespace, the Prometheus Operator CRDs as a release of their
own (``prometheus-operator-crds``, kept when the component goes so no ServiceMonitor or rule is deleted with
it), then kube-prometheus-stack with its CRD subchart off. The ``PrometheusRule`` and the dashboard ConfigMaps
follow the CRDs' release. With ``prometheus-operator`` only the rule and the dashboards are created, in a namespace that exists; with
``gke-managed-prometheus`` a ``ClusterPodMonitoring`` and ``ClusterRules`` (GKE installs their CRDs).
With ``amazon-managed-prometheus`` the stack as above remote-writing to the workspace, and with
``azure-managed-prometheus`` an ``azmonitoring.coreos.com`` ServiceMonitor; the cloud side of both (workspace,
credentials or data collection, rule groups) comes from the backend's installer (``cloud_side``), first.
With any backend, unless ``health_checks`` is off, node-problem-detector in ``kube-system`` on the GPU nodes
with the GPU Xid monitor and the remedy that taints a failing node (``addons.observability.gpu_health``).
"""

from typing import Any

import pulumi
import pulumi_kubernetes as k8s
from pulumi_kubernetes.apiextensions import CustomResource

from gpu_platform.addons.observability.checks import resolve_observability_args
from gpu_platform.addons.observability.cloud_side import CLOUD_SIDE
from gpu_platform.addons.observability.plan import ObservabilityPlan, observability_plan
from gpu_platform.addons.observability.settings import GpuObservabilityArgs
from gpu_platform.cloud_facts import profile_of
from gpu_platform.component import PlannedComponent
from gpu_platform.helm_release import helm_namespace, helm_release
from gpu_platform.plans.helm import deep_merge
from gpu_platform.releases import KUBE_PROMETHEUS_STACK, NODE_PROBLEM_DETECTOR, PROMETHEUS_OPERATOR_CRDS


class GpuObservability(PlannedComponent[ObservabilityPlan]):
    """GPU metrics path, NVIDIA's DCGM and the platform's Grafana dashboards, GPU alerts and GPU-hour records."""

    _type_token = "gpu-platform:index:GpuObservability"

    backend: pulumi.Output[str]
    """The metrics backend (``kube-prometheus-stack``, ``prometheus-operator``, ``gke-managed-prometheus``)."""
    rule_names: pulumi.Output[list[str]]
    """Every alert and recorded series the rules define."""
    workspace: pulumi.Output[str]
    """The managed backends of EKS and AKS: the workspace metrics go to (AMP workspace ARN, Azure Monitor
    workspace resource ID); empty on the other backends."""

    def __init__(
        self, name: str, args: GpuObservabilityArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        """Check ``args`` (every problem at once; nothing is created on one), then create it. The metrics path,
        GPU dashboards and alert rules."""
        self._start(name, observability_plan(resolve_observability_args(args)), opts)

    @property
    def monitor_crds(self) -> list[Any]:
        """What a chart rendering a ServiceMonitor must wait for: the CRDs' release, when this installs it."""
        return [self._crds] if self._crds is not None else []

    def _create(self, name: str, plan: ObservabilityPlan) -> dict[str, Any]:
        deps = self._dependencies
        after = list(deps)
        ns = None
        self._crds: Any = None
        sink = self._managed(name, plan)
        if plan.spec.installs_stack:
            ns = helm_namespace(self, f"{name}-namespace", plan.namespace, depends_on=deps)
            after = [ns, *deps]
            self._crds = self._stack(name, plan, sink, after)
            after = [self._crds, *after]
        elif (labels := plan.spec.platform_namespace_labels) is not None:
            ns = helm_namespace(self, f"{name}-namespace", plan.namespace, labels=labels, depends_on=deps)
            after = [ns, *deps]
        for obj in plan.objects:
            meta = obj["metadata"]
            CustomResource(
                f"{name}-{obj['kind'].lower()}-{meta['name']}",
                api_version=obj["apiVersion"],
                kind=obj["kind"],
                metadata=meta,
                spec=obj["spec"],
                opts=self.child_opts(depends_on=after),
            )
        if plan.health is not None:  # kube-system, which always exists; no CRDs
            helm_release(
                self,
                f"{name}-health",
                NODE_PROBLEM_DETECTOR.pin,
                NODE_PROBLEM_DETECTOR.release_name,
                plan.health.namespace,
                values=plan.health.values,
                depends_on=deps,
                mirror=plan.mirror,
            )
        for cm in plan.config_maps:
            k8s.core.v1.ConfigMap(
                f"{name}-{cm['metadata']['name']}",
                metadata=cm["metadata"],
                data=cm["data"],
                opts=self.child_opts(depends_on=[ns, *deps] if ns is not None else deps),
            )
        self.backend = pulumi.Output.from_input(plan.spec.backend)
        self.rule_names = pulumi.Output.from_input([r.name for g in plan.groups for r in g.rules])
        self.workspace = pulumi.Output.from_input(sink["workspace"])
        return {"backend": self.backend, "rule_names": self.rule_names, "workspace": self.workspace}

    def _stack(self, name: str, plan: ObservabilityPlan, sink: dict[str, Any], after: list[Any]) -> Any:
        """The Prometheus Operator CRDs' release (returned: what ServiceMonitors and rules wait for), then
        kube-prometheus-stack with the managed backend's values (remote write) after its credentials."""
        crds = helm_release(
            self,
            f"{name}-crds",
            PROMETHEUS_OPERATOR_CRDS.pin,
            PROMETHEUS_OPERATOR_CRDS.release_name,
            plan.namespace,
            values=dict(plan.crds_values),
            depends_on=after,
            retain_on_delete=PROMETHEUS_OPERATOR_CRDS.release_holds_crds,
            mirror=plan.mirror,
        )
        helm_release(
            self,
            f"{name}-stack",
            KUBE_PROMETHEUS_STACK.pin,
            KUBE_PROMETHEUS_STACK.release_name,
            plan.namespace,
            values=deep_merge(plan.stack_values, sink["values"]),
            secret=plan.secret_values,
            skip_crds=True,
            depends_on=[crds, *after, *sink["depends_on"]],
            mirror=plan.mirror,
        )
        return crds

    def _managed(self, name: str, plan: ObservabilityPlan) -> dict[str, Any]:
        """The cloud side of the cloud's managed backend (``cloud_side``), or nothing."""
        load = CLOUD_SIDE.get(plan.spec.backend)
        if load is None or plan.spec.backend != profile_of(plan.spec.cloud).managed_prometheus:
            return {"values": {}, "depends_on": [], "workspace": ""}
        return load()(self, name, plan)
