"""A cluster made elsewhere: nothing is known about its nodes, so pools declare their GPUs and the driver's
owner, and nothing is created but the add-ons."""

from __future__ import annotations

from gpu_platform.catalog.drivers import DriverVersion
from gpu_platform.cloud_facts.profile import CloudProfile
from gpu_platform.driver import DriverPlan, DriverPlanError


class ExistingProfile(CloudProfile):
    name = "existing"
    display = "EXISTING"
    creates_nodes = False

    @classmethod
    def plan_driver(
        cls, image: str | None, owner: str, operator: DriverVersion, host: DriverVersion | None
    ) -> DriverPlan:
        # Nothing is known about the nodes' images: the owner must be declared.
        if owner == "auto":
            raise DriverPlanError(
                "an existing cluster must declare who owns the driver: 'operator' or 'cloud' (preinstalled)"
            )
        if owner == "cloud":
            if host is None:
                raise DriverPlanError("owner 'cloud' on an existing cluster needs {{driver.host_version}}")
            return DriverPlan("cloud", "cloud", "operator", host)
        return DriverPlan("operator", "operator", "operator", operator)


PROFILE = ExistingProfile()
