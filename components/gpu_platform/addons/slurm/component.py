"""``SlurmCluster``: Slurm on Kubernetes (SchedMD Slinky) over the GPU pools it owns, with pyxis and enroot.

Three pinned releases (``versions.SLURM_OPERATOR_CRDS``, ``SLURM_OPERATOR``, ``SLURM``), in Slinky's install
order: cert-manager first (optional here; the operator's webhook certificates need it), the CRDs, the operator,
then the ``slurm`` chart, whose templates are the Controller, NodeSet, LoginSet, RestApi and Accounting custom
resources. The CRDs release is ``retain_on_delete``: its templates have no keep policy, so uninstalling it
would delete every Slurm cluster with them. Namespaces are kept too.
"""

from typing import Any

import pulumi
from pulumi_kubernetes.helm.v3.outputs import ReleaseStatus

from gpu_platform.addons.cert_manager.component import CertManager
from gpu_platform.addons.slurm.plan import SlurmPlan, slurm_cluster_plan
from gpu_platform.addons.slurm.settings import SlurmClusterArgs
from gpu_platform.component import PlannedComponent
from gpu_platform.helm_release import helm_namespace, helm_release
from gpu_platform.releases import CERT_MANAGER, SLURM, SLURM_OPERATOR, SLURM_OPERATOR_CRDS


class SlurmCluster(PlannedComponent[SlurmPlan]):
    """A Slurm cluster: one NodeSet (and partition) per Slurm pool, a login set, optional accounting."""

    _type_token = "gpu-platform:index:SlurmCluster"

    nodesets: pulumi.Output[dict[str, Any]]
    """Pool -> ``{"nodeSet", "partition", "gres", "gpus"}``: what ``srun --partition``/``--gres`` name."""
    namespace: pulumi.Output[str]
    """The Slurm cluster's namespace (``kubectl -n <it> exec`` into the login pod)."""
    status: pulumi.Output[ReleaseStatus]
    """The ``slurm`` release's status."""

    def __init__(self, name: str, args: SlurmClusterArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        """Check ``args`` (every problem at once; nothing is created on one), then create it. Slurm (Slinky)
        with one NodeSet per GPU pool it owns."""
        self._start(name, slurm_cluster_plan(args), opts)

    def _create(self, name: str, plan: SlurmPlan) -> dict[str, Any]:
        deps = self._dependencies
        before = list(deps)
        if plan.cert_manager is not None:
            before.append(
                CertManager.from_plan(
                    f"{name}-{CERT_MANAGER.component_name}",
                    plan.cert_manager,
                    self.child_opts(depends_on=deps),
                )
            )
        operator_ns = helm_namespace(
            self, f"{name}-operator-namespace", plan.operator_namespace, depends_on=deps
        )
        crds = helm_release(
            self,
            f"{name}-crds",
            SLURM_OPERATOR_CRDS.pin,
            SLURM_OPERATOR_CRDS.release_name,
            plan.operator_namespace,
            depends_on=[operator_ns, *deps],
            retain_on_delete=SLURM_OPERATOR_CRDS.release_holds_crds,
            mirror=plan.mirror,
        )
        operator = helm_release(
            self,
            f"{name}-operator",
            SLURM_OPERATOR.pin,
            SLURM_OPERATOR.release_name,
            plan.operator_namespace,
            values=plan.operator_values,
            # The webhook's Certificate and Issuer are cert-manager kinds; the operator reconciles Slinky's CRDs.
            depends_on=[operator_ns, crds, *before],
            mirror=plan.mirror,
        )
        ns = helm_namespace(self, f"{name}-namespace", plan.namespace, depends_on=deps)
        slurm = helm_release(
            self,
            f"{name}-helm",
            SLURM.pin,
            SLURM.release_name,
            plan.namespace,
            values=plan.slurm_values,
            secret=plan.secret_values,
            # Its templates are Slinky custom resources, validated by the operator's webhook.
            depends_on=[ns, crds, operator],
            mirror=plan.mirror,
        )
        self.nodesets = pulumi.Output.from_input(dict(plan.nodesets))
        self.namespace = pulumi.Output.from_input(plan.namespace)
        self.status = slurm.status
        return {"nodesets": self.nodesets, "namespace": self.namespace, "status": self.status}
