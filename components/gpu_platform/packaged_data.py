"""The files the package ships in ``gpu_platform/data/``, read and parsed once per process.

Plans read the same upstream manifests for several purposes (Google's COS installer is both deployed and
counted in Kueue's quota), so each file is parsed once, with libyaml when PyYAML was built with it (about
ten times faster than the pure-Python parser on these files), and every caller gets its own copy to edit.
"""

import copy
from functools import cache
from importlib import resources
from typing import Any

import yaml

_LOADER: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def parse_yaml(text: str) -> Any:
    """One YAML document as Python values (YAML's safe subset)."""
    return yaml.load(text, Loader=_LOADER)


@cache
def packaged_text(file: str) -> str:
    """``gpu_platform/data/<file>`` as text."""
    return resources.files("gpu_platform").joinpath("data", file).read_text()


@cache
def _parsed(file: str) -> Any:
    return parse_yaml(packaged_text(file))


def packaged_yaml(file: str) -> Any:
    """``gpu_platform/data/<file>`` parsed: a fresh copy the caller may change."""
    return copy.deepcopy(_parsed(file))
