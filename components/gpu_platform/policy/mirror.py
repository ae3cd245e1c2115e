"""What the ``mirror-required`` rule reads: where each Helm release's chart and each image of a resource come from.

Any Pulumi program's resources: a Helm release's chart (an ``oci://`` reference, or a name and
``repositoryOpts.repo``), the images its values name (the slots ``releases.CHART_IMAGES`` knows for the charts
the library pins, the containers the values add for any chart), and every container of a Kubernetes object,
with NVIDIA's custom resources' ``repository``. Images a node holds already (``imagePullPolicy: Never``) are
never pulled, so they pass. The mirror itself is the rule's configuration
(``pulumi preview --policy-pack-config``), never the program's.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from gpu_platform.mirror import Mirror
from gpu_platform.plans.mirror import chart_images, object_images
from gpu_platform.policy.operators import HELM_TYPES, chart_name
from gpu_platform.policy_model.model import PolicyResource, as_map, is_unknown
from gpu_platform.releases import CHART_IMAGES

MIRROR_CONFIG_SCHEMA: dict[str, Any] = {
    "charts": {
        "type": "string",
        "description": "oci://<registry>/<path> or https://<Helm repository>: every Helm chart comes from it",
    },
    "images": {
        "type": "string",
        "description": "<registry>[/<path>]: every image is pulled from it (e.g. registry.acme/mirror)",
    },
}
"""The rule's configuration (Pulumi policy config schema properties); neither set: the rule checks nothing."""


def configured_mirror(config: Mapping[str, Any] | None) -> Mirror:
    """The mirror the rule requires (each part ``None`` when not asked for)."""
    config = config or {}
    charts, images = config.get("charts"), config.get("images")
    return Mirror(
        str(charts).rstrip("/") if charts else None,
        str(images).rstrip("/") if images else None,
    )


def _local_chart(chart: str) -> bool:
    return chart.startswith((".", "/", "file://")) or chart.endswith(".tgz")


def chart_problem(res: PolicyResource, mirror: Mirror) -> str | None:
    """Why the release's chart does not come from ``mirror.charts`` (``None``: it does, or cannot tell)."""
    chart, repo = res.props.get("chart"), as_map(res.props.get("repositoryOpts")).get("repo")
    if mirror.charts is None or not isinstance(chart, str) or is_unknown(repo) or _local_chart(chart):
        return None
    if mirror.oci_charts:
        if chart.startswith(f"{mirror.charts}/"):
            return None
        where = chart if chart.startswith("oci://") else f"'{chart}' from {repo or 'a local Helm repository'}"
        return f"chart {where} is not pulled from the chart mirror: use {mirror.charts}/{chart_name(chart)}"
    if isinstance(repo, str) and repo.rstrip("/") == mirror.charts and not chart.startswith("oci://"):
        return None
    where = chart if chart.startswith("oci://") else f"'{chart}' from {repo or 'a local Helm repository'}"
    return f"chart {where} is not pulled from the chart mirror: use chart '{chart_name(chart)}' from {mirror.charts}"


def resource_images(res: PolicyResource) -> list[str]:
    """The images a resource makes the cluster pull: a release's (its chart's slots and added containers),
    any Kubernetes object's containers."""
    if res.type in HELM_TYPES:
        values = res.props.get("values")
        if not isinstance(values, Mapping):
            return []
        name = chart_name(res.props.get("chart")) or ""
        slots = chart_images(name, values) if name in CHART_IMAGES else []
        return [i.reference for i in [*slots, *object_images(values)]]
    if res.type.startswith("kubernetes:"):
        return [i.reference for i in object_images(res.props)]
    return []


def image_problems(res: PolicyResource, mirror: Mirror) -> list[str]:
    """One line per image of ``res`` not pulled from ``mirror.images``."""
    if mirror.images is None:
        return []
    seen: list[str] = []
    for image in resource_images(res):
        if not mirror.owns(image) and image not in seen:
            seen.append(image)
    return [
        f"image {image} is not pulled from the image mirror: use {mirror.image(image)} (the mirror's copy)"
        for image in seen
    ]
