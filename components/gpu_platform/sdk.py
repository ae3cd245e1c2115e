"""Cloud SDKs are optional: ``pip install 'gpu-platform[gke]'`` (or ``[eks]``, ``[aks]``, ``[all]``).

The base install is Pulumi, pulumi-kubernetes and small pure-Python packages; each cloud's Pulumi SDK
(hundreds of MB each) comes with its extra, and so does the policy SDK (``[policy]``). Code that needs
one calls :func:`require` where it first imports it, so a missing extra is one line naming what to
install::

    GkeCluster needs the Google Cloud SDK (pulumi-gcp): pip install 'gpu-platform[gke]'

and ``gpu-platform plan`` turns :class:`MissingExtraError` into exit 2 with that line.
"""

import importlib
from dataclasses import dataclass
from types import ModuleType

__all__ = ["POLICY", "Extra", "MissingExtraError", "require"]


@dataclass(frozen=True)
class Extra:
    """An optional dependency group of the package."""

    name: str
    """The extra: ``pip install 'gpu-platform[<name>]'``."""
    module: str
    """Top-level module of the SDK it brings."""
    distribution: str
    """The SDK's name on PyPI."""
    what: str
    """How a person calls it."""


POLICY = Extra("policy", "pulumi_policy", "pulumi-policy", "the Pulumi policy SDK")
"""The policy pack's SDK. Each cloud's extra is on its profile (``gpu_platform.cloud_facts.EXTRAS`` lists all)."""


class MissingExtraError(ModuleNotFoundError):
    """A component needs a cloud SDK that is not installed. ``str(err)`` is one line naming the extra."""

    def __init__(self, who: str, extra: Extra):
        self.who = who
        self.extra = extra
        super().__init__(
            f"{who} needs {extra.what} ({extra.distribution}): pip install 'gpu-platform[{extra.name}]'",
            name=extra.module,
        )


def _who(by: object) -> str:
    if isinstance(by, str):
        return by
    cls = by if isinstance(by, type) else type(by)
    return cls.__name__


def require(extra: Extra, by: object = "gpu-platform") -> ModuleType:
    """Import the SDK ``extra`` brings (a cloud profile's ``extra``, or ``POLICY``) and return its module.

    ``by`` names who needs it in the message: a component (or its class), or a phrase. Raises
    :class:`MissingExtraError` when the SDK is not installed; any other import failure inside an
    installed SDK propagates unchanged.
    """
    spec = extra
    try:
        return importlib.import_module(spec.module)
    except ModuleNotFoundError as exc:
        if exc.name != spec.module:
            raise
        raise MissingExtraError(_who(by), spec) from None
