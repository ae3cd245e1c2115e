"""KServe in the stack: cert-manager (the stack's), KServe, then one ``GpuInferenceService`` per service, each
after the GPU Operator (GPU pods need the device plugin) and its own Kueue queue and priority class."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pulumi

from gpu_platform.addons.cert_manager.wiring import install_cert_manager
from gpu_platform.addons.kserve.plan import kserve_plan
from gpu_platform.addons.kserve.service_plan import inference_service_plan
from gpu_platform.releases import KSERVE_RESOURCES

if TYPE_CHECKING:
    from gpu_platform.addons.deployment import Deployment
    from gpu_platform.addons.platform_spec import PlatformSpec


def enabled(spec: PlatformSpec) -> bool:
    return spec.kserve is not None


def deploy(d: Deployment) -> dict[str, Any]:
    return deploy_kserve(
        d.spec,
        d.opts,
        d.after("gpu_operator"),
        d.namespaces,
        d.created.get("kueue"),
        d.created.get("cert_manager"),
        d.created,
    )


def deploy_kserve(
    spec: PlatformSpec,
    opts: pulumi.ResourceOptions,
    depends_on: list[Any],
    namespaces: dict[str, Any] | None = None,
    kueue: Any = None,
    cert_manager: Any = None,
    created: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """cert-manager, KServe and one ``GpuInferenceService`` per service; returns the stack outputs.

    ``cert_manager``: the stack's (else, when KServe installs it, it is created here). ``depends_on`` (the GPU
    Operator) orders the inference services after what their pods need on the nodes; of ``kueue``, each service
    waits for its own LocalQueue and priority class only (``Kueue.needed_by``); ``namespaces`` are the stack's;
    ``created`` (the stack's components by add-on) records the KServe component.
    """
    from gpu_platform.addons.kserve.component import KServe
    from gpu_platform.addons.kserve.service import GpuInferenceService

    ks = spec.kserve
    assert ks is not None
    before = []
    if ks.install_cert_manager:
        before = [cert_manager if cert_manager is not None else install_cert_manager(opts, spec.mirror)]
    merged = pulumi.ResourceOptions.merge(opts, pulumi.ResourceOptions(depends_on=before))
    secret = "kserve" in spec.secret_sections
    plan = kserve_plan({**ks.settings, "secret_values": secret, "mirror": spec.mirror})
    server = KServe.from_plan(KSERVE_RESOURCES.component_name, plan, merged)
    if created is not None:  # what is deployed after KServe waits for it (serving's controller)
        created["kserve"] = server
    namespaces = namespaces or {}
    services: dict[str, Any] = {}
    mode = ks.settings.get("deployment_mode", "Standard")
    for svc, request in ks.services:
        deps = [
            server,
            *depends_on,
            *(kueue.needed_by(request.namespace, request.queue, request.priority_class) if kueue else []),
            *([namespaces[request.namespace]] if request.namespace in namespaces else []),
        ]
        # Namespaces and service names never contain '.', so "<namespace>.<name>" cannot collide.
        GpuInferenceService.from_plan(
            f"{request.namespace}.{request.name}",
            inference_service_plan(request, svc, mode),
            pulumi.ResourceOptions.merge(opts, pulumi.ResourceOptions(depends_on=deps)),
        )
        services[f"{request.namespace}/{request.name}"] = {
            "pool": request.pool.name,
            "resource": request.resource,
            "units": request.units,
            # The share of each GPU's memory its server takes (a shared pool's default), for reviewers.
            **({"gpuMemoryUtilization": fraction} if (fraction := request.gpu_memory.fraction) else {}),
        }
    outputs: dict[str, Any] = {"certManagerStatus": before[0].status} if before else {}
    return {
        **outputs,
        "kserveStatus": server.status,
        "kserveDeploymentMode": mode,
        "inferenceServices": services,
    }
