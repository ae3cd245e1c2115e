"""``Kueue``: quotas derived from the GPU pools, team queues, and gang admission for distributed jobs.

One Helm release (``versions.KUEUE``, OCI chart) carries the controller ``Configuration``; every custom
resource (``addons.kueue.plan``: one ResourceFlavor per pool, ClusterQueues with quota = what the nodes offer pods
(allocatable less the GPU Operator's pods), a system flavor for CPU-only jobs,
team LocalQueues, WorkloadPriorityClasses) depends on that release, which installs the CRDs and the
webhooks that validate them.
"""

from collections.abc import Mapping
from importlib.metadata import version as package_version
from types import MappingProxyType
from typing import Any, Self

import pulumi
import pulumi_kubernetes as k8s
from pulumi_kubernetes.apiextensions import CustomResource
from pulumi_kubernetes.helm.v3.outputs import ReleaseStatus

from gpu_platform.addons.kueue.args_checks import resolve_kueue_args
from gpu_platform.addons.kueue.plan import KueuePlan, kueue_plan
from gpu_platform.addons.kueue.settings import KueueArgs
from gpu_platform.component import PlannedComponent
from gpu_platform.helm_release import helm_release
from gpu_platform.releases import KUEUE


class TopLevelCustomResource(pulumi.CustomResource):
    """A custom resource whose fields sit beside ``spec`` (WorkloadPriorityClass ``value``).

    The Python ``CustomResource`` only sends ``spec`` (pulumi/pulumi-kubernetes#2363); this sends the
    whole object, as the Node.js SDK's ``CustomResource`` does with its extra fields.
    """

    def __init__(self, resource_name: str, obj: Mapping[str, Any], opts: pulumi.ResourceOptions) -> None:
        opts = pulumi.ResourceOptions.merge(
            opts, pulumi.ResourceOptions(version=package_version("pulumi_kubernetes"))
        )
        super().__init__(f"kubernetes:{obj['apiVersion']}:{obj['kind']}", resource_name, dict(obj), opts)


def _custom_resource(name: str, obj: Mapping[str, Any], opts: pulumi.ResourceOptions) -> CustomResource:
    return CustomResource(
        name,
        api_version=obj["apiVersion"],
        kind=obj["kind"],
        metadata=obj["metadata"],
        spec=obj["spec"],
        opts=opts,
    )


class Kueue(PlannedComponent[KueuePlan]):
    """Kueue with a flavor per GPU pool, quotas equal to the pools' capacity, team queues, gang admission."""

    _type_token = "gpu-platform:index:Kueue"

    cluster_queue_names: pulumi.Output[list[str]]
    """Names of the ClusterQueues created."""
    local_queues: pulumi.Output[list[str]]
    """``<namespace>/<name>`` of every team LocalQueue (what jobs name in ``kueue.x-k8s.io/queue-name``)."""
    status: pulumi.Output[ReleaseStatus]
    """The Helm release status."""

    _given_namespaces: Mapping[str, Any] = MappingProxyType({})
    """Team namespaces made outside the component (the stack's), each LocalQueue waiting for its own."""

    def __init__(self, name: str, args: KueueArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        """Check ``args`` (every problem at once; nothing is created on one), then create it. Kueue with a flavor
        per GPU pool, quotas equal to the pools' capacity, team queues, gang admission."""
        self._start(name, kueue_plan(*resolve_kueue_args(args)), opts)

    @classmethod
    def in_namespaces(
        cls,
        name: str,
        plan: KueuePlan,
        namespaces: Mapping[str, Any],
        opts: pulumi.ResourceOptions | None = None,
    ) -> Self:
        """``from_plan`` for a plan whose team namespaces exist already (``namespaces``: name -> Namespace):
        each LocalQueue depends on its own namespace, not on all of them."""
        obj = cls.__new__(cls)
        obj._given_namespaces = dict(namespaces)
        obj._start(name, plan, opts)
        return obj

    @property
    def release(self) -> Any:
        """The Helm release: Kueue's CRDs, controller and webhooks (what waiting "for Kueue" needs)."""
        return self._release

    def needed_by(self, namespace: str, queue: str | None, priority_class: str | None) -> list[Any]:
        """What a workload in ``namespace`` naming ``queue`` and ``priority_class`` needs of Kueue: the release
        (its webhooks), that LocalQueue and that WorkloadPriorityClass; never every queue and flavor."""
        out: list[Any] = [self._release]
        if queue is not None and (namespace, queue) in self._local_queue_resources:
            out.append(self._local_queue_resources[namespace, queue])
        if priority_class is not None and priority_class in self._priority_class_resources:
            out.append(self._priority_class_resources[priority_class])
        return out

    def _queues(self, name: str, plan: KueuePlan, release: Any) -> dict[str, Any]:
        after = self.child_opts(depends_on=[release])
        # spec.levels is immutable (CEL): new levels are a new Topology of the same name, so the old one goes first.
        topologies = {
            o["metadata"]["name"]: _custom_resource(
                f"{name}-topology-{o['metadata']['name']}",
                o,
                self.child_opts(
                    depends_on=[release], replace_on_changes=["spec.levels"], delete_before_replace=True
                ),
            )
            for o in plan.objects.topologies
        }
        flavors = {}
        for o in plan.objects.flavors:
            topology = o["spec"].get("topologyName")
            opts = after if topology is None else self.child_opts(depends_on=[release, topologies[topology]])
            flavors[o["metadata"]["name"]] = _custom_resource(
                f"{name}-flavor-{o['metadata']['name']}", o, opts
            )
        checks = {
            o["kind"] + "/" + o["metadata"]["name"]: _custom_resource(
                f"{name}-{o['kind'].lower()}-{o['metadata']['name']}", o, after
            )
            for o in plan.objects.admission_checks
        }
        queues = {}
        for obj in plan.objects.cluster_queues:
            used = [f["name"] for g in obj["spec"]["resourceGroups"] for f in g["flavors"]]
            named = [
                c["name"] for c in obj["spec"].get("admissionChecksStrategy", {}).get("admissionChecks", [])
            ]
            # A MultiKueue check (a fleet's manager) has no ProvisioningRequestConfig beside it.
            keys = [f"{k}/{n}" for n in named for k in ("AdmissionCheck", "ProvisioningRequestConfig")]
            wanted = [checks[key] for key in keys if key in checks]
            # Deleted before its flavors: Kueue keeps a flavor (finalizer) while a queue uses it.
            opts = self.child_opts(depends_on=[release, *(flavors[f] for f in used), *wanted])
            queues[obj["metadata"]["name"]] = _custom_resource(
                f"{name}-cq-{obj['metadata']['name']}", obj, opts
            )
        return queues

    def _namespaces(self, name: str, plan: KueuePlan) -> dict[str, Any]:
        """Team namespaces, labelled for their ClusterQueue; kept when the team or Kueue is removed."""
        if not plan.manage_namespaces:
            return dict(self._given_namespaces)
        return {
            o["metadata"]["name"]: k8s.core.v1.Namespace(
                f"{name}-ns-{o['metadata']['name']}",
                metadata=o["metadata"],
                opts=self.child_opts(retain_on_delete=o["metadata"]["name"] in plan.retained_namespaces()),
            )
            for o in plan.objects.namespaces
        }

    def _create(self, name: str, plan: KueuePlan) -> dict[str, Any]:
        release = helm_release(
            self,
            f"{name}-helm",
            KUEUE.pin,
            KUEUE.release_name,
            plan.namespace,
            values=plan.values,
            secret=plan.secret_values,
            create_namespace=True,
            # The component's own dependencies (the Prometheus Operator CRDs when the chart renders its
            # ServiceMonitor); none otherwise, so the release keeps the inputs it always had.
            depends_on=self._dependencies or None,
            # The chart's CRDs are templates without a keep policy: uninstalling it would delete every
            # Workload, queue and flavor in the cluster. Removing Kueue from the stack leaves the release
            # installed; uninstall it on purpose (docs/day2.md).
            retain_on_delete=KUEUE.release_holds_crds,
            mirror=plan.mirror,
        )
        queues = self._queues(name, plan, release)
        namespaces = self._namespaces(name, plan)
        self._release = release
        self._local_queue_resources: dict[tuple[str, str], Any] = {}
        self._priority_class_resources: dict[str, Any] = {}
        local_names = []
        for obj in plan.objects.local_queues:
            meta = obj["metadata"]
            local_names.append(f"{meta['namespace']}/{meta['name']}")
            ns = [namespaces[meta["namespace"]]] if meta["namespace"] in namespaces else []
            # Its CRD (the release), its namespace and its ClusterQueue; the release already waits for what
            # the component waits for.
            deps = [release, *ns, queues[obj["spec"]["clusterQueue"]]]
            # spec.clusterQueue is immutable (CEL): moving a team to another queue replaces it.
            opts = self.child_opts(
                depends_on=deps, replace_on_changes=["spec.clusterQueue"], delete_before_replace=True
            )
            self._local_queue_resources[meta["namespace"], meta["name"]] = _custom_resource(
                f"{name}-lq-{meta['namespace']}-{meta['name']}", obj, opts
            )
        for obj in plan.objects.priority_classes:
            self._priority_class_resources[obj["metadata"]["name"]] = TopLevelCustomResource(
                f"{name}-priority-{obj['metadata']['name']}", obj, self.child_opts(depends_on=[release])
            )
        self.cluster_queue_names = pulumi.Output.from_input(
            [q["metadata"]["name"] for q in plan.objects.cluster_queues]
        )
        self.local_queues = pulumi.Output.from_input(local_names)
        self.status = release.status
        return {
            "cluster_queue_names": self.cluster_queue_names,
            "local_queues": self.local_queues,
            "status": self.status,
        }
