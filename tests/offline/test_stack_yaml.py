"""The stack file read as the Pulumi CLI reads it (Go yaml.v3 rules), and bounded before it is read."""

from __future__ import annotations

import json
import math
import time
from pathlib import Path
from typing import Any

import pytest

from gpu_platform.cli import main
from gpu_platform.offline.errors import PlanInputError
from gpu_platform.offline.stack_file import engine_config, read_config_file
from gpu_platform.offline.stack_yaml import MAX_BYTES, MAX_DEPTH, MAX_VALUES, parse, resolve_plain
from tests.conftest import REPO

FIXTURE = REPO / "tests" / "fixtures" / "existing-minimal"
PATH = Path("Pulumi.dev.yaml")

# plain scalar -> what yaml.v3 decodes, as the JSON Pulumi hands the program reads back in Python.
PULUMI_MEANS: list[tuple[str, Any]] = [
    ("1:30", "1:30"),  # YAML 1.1 sexagesimal (PyYAML: 90)
    ("y", "y"),
    ("Y", "Y"),
    ("yes", "yes"),
    ("Yes", "Yes"),
    ("on", "on"),
    ("off", "off"),
    ("no", "no"),
    ("n", "n"),
    ("true", True),
    ("True", True),
    ("FALSE", False),
    ("010", 8),  # a leading 0 is octal in yaml.v3 (strconv.ParseInt base 0)
    ("017", 15),
    ("0o17", 15),  # YAML 1.2 octal (PyYAML: a string)
    ("-0o17", -15),
    ("0x1F", 31),
    ("0b101", 5),
    ("08", 8),  # not octal: read as the float 8, written to JSON as 8
    ("1e3", 1000),  # YAML 1.2 float (PyYAML: a string); Go's JSON writes 1000
    ("1.5", 1.5),
    ("1_000", 1000),
    ("1.", 1),
    (".5", 0.5),
    ("~", None),
    ("null", None),
    ("Null", None),
    ("", None),
    ("nul", "nul"),
    ("2024-01-02", "2024-01-02T00:00:00Z"),  # a time, which Go's JSON writes RFC 3339
    ("12.10", 12.1),
    ("v1.2", "v1.2"),
    ("+1", 1),
    ("-", "-"),
    (".inf", math.inf),
    ("-.Inf", -math.inf),
]


@pytest.mark.parametrize(("text", "value"), PULUMI_MEANS, ids=[t or "empty" for t, _ in PULUMI_MEANS])
def test_plain_scalars_mean_what_pulumi_means(text: str, value: Any) -> None:
    got = resolve_plain(text)
    assert got == value and type(got) is type(value)


def test_nested_values_reach_the_program_as_pulumi_hands_them(tmp_path: Path) -> None:
    stack = tmp_path / "Pulumi.dev.yaml"
    stack.write_text(
        "config:\n"
        "  gpu-platform:cudaVersion: 12.10\n"
        "  gpu-platform:timeout: 1:30\n"
        "  gpu-platform:kueue:\n"
        "    timeout: 1:30\n"
        "    flags: [y, yes, on, no, 'true', true]\n"
        "    mode: 010\n"
        "    quoted: '010'\n"
        "    scale: 1e3\n"
        "    empty: ~\n"
    )
    config, secrets = read_config_file("p", stack)
    assert secrets == []
    assert config["gpu-platform:cudaVersion"] == "12.10"  # top-level scalars: the text as written
    assert config["gpu-platform:timeout"] == "1:30"
    assert json.loads(config["gpu-platform:kueue"]) == {
        "timeout": "1:30",
        "flags": ["y", "yes", "on", "no", "true", True],
        "mode": 8,
        "quoted": "010",
        "scale": 1000,
        "empty": None,
    }


def test_quoted_block_and_tagged_scalars_are_text() -> None:
    doc = parse("a: '1:30'\nb: \"yes\"\nc: |\n  on\nd: !!str 017\ne: !Ref x\n", PATH).doc
    assert doc == {"a": "1:30", "b": "yes", "c": "on\n", "d": "017", "e": "x"}


def test_anchors_aliases_and_merge_keys() -> None:
    doc = parse("base: &b {x: 1, y: 2}\nuse:\n  <<: *b\n  y: 3\nlist: [*b]\n", PATH).doc
    assert doc["use"] == {"x": 1, "y": 3}
    assert doc["list"] == [{"x": 1, "y": 2}]


def test_duplicate_keys_are_refused_at_any_depth() -> None:
    with pytest.raises(
        PlanInputError, match=r"Pulumi.dev.yaml:3:3: duplicate key 'b' \(first defined on line 2\)"
    ):
        parse("a:\n  b: 1\n  b: 2\n", PATH)


def test_a_date_in_an_object_is_json_not_a_crash() -> None:
    config, _ = engine_config("p", {"gpu-platform:x": parse("a: 2024-01-02\n", PATH).doc})
    assert json.loads(config["gpu-platform:x"]) == {"a": "2024-01-02T00:00:00Z"}


# ---------------------------------------------------------------------------------------------
# Bounds: refused fast, in one line naming the file and the limit, exit 2
# ---------------------------------------------------------------------------------------------


def _billion_laughs() -> str:
    lines = ['  gpu-platform:a0: &a0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for i in range(1, 10):
        refs = ",".join([f"*a{i - 1}"] * 10)
        lines.append(f"  gpu-platform:a{i}: &a{i} [{refs}]")
    return "config:\n" + "\n".join(lines) + "\n"


BOUNDED = {
    "billion-laughs": (_billion_laughs(), f"once its aliases are expanded (the limit is {MAX_VALUES})"),
    "deep-flow-lists": (
        "config:\n  gpu-platform:gpuPools: " + "[" * 5000 + "]" * 5000 + "\n",
        f"nested more than {MAX_DEPTH} levels deep (the limit is {MAX_DEPTH})",
    ),
    "deep-block-lists": (
        "config:\n  gpu-platform:gpuPools:\n" + "".join(" " * (i + 4) + "-\n" for i in range(300)),
        f"nested more than {MAX_DEPTH} levels deep (the limit is {MAX_DEPTH})",
    ),
    "deep-mappings": (
        "config:\n  gpu-platform:kueue:\n" + "".join(" " * (i + 4) + "k:\n" for i in range(300)),
        f"nested more than {MAX_DEPTH} levels deep (the limit is {MAX_DEPTH})",
    ),
    "huge-file": (
        "config:\n  gpu-platform:cloud: existing\n" + "# padding\n" * (MAX_BYTES // 10 + 1),
        f"larger than {MAX_BYTES // 1024 // 1024} MiB (the limit for a stack file)",
    ),
}


@pytest.mark.parametrize("case", sorted(BOUNDED))
def test_oversized_inputs_are_refused_fast_in_one_line(
    case: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text, limit = BOUNDED[case]
    project = tmp_path / "proj"
    project.mkdir()
    for name in ("Pulumi.yaml", "__main__.py"):
        (project / name).write_text((FIXTURE / name).read_text())
    (project / "Pulumi.test.yaml").write_text(text)

    start = time.monotonic()
    code = main(["plan", "--project", str(project), "--stack", "test", "--out", str(tmp_path / "o")])
    elapsed = time.monotonic() - start

    err = capsys.readouterr().err
    assert code == 2, err
    assert elapsed < 1.0, f"{case} took {elapsed:.2f}s"
    assert err.count("\n") == 1 and "Traceback" not in err
    assert err.startswith(f"error: {project / 'Pulumi.test.yaml'}")
    assert "refused: " in err and limit in err
    assert not (tmp_path / "o" / "plan.json").exists()


def test_a_stack_file_at_the_size_limit_is_read_in_well_under_the_bound() -> None:
    item = "a" * 47 + ","
    text = "config:\n  gpu-platform:x: [" + item * (MAX_BYTES // len(item) - 1) + "1]\n"
    assert len(text) <= MAX_BYTES
    start = time.monotonic()
    doc = parse(text, PATH).doc
    assert time.monotonic() - start < 2.0
    assert len(doc["config"]["gpu-platform:x"]) == MAX_BYTES // len(item)


def test_many_small_aliases_within_the_limit_are_fine() -> None:
    doc = parse("a: &a [1, 2]\nb: [*a, *a, *a]\n", PATH).doc
    assert doc["b"] == [[1, 2]] * 3
