"""``GpuFleet``: one Kueue manager dispatching to worker clusters with MultiKueue, from one declaration of queues.
On each worker: Kueue (the ``Kueue`` component over its pools, with the fleet's queues and teams) and the
ServiceAccount the manager acts as, whose token becomes the manager's kubeconfig for it (a Pulumi secret, never in
clear). On the manager: Kueue with the fleet's queues, each behind a MultiKueue AdmissionCheck, and a Secret plus a
``MultiKueueCluster`` per worker and a ``MultiKueueConfig`` per queue (``addons.fleet.plan``).
"""

import base64
from collections.abc import Mapping
from typing import Any

import pulumi
import pulumi_kubernetes as k8s
from pulumi_kubernetes.apiextensions import CustomResource

from gpu_platform.addons.fleet.checks import FleetWorker, resolve_fleet_args
from gpu_platform.addons.fleet.credentials import access_objects, server_of, token_kubeconfig
from gpu_platform.addons.fleet.members import manager_of_platform, with_platforms, worker_of_platform
from gpu_platform.addons.fleet.plan import KUBECONFIG_KEY, FleetPlan, fleet_plan, kubeconfig_secret_name
from gpu_platform.addons.fleet.settings import FleetManagerArgs, FleetWorkerArgs, GpuFleetArgs
from gpu_platform.addons.kueue.component import Kueue, TopLevelCustomResource
from gpu_platform.addons.kueue.plan import KueuePlan
from gpu_platform.component import PlannedComponent
from gpu_platform.errors import Problems


def _custom_resource(name: str, obj: Mapping[str, Any], opts: pulumi.ResourceOptions) -> CustomResource:
    return CustomResource(
        name,
        api_version=obj["apiVersion"],
        kind=obj["kind"],
        metadata=obj["metadata"],
        spec=obj["spec"],
        opts=opts,
    )


def _kubeconfig(worker: str, given: str, data: Mapping[str, str] | None) -> str:
    """The manager's kubeconfig for ``worker``: its API server (from the kubeconfig the fleet was given) and the
    ServiceAccount token Kubernetes wrote into the token Secret (``data``, base64)."""
    data = data or {}
    token = base64.b64decode(data.get("token", "")).decode()
    return token_kubeconfig(worker, server_of(given), data.get("ca.crt", ""), token)


class GpuFleet(PlannedComponent[FleetPlan]):
    """A MultiKueue fleet: a manager cluster that queues GPU jobs and dispatches each to a worker cluster with room."""

    _type_token = "gpu-platform:index:GpuFleet"

    cluster_queue_names: pulumi.Output[list[str]]
    """The fleet's ClusterQueues (on the manager, and on each worker they dispatch to)."""
    local_queues: pulumi.Output[list[str]]
    """``<namespace>/<name>`` of every team LocalQueue on the manager: where jobs are submitted."""
    workers: pulumi.Output[list[str]]
    """The workers' ``MultiKueueCluster`` names on the manager."""

    def __init__(self, name: str, args: GpuFleetArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        """Check ``args`` (every problem at once; nothing is created on one), then create the fleet. A MultiKueue
        fleet: a manager cluster that queues GPU jobs and dispatches each to a worker cluster with room. In
        Python, ``manager`` or a ``workers`` entry may be a ``GpuPlatform`` (``worker``)."""
        self._start(name, fleet_plan(resolve_fleet_args(with_platforms(args))), opts)

    @staticmethod
    def worker(name: str, platform: Any) -> FleetWorkerArgs:
        """The worker ``name`` made by a ``GpuPlatform`` of this program (its Kueue off): its cloud, GPU pools
        (the flavors; their GPU types), GPU Operator settings, system pool and job controllers from its spec, its
        ``kubeconfig`` output (a secret) to reach it."""
        p = Problems()
        args = worker_of_platform(name, platform, p)
        if args is None:
            raise p.arguments_error().for_component("GpuFleet.worker", name)
        return args  # type: ignore[return-value]

    @staticmethod
    def manager(platform: Any) -> FleetManagerArgs:
        """The manager made by a ``GpuPlatform`` of this program (its Kueue off): its kubeconfig and controllers."""
        p = Problems()
        args = manager_of_platform(platform, p)
        if args is None:
            raise p.arguments_error().for_component("GpuFleet.manager", str(platform._name))
        return args  # type: ignore[return-value]

    def _kueue(self, prefix: str, plan: KueuePlan, provider: Any, elsewhere: bool) -> list[Any]:
        """Kueue on one cluster: the ``Kueue`` component, or only the plan's objects where Kueue is installed
        outside the fleet. Returns what the cluster's other objects wait for."""
        if not elsewhere:
            return [Kueue.from_plan(f"{prefix}-kueue", plan, self.child_opts(provider=provider)).release]
        opts = self.child_opts(provider=provider)
        spaces = [
            k8s.core.v1.Namespace(
                f"{prefix}-ns-{o['metadata']['name']}",
                metadata=o["metadata"],
                opts=self.child_opts(provider=provider, retain_on_delete=True),
            )
            for o in plan.objects.namespaces
        ]
        objects = plan.objects
        first = [
            _custom_resource(f"{prefix}-{o['kind'].lower()}-{o['metadata']['name']}", o, opts)
            for o in [*objects.admission_checks, *objects.topologies, *objects.flavors]
        ]
        after = self.child_opts(provider=provider, depends_on=first)
        queues = [
            _custom_resource(f"{prefix}-cq-{o['metadata']['name']}", o, after) for o in objects.cluster_queues
        ]
        last = self.child_opts(provider=provider, depends_on=[*queues, *spaces])
        for o in objects.local_queues:
            meta = o["metadata"]
            _custom_resource(f"{prefix}-lq-{meta['namespace']}-{meta['name']}", o, last)
        for o in objects.priority_classes:
            TopLevelCustomResource(f"{prefix}-priority-{o['metadata']['name']}", o, opts)
        return []

    def _worker(self, name: str, plan: FleetPlan, worker: FleetWorker) -> pulumi.Output[str]:
        """Kueue and the manager's ServiceAccount on ``worker``; returns the manager's kubeconfig for it."""
        provider = k8s.Provider(f"{name}-{worker.name}", kubeconfig=worker.kubeconfig, opts=self.child_opts())
        ready = self._kueue(
            f"{name}-{worker.name}", plan.workers[worker.name], provider, worker.kueue_elsewhere
        )
        frameworks = [f for q in plan.spec.queues if worker.name in q.workers for f in q.frameworks]
        sa, role, binding, secret = access_objects(worker.namespace, frameworks)
        after = self.child_opts(provider=provider, depends_on=ready)
        account = k8s.core.v1.ServiceAccount(f"{name}-{worker.name}-sa", metadata=sa["metadata"], opts=after)
        k8s.rbac.v1.ClusterRole(
            f"{name}-{worker.name}-role", metadata=role["metadata"], rules=role["rules"], opts=after
        )
        k8s.rbac.v1.ClusterRoleBinding(
            f"{name}-{worker.name}-crb",
            metadata=binding["metadata"],
            role_ref=binding["roleRef"],
            subjects=binding["subjects"],
            opts=after,
        )
        token = k8s.core.v1.Secret(
            f"{name}-{worker.name}-token",
            metadata=secret["metadata"],
            type=secret["type"],
            opts=self.child_opts(provider=provider, depends_on=[account]),
        )
        # Kubernetes writes the token into the Secret after it is created: read it back once it exists. The id
        # comes from the created Secret, so a preview (where it does not exist yet) defers the read.
        filled = k8s.core.v1.Secret.get(
            f"{name}-{worker.name}-token-read",
            pulumi.Output.all(token.metadata.namespace, token.metadata.name).apply(
                lambda a: f"{a[0]}/{a[1]}"
            ),
            opts=self.child_opts(provider=provider, depends_on=[token]),
        )
        return pulumi.Output.secret(
            pulumi.Output.all(worker.kubeconfig, filled.data).apply(
                lambda a: _kubeconfig(worker.name, a[0], a[1])
            )
        )

    def _manager(self, name: str, plan: FleetPlan, kubeconfigs: Mapping[str, pulumi.Output[str]]) -> None:
        provider = k8s.Provider(
            f"{name}-manager", kubeconfig=plan.spec.manager_kubeconfig, opts=self.child_opts()
        )
        ready = self._kueue(f"{name}-manager", plan.manager, provider, plan.spec.manager_kueue_elsewhere)
        clusters = []
        for obj in plan.multikueue_clusters:
            worker = obj["metadata"]["name"]
            secret = k8s.core.v1.Secret(
                f"{name}-manager-{worker}-kubeconfig",
                metadata={"name": kubeconfig_secret_name(worker), "namespace": plan.spec.namespace},
                string_data={KUBECONFIG_KEY: kubeconfigs[worker]},
                opts=self.child_opts(provider=provider, depends_on=ready),
            )
            opts = self.child_opts(provider=provider, depends_on=[*ready, secret])
            clusters.append(_custom_resource(f"{name}-manager-mkc-{worker}", obj, opts))
        for obj in plan.multikueue_configs:
            opts = self.child_opts(provider=provider, depends_on=[*ready, *clusters])
            _custom_resource(f"{name}-manager-mkconfig-{obj['metadata']['name']}", obj, opts)

    def _create(self, name: str, plan: FleetPlan) -> dict[str, Any]:
        kubeconfigs = {w.name: self._worker(name, plan, w) for w in plan.spec.workers}
        self._manager(name, plan, kubeconfigs)
        objects = plan.manager.objects
        self.cluster_queue_names = pulumi.Output.from_input(
            [q["metadata"]["name"] for q in objects.cluster_queues]
        )
        self.local_queues = pulumi.Output.from_input(
            [f"{q['metadata']['namespace']}/{q['metadata']['name']}" for q in objects.local_queues]
        )
        self.workers = pulumi.Output.from_input([w.name for w in plan.spec.workers])
        return {
            "cluster_queue_names": self.cluster_queue_names,
            "local_queues": self.local_queues,
            "workers": self.workers,
        }
