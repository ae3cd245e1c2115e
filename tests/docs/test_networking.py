"""docs/networking.md: every manifest it shows is accepted by the CRD at its pin, and the levels its jobs name
are the levels of the Topology the library writes for that cloud."""

from __future__ import annotations

import re
from typing import Any

import pytest
import yaml

from gpu_platform.catalog.topology import HOST_TOPOLOGY
from gpu_platform.cloud_facts.eks.topology import EC2_TOPOLOGY
from gpu_platform.cloud_facts.gke.topology import GCE_TOPOLOGY
from tests.conftest import REPO
from tests.support import crds

DOC = REPO / "docs" / "networking.md"
BLOCK = re.compile(r"```yaml\n(.*?)```", re.S)
TAS = re.compile(r"kueue\.x-k8s\.io/podset-(?:required|preferred)-topology: (\S+)")


def _manifests() -> list[dict[str, Any]]:
    out = []
    for block in BLOCK.findall(DOC.read_text()):
        out += [d for d in yaml.safe_load_all(block) if d]
    return out


@pytest.mark.parametrize("obj", _manifests(), ids=lambda o: f"{o['kind']}-{o['metadata']['name']}")
def test_manifest_validates_against_its_crd(obj: dict[str, Any]) -> None:
    assert crds.problems_of(obj) == []


def test_the_doc_shows_the_objects_and_both_job_kinds() -> None:
    assert {o["kind"] for o in _manifests()} == {"Topology", "ResourceFlavor", "JobSet", "TrainJob"}


def test_every_level_a_job_names_is_a_level_the_library_writes() -> None:
    levels = {lvl for t in (GCE_TOPOLOGY, EC2_TOPOLOGY, HOST_TOPOLOGY) for lvl in t.levels}
    named = [level for block in BLOCK.findall(DOC.read_text()) for level in TAS.findall(block)]
    assert named and set(named) <= levels
    (topology,) = [o for o in _manifests() if o["kind"] == "Topology"]
    assert [lvl["nodeLabel"] for lvl in topology["spec"]["levels"]] == list(GCE_TOPOLOGY.levels)
