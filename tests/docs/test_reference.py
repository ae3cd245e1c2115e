"""docs/reference.md is generated from the components' argument types: it cannot drift from the code."""

import json
import re
from pathlib import Path

import pytest

from gpu_platform import _COMPONENTS
from tests.conftest import REPO
from tests.support.scripts import load_script

SCRIPT = REPO / "scripts" / "gen_reference.py"


gen_reference = load_script(SCRIPT, "gen_reference")


def test_reference_doc_is_up_to_date() -> None:
    text = (REPO / "docs" / "reference.md").read_text()
    assert text == gen_reference.render(), "docs/reference.md is stale: run python scripts/gen_reference.py"


def test_reference_doc_documents_every_component_input_and_output() -> None:
    text = gen_reference.render()
    for name in _COMPONENTS:
        assert f"\n## {name}\n" in text and f"`gpu-platform:index:{name}`" in text
    # An inherited argument keeps its docstring; snake_case and camelCase names side by side.
    assert "| `pool` | `pool` | [GpuPoolArgs](#gpupoolargs) | **yes** | The pool, exactly as" in text
    assert "| `max_nodes` | `maxNodes` | integer | **yes** |" in text
    assert "| `time-slicing` | Replicas of each GPU, scheduled in turns" in text
    assert "| `node_pool_name` | `nodePoolName` | string | Name of the cloud's node pool" in text


def test_defaults_are_shown_as_their_values_not_as_constant_names() -> None:
    """A reader of the reference cannot look up ``versions.CERT_MANAGER.namespace``: the page shows the value."""
    from gpu_platform import versions
    from gpu_platform.addons.kueue.settings import DEFAULT_INTEGRATIONS
    from gpu_platform.args.cluster import DEFAULT_VPC_CIDR

    text = gen_reference.render()
    assert re.findall(r"``(versions\.[A-Za-z_.]+|DEFAULT_[A-Z0-9_]+)``", text) == [
        "versions.CLUSTER_AUTOSCALER_IMAGE_TAGS"  # a table to look at, not a default
    ]
    assert f"Namespace of the release; default ``{versions.CERT_MANAGER.namespace}``." in text
    assert f"(default ``{versions.GPU_OPERATOR.version}``)" in text
    assert f"default ``{DEFAULT_VPC_CIDR}``:" in text
    assert f"default ``{json.dumps(list(DEFAULT_INTEGRATIONS))}``" in text


def test_check_mode_reports_a_stale_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    stale = tmp_path / "reference.md"
    stale.write_text("# old\n")
    monkeypatch.setattr(gen_reference, "OUT", stale)
    monkeypatch.setattr(gen_reference, "REPO", tmp_path)
    assert gen_reference.main(["--check"]) == 1
    assert gen_reference.main([]) == 0
    assert gen_reference.main(["--check"]) == 0
