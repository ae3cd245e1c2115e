"""OpenShift: a cluster made elsewhere (GPU nodes from MachineSets, declared as pools) whose NVIDIA GPU Operator
comes from OLM, not Helm. On RHCOS the operator builds the driver with the OpenShift Driver Toolkit, so the
driver is always the operator's."""

from __future__ import annotations

from gpu_platform.catalog.drivers import DriverVersion
from gpu_platform.cloud import CloudProfile
from gpu_platform.driver import DriverPlan, DriverPlanError


class OpenShiftProfile(CloudProfile):
    name = "openshift"
    display = "OpenShift"
    article = "an"
    stack_module = "gpu_platform.clouds.openshift.stack"
    gpu_operator_installer = "gpu_platform.clouds.openshift.olm"
    creates_nodes = False

    @classmethod
    def plan_driver(
        cls, image: str | None, owner: str, operator: DriverVersion, host: DriverVersion | None
    ) -> DriverPlan:
        if owner == "cloud":
            raise DriverPlanError(
                "RHCOS nodes get the driver from the GPU Operator (Driver Toolkit images); use owner 'operator' "
                "(or 'auto')"
            )
        return DriverPlan("operator", "operator", "operator", operator)


PROFILE = OpenShiftProfile()
