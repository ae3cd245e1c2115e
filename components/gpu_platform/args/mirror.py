"""Where a cluster without internet access gets the library's charts and images: the ``mirror`` setting.

No ``from __future__ import annotations``: Pulumi's component analyzer needs real annotations.
"""

from typing import NotRequired

from pydantic import with_config
from typing_extensions import TypedDict

from gpu_platform.args.validate import ARGS_CONFIG


@with_config(ARGS_CONFIG)
class MirrorArgs(TypedDict):
    """A mirror of every chart and image the library installs (docs/adopting.md, "Behind a mirror");
    ``gpu-platform mirror`` lists what it must hold."""

    charts: NotRequired[str]
    """``oci://registry.acme/helm``: each chart from ``oci://registry.acme/helm/<chart>``; or an HTTP(S) Helm
    repository holding every chart (``https://charts.acme/gpu``). Default: each chart's upstream repository."""
    images: NotRequired[str]
    """Registry host and optional path (``registry.acme/mirror``) that replaces every image's registry host:
    ``nvcr.io/nvidia/gpu-operator:v26.7.0`` is pulled as ``registry.acme/mirror/nvidia/gpu-operator:v26.7.0``
    (Docker Hub names as ``library/<name>``). Default: each image's upstream registry."""
