"""``Hami``: HAMi's chart, so isolated pools share their cards with a memory limit per container.

One ``helm.v3.Release`` of the chart pinned in ``versions.HAMI`` in its own namespace; the stack creates it from
its plan (``Hami.from_plan``) when a pool is isolated.
"""

from typing import Any

import pulumi
from pulumi_kubernetes.helm.v3.outputs import ReleaseStatus

from gpu_platform.addons.hami.plan import HamiPlan
from gpu_platform.component import PlannedComponent
from gpu_platform.helm_release import helm_namespace, helm_release
from gpu_platform.releases import HAMI


class Hami(PlannedComponent[HamiPlan]):
    """HAMi from the pinned chart: its scheduler, webhook and device plugin on the isolated pools."""

    _type_token = "gpu-platform:index:Hami"

    status: pulumi.Output[ReleaseStatus]
    """Status of the Helm release."""

    def _create(self, name: str, plan: HamiPlan) -> dict[str, Any]:
        deps = self._dependencies
        ns = helm_namespace(self, f"{name}-namespace", plan.namespace, depends_on=deps)
        release = helm_release(
            self,
            f"{name}-helm",
            HAMI.pin,
            HAMI.release_name,
            plan.namespace,
            values=plan.values,
            depends_on=[ns, *deps],
            mirror=plan.mirror,
        )
        self.status = release.status
        return {"status": self.status}
