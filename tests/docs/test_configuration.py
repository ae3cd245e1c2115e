"""The annotated example in docs/configuration.md is a valid stack config (docs cannot drift)."""

from __future__ import annotations

import re

import yaml

from gpu_platform.sharing import advertised_resources
from gpu_platform.stack import load_platform
from tests.conftest import REPO


def test_configuration_doc_example_is_valid() -> None:
    text = (REPO / "docs" / "configuration.md").read_text()
    block = re.search(r"```yaml\n(.*?)```", text, re.S)
    assert block is not None
    doc = yaml.safe_load(block.group(1))["config"]
    raw = {k.split(":", 1)[1]: v for k, v in doc.items() if k.startswith("gpu-platform:")}
    spec = load_platform(raw)
    inference = next(p for p in spec.pools if p.name == "h100-inference")
    assert advertised_resources(inference) == {
        "nvidia.com/mig-1g.10gb": 16,
        "nvidia.com/mig-2g.20gb": 8,
        "nvidia.com/mig-3g.40gb": 8,
    }
