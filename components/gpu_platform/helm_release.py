"""The Namespace and the pinned Helm release every operator component creates, written once.

Each component passes what is its own (resource names, labels, ordering, what is kept on delete); the
chart, version and repository always come from the add-on's ``ChartPin``, and a mirror (``mirror``), when one is
set, is applied here to the chart and to every image of the values, so no release can miss it. Arguments left
``None`` are not passed on at all, so each resource keeps exactly the inputs and options it had when written out
by hand.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pulumi
import pulumi_kubernetes as k8s

from gpu_platform.component import PlannedComponent
from gpu_platform.mirror import NO_MIRROR, Mirror
from gpu_platform.plans.mirror import mirrored_values
from gpu_platform.releases import chart_name
from gpu_platform.versions import ChartPin


def _opts(owner: PlannedComponent[Any], depends_on: Sequence[Any] | None, retain: bool | None) -> Any:
    kwargs: dict[str, Any] = {}
    if depends_on is not None:
        kwargs["depends_on"] = list(depends_on)
    if retain is not None:
        kwargs["retain_on_delete"] = retain
    return owner.child_opts(**kwargs)


def helm_namespace(
    owner: PlannedComponent[Any],
    resource_name: str,
    namespace: str,
    labels: Mapping[str, str] | None = None,
    depends_on: Sequence[Any] | None = None,
) -> Any:
    """The release's namespace, kept when the component goes (with everything in it)."""
    metadata: Any = {"name": namespace}
    if labels is not None:
        metadata["labels"] = labels
    return k8s.core.v1.Namespace(resource_name, metadata=metadata, opts=_opts(owner, depends_on, True))


def helm_release(
    owner: PlannedComponent[Any],
    resource_name: str,
    pin: ChartPin,
    release_name: str,
    namespace: Any,
    *,
    values: Any = None,
    secret: bool = False,
    version: str | None = None,
    create_namespace: bool | None = False,
    skip_crds: bool | None = None,
    depends_on: Sequence[Any] | None = None,
    retain_on_delete: bool | None = None,
    mirror: Mirror | None = None,
) -> Any:
    """One pinned release; ``secret``: the values hold a secret and are stored encrypted; ``mirror``: the chart
    and its images come from the mirror."""
    chart, repo = (mirror or NO_MIRROR).chart(pin.chart, pin.repo)
    args: dict[str, Any] = {"name": release_name, "chart": chart, "version": version or pin.version}
    if repo:
        args["repository_opts"] = k8s.helm.v3.RepositoryOptsArgs(repo=repo)
    args["namespace"] = namespace
    if create_namespace is not None:
        args["create_namespace"] = create_namespace
    if skip_crds is not None:
        args["skip_crds"] = skip_crds
    if values is not None:
        values = mirrored_values(chart_name(pin.chart), values, mirror)
        args["values"] = pulumi.Output.secret(values) if secret else values
    return k8s.helm.v3.Release(
        resource_name, k8s.helm.v3.ReleaseArgs(**args), opts=_opts(owner, depends_on, retain_on_delete)
    )
