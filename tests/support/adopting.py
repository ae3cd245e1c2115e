"""docs/adopting.md: the page, and the platform repository it shows, file by file."""

from __future__ import annotations

import re

from tests.conftest import REPO

DOC = (REPO / "docs" / "adopting.md").read_text()
FILE_BLOCK = re.compile(r"<!-- file: (?P<name>[^ ]+) -->\n```[a-z]*\n(?P<body>.*?)```", re.S)


def adopting_files() -> dict[str, str]:
    """Path in the adopter's repository -> the file's text, one per ``<!-- file: -->`` block of the page."""
    return {m["name"]: m["body"] for m in FILE_BLOCK.finditer(DOC)}
