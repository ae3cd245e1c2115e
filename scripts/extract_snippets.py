#!/usr/bin/env python3
"""Write every Python code block of README.md and docs/*.md to DIR as ``<doc>_<n>.py``, for the type checkers.

    python scripts/extract_snippets.py build/doc-snippets

An adopter copies these blocks as they are, so ``make lint`` runs ruff, mypy and pyright over them like over
``examples/``: a missing import or a string the argument types refuse fails there, not in their editor.
"""

from __future__ import annotations

import re
import shutil
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
BLOCK = re.compile(r"^```python\n(.*?)^```", re.M | re.S)


def snippets() -> list[tuple[str, str]]:
    """(file stem, code) for every Python block, named after its document and position."""
    out = []
    for doc in sorted([REPO / "README.md", *(REPO / "docs").glob("*.md")]):
        for n, code in enumerate(BLOCK.findall(doc.read_text()), 1):
            stem = re.sub(r"\W", "_", str(doc.relative_to(REPO).with_suffix("")))
            out.append((f"{stem}_{n}", f"# {doc.relative_to(REPO)}, Python block {n}\n{code}"))
    return out


def main(argv: list[str]) -> int:
    target = Path(argv[1]) if len(argv) > 1 else REPO / "build" / "doc-snippets"
    shutil.rmtree(target, ignore_errors=True)
    target.mkdir(parents=True)
    for stem, code in snippets():
        (target / f"{stem}.py").write_text(code)
    print(f"{len(snippets())} snippets -> {target}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
