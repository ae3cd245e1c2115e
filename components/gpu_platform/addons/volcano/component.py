"""``Volcano``: the other gang scheduler, with a ``Queue`` per team whose quota is the pools' capacity.

One pinned release (``versions.VOLCANO``) in ``volcano-system``: scheduler (capacity plugin), controllers and
admission webhooks. Team Queues and namespaces come from ``addons.volcano.plan``; the Queues depend on the release,
which installs their CRD and the webhook that validates them. Namespaces are ``retain_on_delete``. Volcano's
CRDs are chart templates with no keep policy: uninstalling the release would delete them and every Volcano Job
and PodGroup, so the release is ``retain_on_delete`` too: removing the component (or ``pulumi destroy``) leaves
it installed, and ``helm uninstall -n volcano-system volcano`` is a deliberate act (docs/workloads.md).
"""

from typing import Any, cast

import pulumi
import pulumi_kubernetes as k8s
from pulumi_kubernetes.apiextensions import CustomResource
from pulumi_kubernetes.core.v1 import TolerationArgsDict
from pulumi_kubernetes.helm.v3.outputs import ReleaseStatus
from typing_extensions import TypedDict

from gpu_platform.addons.volcano.checks import resolve_volcano_args
from gpu_platform.addons.volcano.plan import VolcanoPlan, volcano_plan
from gpu_platform.addons.workloads.settings import VolcanoArgs
from gpu_platform.component import PlannedComponent
from gpu_platform.helm_release import helm_namespace, helm_release
from gpu_platform.releases import VOLCANO


class PodPlacement(TypedDict):
    """What a pod template needs to run on one GPU pool, keyed as in a Kubernetes pod spec so that it goes
    into one as it is."""

    nodeSelector: dict[str, str]
    """Labels that select the pool's nodes."""
    tolerations: list[TolerationArgsDict]
    """Tolerations of the pool's taints."""


class Volcano(PlannedComponent[VolcanoPlan]):
    """Volcano with a Queue per team: ``deserved`` = the team's pools, ``capability`` = what it may borrow."""

    _type_token = "gpu-platform:index:Volcano"

    queue_names: pulumi.Output[list[str]]
    """The team Queues (what a Volcano Job's ``spec.queue`` names)."""
    placements: pulumi.Output[dict[str, PodPlacement]]
    """Pool -> ``{"nodeSelector", "tolerations"}`` a job's pod template needs to run on that pool."""
    status: pulumi.Output[ReleaseStatus]
    """The Helm release status."""

    def __init__(self, name: str, args: VolcanoArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        """Check ``args`` (every problem at once; nothing is created on one), then create it. Volcano with a
        Queue per team: ``deserved`` = the team's pools, ``capability`` = what it may borrow."""
        self._start(name, volcano_plan(resolve_volcano_args(args)), opts)

    def _create(self, name: str, plan: VolcanoPlan) -> dict[str, Any]:
        deps = self._dependencies
        ns = helm_namespace(self, f"{name}-namespace", plan.namespace, depends_on=deps)
        release = helm_release(
            self,
            f"{name}-helm",
            VOLCANO.pin,
            VOLCANO.release_name,
            plan.namespace,
            values=plan.values,
            secret=plan.secret_values,
            mirror=plan.mirror,
            depends_on=[ns, *deps],
            retain_on_delete=VOLCANO.release_holds_crds,
        )
        for obj in plan.namespaces if plan.manage_namespaces else ():
            k8s.core.v1.Namespace(
                f"{name}-ns-{obj['metadata']['name']}",
                metadata=obj["metadata"],
                opts=self.child_opts(depends_on=deps, retain_on_delete=True),
            )
        for obj in plan.queues:
            CustomResource(
                f"{name}-queue-{obj['metadata']['name']}",
                api_version=obj["apiVersion"],
                kind=obj["kind"],
                metadata=obj["metadata"],
                spec=obj["spec"],
                opts=self.child_opts(depends_on=[release]),
            )
        self.queue_names = pulumi.Output.from_input([q["metadata"]["name"] for q in plan.queues])
        self.placements = pulumi.Output.from_input(cast(dict[str, PodPlacement], plan.placements))
        self.status = release.status
        return {"queue_names": self.queue_names, "placements": self.placements, "status": self.status}
