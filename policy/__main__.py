"""gpu-platform policy pack: `pulumi preview --policy-pack policy` (run from the repository root).

The rules are the library's (``gpu_platform.policy.rules``), so this pack and
``gpu-platform plan --policy`` enforce exactly the same guard rails. Constructing ``PolicyPack``
starts the analyzer's gRPC server, which is why it happens only here.
"""

import sys
from pathlib import Path

_COMPONENTS = Path(__file__).resolve().parent.parent / "components"
if _COMPONENTS.is_dir() and str(_COMPONENTS) not in sys.path:
    sys.path.insert(0, str(_COMPONENTS))

from pulumi_policy import EnforcementLevel, PolicyPack  # noqa: E402

from gpu_platform.policy.pack import build_policies  # noqa: E402

PolicyPack(
    name="gpu-platform",
    description="Guard rails for GPU node pools, the GPU Operator and GPU workloads on GKE, EKS and AKS.",
    enforcement_level=EnforcementLevel.MANDATORY,
    policies=build_policies(),
)
