"""The shape every gpu-platform component has: a pure plan, then a constructor that only creates.

``X(name, args)`` runs ``x_plan(args)`` or ``x_plan(resolve_x(args))`` (every check, every problem at
once, nothing registered on a problem) and then ``_create``; the stack layer, which has resolved
everything already, calls ``X.from_plan(name, plan)``. The plan stays readable afterwards as
``component.plan``: labels, taints and tolerations known at plan time are plain values there, not only
Outputs. A provider in the ``opts`` a component is given must be a provider resource: anything else is
refused with the component's name, where Pulumi would drop it silently.
"""

from __future__ import annotations

import abc
import functools
from collections.abc import Mapping
from typing import Any, ClassVar, Generic, Self, TypeVar

import pulumi

from gpu_platform.errors import ArgumentsError

P = TypeVar("P")


class PlannedComponent(pulumi.ComponentResource, Generic[P]):
    """Base of the library's components (not a component itself)."""

    _type_token: ClassVar[str]
    _plan: P
    _dependencies: list[Any]
    """The component's own ``depends_on``, for children that must wait for the same things."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """Wrap each component's constructor so bad arguments name the component and its resource name:
        the checks run in plan functions that know neither."""
        super().__init_subclass__(**kwargs)
        init = cls.__dict__.get("__init__")
        if init is None:
            return

        @functools.wraps(init)
        def checked_init(self: Any, name: str, *args: Any, **kw: Any) -> None:
            try:
                init(self, name, *args, **kw)
            except ArgumentsError as exc:
                if exc.component:
                    raise
                raise exc.for_component(cls.__name__, name) from None

        type.__setattr__(cls, "__init__", checked_init)

    def _start(self, name: str, plan: P, opts: pulumi.ResourceOptions | None) -> None:
        refused = provider_problems(opts)
        if refused:
            raise ArgumentsError(refused).for_component(type(self).__name__, name)
        super().__init__(self._type_token, name, None, opts)
        self._plan = plan
        self._dependencies = inherited_dependencies(opts)
        self.register_outputs(self._create(name, plan))

    @abc.abstractmethod
    def _create(self, name: str, plan: P) -> dict[str, Any]:
        """Create the children from the plan; return the outputs to register."""

    @property
    def plan(self) -> P:
        """Everything decided at plan time, as plain values."""
        return self._plan

    @classmethod
    def from_plan(cls, name: str, plan: P, opts: pulumi.ResourceOptions | None = None) -> Self:
        """Build from an already-made plan (the stack layer resolves everything once, up front)."""
        obj = cls.__new__(cls)
        obj._start(name, plan, opts)
        return obj

    def child_opts(self, **kwargs: Any) -> pulumi.ResourceOptions:
        """Options of a child: parented here, plus ``kwargs``."""
        return pulumi.ResourceOptions(parent=self, **kwargs)


def inherited_dependencies(opts: pulumi.ResourceOptions | None) -> list[Any]:
    """The ``depends_on`` of a component's options, for its children: a component's ``depends_on`` is not
    inherited by its children, so a release inside it would otherwise start too early."""
    deps = opts.depends_on if opts is not None else None
    if deps is None:
        return []
    return list(deps) if isinstance(deps, (list, tuple)) else [deps]


def provider_problems(opts: pulumi.ResourceOptions | None) -> list[tuple[str, str]]:
    """``(option, reason)`` for each ``opts.provider``/``opts.providers`` entry that is not a provider resource.

    Pulumi matches a provider to a resource by its ``package`` (``Resource._get_providers`` in pulumi/pulumi
    ``sdk/python/lib/pulumi/resource.py``); an Output's ``package`` is an Output, which never matches, so the
    provider is dropped without a word and the Kubernetes objects go to the ambient kubeconfig's cluster."""
    if opts is None:
        return []
    found = [("opts.provider", opts.provider)] if opts.provider is not None else []
    providers = opts.providers
    if isinstance(providers, Mapping):
        found += [(f"opts.providers[{key!r}]", value) for key, value in providers.items()]
    elif providers is not None:
        found += [(f"opts.providers[{i}]", value) for i, value in enumerate(providers)]
    return [
        (where, _not_a_provider(value))
        for where, value in found
        if not isinstance(value, pulumi.ProviderResource)
    ]


def _not_a_provider(value: Any) -> str:
    fix = "pass the provider resource itself (a cluster component's kubernetes_provider, a pulumi_kubernetes.Provider)"
    if isinstance(value, pulumi.Output):
        return f"an Output is not a provider: Pulumi would ignore it and use the default provider; {fix}"
    if isinstance(value, pulumi.Resource):
        return f"a {type(value).__name__} resource is not a provider; {fix}"
    return f"{type(value).__name__} is not a provider; {fix}"
