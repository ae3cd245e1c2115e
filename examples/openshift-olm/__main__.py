"""A platform repo that runs the library's own stack program on OpenShift, plus the GPU MachineSets.

The stack file declares the pools (GPU model, GPUs and allocatable per node) and the library plans the GPU
Operator (OLM), Kueue quotas and KServe from them. ``OpenShiftGpuMachineSet`` then makes the nodes of each
pool listed under ``machineSets``: one MachineSet per zone with the pool's taint and labels, from the same
pool entry, so the nodes and the quotas cannot disagree.
"""

import re
from typing import Any

import pulumi

from gpu_platform import OpenShiftGpuMachineSet
from gpu_platform.stack import main


def snake(value: Any) -> Any:
    """The stack file's camelCase keys as the components' snake_case ones."""
    if isinstance(value, dict):
        return {re.sub(r"(?<!^)(?=[A-Z])", "_", k).lower(): snake(v) for k, v in value.items()}
    if isinstance(value, list):
        return [snake(v) for v in value]
    return value


main()

pools = {p["name"]: snake(p) for p in pulumi.Config("gpu-platform").require_object("gpuPools")}
config = pulumi.Config()
infrastructure_id = config.require("infrastructureId")
platform = config.require("platform")
worker_provider_spec = config.require_object("workerProviderSpec")
for pool_name, machine in config.require_object("machineSets").items():
    OpenShiftGpuMachineSet(
        f"{pool_name}-machines",
        {
            "pool": pools[pool_name],
            "infrastructure_id": infrastructure_id,
            "platform": platform,
            "instance_type": machine["instanceType"],
            "zones": machine["zones"],
            "provider_spec": worker_provider_spec,
            "zone_provider_specs": machine.get("zoneProviderSpecs", {}),
        },
    )
