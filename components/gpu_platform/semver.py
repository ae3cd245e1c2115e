"""The library's PEP 440 version as semver, which Pulumi requires of a package schema's and a policy pack's
``version`` (``0.2.1.dev0`` is not semver; ``0.2.1-dev.0`` is).

pulumi/pulumi ``pkg/codegen/schema/schema.go``, ``PackageSpec.Version``: "The version must be valid semver";
semver (semver.org, item 9) puts pre-release parts after a ``-``, separated by dots.
"""

import re

PEP440 = re.compile(r"^(?P<release>\d+(?:\.\d+)*)(?:(?P<pre>a|b|rc)(?P<pre_n>\d+))?(?:\.dev(?P<dev>\d+))?$")
"""The public versions this project uses (pyproject.toml): ``X.Y.Z``, ``X.Y.ZrcN``, ``X.Y.Z.devN``."""
_PRE_LABELS = {"a": "alpha", "b": "beta", "rc": "rc"}


def semver(version: str) -> str:
    """``0.2.0.dev3`` -> ``0.2.0-dev.3``, ``1.0.0rc1`` -> ``1.0.0-rc.1``, ``1.2`` -> ``1.2.0``; a local ``+...``
    part is dropped, and a version of another shape is returned as it is."""
    public = version.split("+")[0]
    m = PEP440.match(public)
    if m is None:
        return public
    core = ".".join([*m["release"].split("."), "0", "0"][:3])
    suffix = []
    if m["pre"] is not None:
        suffix.append(f"{_PRE_LABELS[m['pre']]}.{m['pre_n']}")
    if m["dev"] is not None:
        suffix.append(f"dev.{m['dev']}")
    return core + ("-" + ".".join(suffix) if suffix else "")
