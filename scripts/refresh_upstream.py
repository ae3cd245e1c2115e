#!/usr/bin/env python3
"""Check or refresh the vendored upstream data under ``tests/upstream/``.

Each directory there that holds a ``SOURCE.yaml`` is a byte-for-byte copy of files from one GitHub
repository at one pinned commit. ``SOURCE.yaml`` names the ``repo``, ``tag``, ``commit`` and
``license`` and maps every local file (relative to the ``SOURCE.yaml``) to its ``upstream`` path and
the ``sha256`` of the local copy. A symbolic link that upstream keeps inside a copied directory (Volcano's
chart has ``crd/v1 -> bases``) is listed with ``symlink: <target>`` instead of a ``sha256`` and is kept as
a link. See ``tests/upstream/README.md``.

    scripts/refresh_upstream.py --check                  verify every listed file (offline)
    scripts/refresh_upstream.py --from-git DIR [COMP...] copy the files again from local git clones
    scripts/refresh_upstream.py --from-raw [COMP...]     download them again from raw.githubusercontent.com

COMP is a component directory (``kueue``, ``charts/kueue-0.19.2``, or a path); default: all of them.
Refreshing reads each file at the pinned ``commit`` (to move to a new release, edit ``tag`` and
``commit`` first), re-applies a file's ``stamp`` (see ``apply_stamp``), writes the file and rewrites
``SOURCE.yaml`` with the new ``sha256`` values. With ``--from-git``, a component that names an
``upstream_dir`` (a whole Helm chart) takes that directory's file list at the commit, so files added
or removed upstream are followed; a symlink there that points inside the directory stays a link, one that
points outside it (Karpenter's chart ``crds/``) is copied as the file it points to, with that file as
``upstream``. Needs only the standard library and PyYAML (``--from-git`` also runs ``git``).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import posixpath
import re
import subprocess
import sys
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import yaml

REPO_ROOT = Path(__file__).resolve().parents[1]
DEFAULT_ROOT = REPO_ROOT / "tests" / "upstream"
SOURCE_FILE = "SOURCE.yaml"
README_FILE = "README.md"
# Our own notes at the top of tests/upstream (not upstream files, so not listed in any SOURCE.yaml).
OWN_FILES = (README_FILE, "NEW_COMPONENTS_NOTES.md")
TOP_KEYS = ("repo", "tag", "commit", "license", "upstream_dir", "notes", "files")
HINT = (
    "restore with `python scripts/refresh_upstream.py --from-raw` (or --from-git DIR with local clones); "
    "see tests/upstream/README.md"
)

HEADER = """\
# Provenance of the files in this directory: byte-for-byte copies of `files` (local path -> upstream path)
# from `repo` at `commit`, except where an entry has a `stamp`. Written by scripts/refresh_upstream.py
# (--from-git / --from-raw); checked by `scripts/refresh_upstream.py --check` and tests/project/test_upstream_data.py.
"""


# --- reading and validating SOURCE.yaml -----------------------------------------------------------


def sha256_of(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def find_sources(root: Path) -> list[Path]:
    """Every SOURCE.yaml under ``root``, sorted."""
    return sorted(root.rglob(SOURCE_FILE))


def vendored_paths(root: Path) -> list[Path]:
    """Every file and symbolic link under ``root``, sorted; symlinked directories are not entered."""
    found = []
    for dirpath, dirnames, filenames in os.walk(root):  # os.walk does not follow symlinks by default
        found += [Path(dirpath, name) for name in filenames]
        found += [Path(dirpath, name) for name in dirnames if Path(dirpath, name).is_symlink()]
    return sorted(found)


def link_problem(path: Path, target: str, base: Path) -> str | None:
    """Why ``path`` is not a symlink to ``target`` that resolves inside ``base`` (None when it is)."""
    if not path.is_symlink():
        return f"not a symlink: {path} (SOURCE.yaml: symlink to {target!r})"
    if (actual := os.readlink(path)) != target:
        return f"symlink target mismatch: {path} (SOURCE.yaml {target!r}, link {actual!r})"
    resolved = path.resolve()
    if not resolved.is_relative_to(base.resolve()):
        return f"symlink leaves its directory: {path} -> {target}"
    if not resolved.exists():
        return f"dangling symlink: {path} -> {target}"
    return None


def load_source(path: Path) -> tuple[dict[str, Any], list[str]]:
    """The parsed SOURCE.yaml and the problems with its structure (empty when valid)."""
    try:
        data = yaml.safe_load(path.read_text())
    except (OSError, yaml.YAMLError) as exc:
        return {}, [f"{path}: cannot parse: {exc}"]
    if not isinstance(data, dict):
        return {}, [f"{path}: not a mapping"]
    problems: list[str] = []
    for key in ("repo", "tag", "commit", "license"):
        if not isinstance(data.get(key), str) or not data[key]:
            problems.append(f"{path}: `{key}` must be a non-empty string")
    if isinstance(data.get("repo"), str) and not re.fullmatch(r"[\w.-]+/[\w.-]+", data["repo"]):
        problems.append(f"{path}: `repo` must be owner/name, got {data['repo']!r}")
    if isinstance(data.get("commit"), str) and not re.fullmatch(r"[0-9a-f]{40}", data["commit"]):
        problems.append(f"{path}: `commit` must be 40 lowercase hex digits")
    files = data.get("files")
    if not isinstance(files, dict) or not files:
        return data, [*problems, f"{path}: `files` must be a non-empty mapping"]
    for local, entry in files.items():
        where = f"{path}: files[{local!r}]"
        if not isinstance(local, str) or local.startswith("/") or "\\" in local or ".." in local.split("/"):
            problems.append(f"{where}: local path must be relative and stay inside the directory")
        if not isinstance(entry, dict) or not isinstance(entry.get("upstream"), str):
            problems.append(f"{where}: needs `upstream: <path in the repository>`")
            continue
        if "symlink" in entry:
            target = entry["symlink"]
            if not isinstance(target, str) or not target or target.startswith("/") or "\\" in target:
                problems.append(f"{where}: `symlink` must be a relative link target")
            if set(entry) - {"upstream", "symlink"}:
                problems.append(f"{where}: a `symlink` entry has only `upstream` and `symlink`")
            continue
        if not isinstance(entry.get("sha256"), str) or not re.fullmatch(r"[0-9a-f]{64}", entry["sha256"]):
            problems.append(f"{where}: `sha256` must be 64 lowercase hex digits")
        stamp = entry.get("stamp")
        if stamp is not None and (not isinstance(stamp, dict) or set(stamp) - {"version", "appVersion"}):
            problems.append(f"{where}: `stamp` may only set `version` and `appVersion`")
    return data, problems


def check(root: Path, components: Iterable[Path] = ()) -> list[str]:
    """Every problem with the vendored data: bad SOURCE.yaml, missing or changed files, unlisted files.

    With ``components``, only those directories are checked (and unlisted files are not looked for).
    """
    selected = [c.resolve() for c in components]
    sources = [s for s in find_sources(root) if not selected or s.parent.resolve() in selected]
    problems: list[str] = []
    if not sources:
        return [f"no {SOURCE_FILE} found under {root}"]
    listed: dict[Path, Path] = {}
    for source in sources:
        data, bad = load_source(source)
        problems += bad
        for local, entry in (data.get("files") or {}).items():
            if not isinstance(local, str) or not isinstance(entry, dict):
                continue
            path = source.parent / local
            if path in listed:
                problems.append(f"listed twice: {path} (in {listed[path]} and {source})")
            listed[path] = source
            if "symlink" in entry:
                if not path.is_symlink() and not path.exists():
                    problems.append(f"missing: {path}")
                elif problem := link_problem(path, str(entry["symlink"]), source.parent):
                    problems.append(problem)
            elif path.is_symlink():
                problems.append(f"is a symlink, not a copy: {path} -> {os.readlink(path)}")
            elif not path.is_file():
                problems.append(f"missing: {path}")
            elif (actual := sha256_of(path)) != entry.get("sha256"):
                problems.append(f"sha256 mismatch: {path} (SOURCE.yaml {entry.get('sha256')}, file {actual})")
    if not selected:
        for path in vendored_paths(root):
            if path.name == SOURCE_FILE or (path.parent == root and path.name in OWN_FILES) or path in listed:
                continue
            problems.append(f"not listed in any {SOURCE_FILE}: {path}")
    return problems


# --- writing SOURCE.yaml --------------------------------------------------------------------------


def scalar(value: Any) -> str:
    """A YAML scalar: plain when that reads back as the same string, JSON-quoted otherwise."""
    text = str(value)
    if re.fullmatch(r"[A-Za-z0-9._/+-]+", text) and yaml.safe_load(text) == text:
        return text
    return json.dumps(text)


def dump_source(data: dict[str, Any]) -> str:
    """SOURCE.yaml text in one stable layout (files sorted; ``notes`` as a literal block)."""
    lines = HEADER.rstrip("\n").split("\n")
    for key in ("repo", "tag", "commit", "license", "upstream_dir"):
        if data.get(key) is not None:
            lines.append(f"{key}: {scalar(data[key])}")
    if data.get("notes"):
        lines.append("notes: |")
        lines += [f"  {line}".rstrip() for line in str(data["notes"]).rstrip("\n").split("\n")]
    extra = {k: v for k, v in data.items() if k not in TOP_KEYS}
    if extra:
        lines += yaml.safe_dump(extra, sort_keys=False, width=110).rstrip("\n").split("\n")
    lines.append("files:")
    for local in sorted(data["files"]):
        entry = data["files"][local]
        lines.append(f"  {scalar(local)}:")
        lines.append(f"    upstream: {scalar(entry['upstream'])}")
        if "symlink" in entry:
            lines.append(f"    symlink: {scalar(entry['symlink'])}")
            continue
        if entry.get("stamp"):
            pairs = ", ".join(f"{k}: {scalar(v)}" for k, v in entry["stamp"].items())
            lines.append(f"    stamp: {{{pairs}}}")
        lines.append(f"    sha256: {scalar(entry.get('sha256', ''))}")
    return "\n".join(lines) + "\n"


def apply_stamp(content: bytes, stamp: dict[str, str]) -> bytes:
    """Replace the top-level ``version:`` / ``appVersion:`` lines of a Chart.yaml.

    Some charts carry placeholders in git (``version: v0.0.0``) that the release tooling replaces when
    it publishes the chart; the stamp puts the published values back: ``version: <v>`` and
    ``appVersion: "<v>"``. Each key must occur exactly once at the start of a line.
    """
    text = content.decode()
    for key, value in stamp.items():
        line = f"{key}: {value}" if key == "version" else f'{key}: "{value}"'
        text, count = re.subn(rf"^{key}:.*$", line, text, flags=re.M)
        if count != 1:
            raise ValueError(f"stamp: expected one top-level `{key}:` line, found {count}")
    return text.encode()


# --- fetching -------------------------------------------------------------------------------------


class FetchError(Exception):
    pass


class GitSnapshots:
    """Reads files from local git clones (bare or not) found under one directory."""

    def __init__(self, base: Path) -> None:
        self.base = base

    def _git(self, repo_dir: Path, *args: str) -> subprocess.CompletedProcess[bytes]:
        try:
            return subprocess.run(["git", "-C", str(repo_dir), *args], capture_output=True, check=False)
        except FileNotFoundError as exc:
            raise FetchError("--from-git needs the git command") from exc

    def repo_dir(self, repo: str, commit: str) -> Path:
        owner, name = repo.split("/")
        candidates = [
            self.base,
            self.base / name,
            self.base / f"{name}.git",
            self.base / owner / name,
            self.base / owner / f"{name}.git",
            self.base / f"{owner}+{name}",
            self.base / f"{owner}+{name}" / "repo",
        ]
        for cand in candidates:
            if cand.is_dir() and self._git(cand, "cat-file", "-e", f"{commit}^{{commit}}").returncode == 0:
                return cand
        raise FetchError(f"{repo}: no git clone with commit {commit} under {self.base}")

    def verify_tag(self, repo: str, tag: str, commit: str) -> str | None:
        """A warning when the clone's ``tag`` points elsewhere (None when it matches or is absent)."""
        out = self._git(self.repo_dir(repo, commit), "rev-parse", "--verify", "-q", f"{tag}^{{commit}}")
        if out.returncode != 0:
            return f"{repo}: tag {tag} not in the clone (files still read at commit {commit})"
        found = out.stdout.decode().strip()
        if found != commit:
            raise FetchError(f"{repo}: tag {tag} is {found} in the clone, SOURCE.yaml says {commit}")
        return None

    def _tree(self, repo: str, commit: str, path: str, recursive: bool = False) -> list[tuple[str, str]]:
        """``(mode, path)`` of the tree entries at ``path`` (with ``recursive``, of everything below it)."""
        args = ["ls-tree", *(["-r"] if recursive else []), "-z", commit, "--", path]
        out = self._git(self.repo_dir(repo, commit), *args)
        if out.returncode != 0:
            raise FetchError(f"{repo}: git ls-tree {path}: {out.stderr.decode().strip()}")
        entries = []
        for record in out.stdout.decode().split("\0"):
            if record:
                meta, name = record.split("\t", 1)
                entries.append((meta.split()[0], name))
        return entries

    def _mode(self, repo: str, commit: str, path: str) -> str:
        found = [mode for mode, name in self._tree(repo, commit, path) if name == path]
        if not found:
            raise FetchError(f"{repo}@{commit[:12]}: {path}: not in the tree")
        return found[0]

    def list_dir(self, repo: str, commit: str, directory: str) -> dict[str, dict[str, str]]:
        """The entries (local path relative to ``directory`` -> ``upstream`` and maybe ``symlink``) below it.

        A symlink that resolves inside ``directory`` stays a link (``symlink: <target>``); one that points
        outside it is copied as the regular file it points to, which becomes the entry's ``upstream``.
        """
        directory = directory.rstrip("/")
        entries: dict[str, dict[str, str]] = {}
        for mode, path in self._tree(repo, commit, directory + "/", recursive=True):
            rel = path[len(directory) + 1 :]
            if mode in ("100644", "100755"):
                entries[rel] = {"upstream": path}
            elif mode == "120000":
                target = self.read_link(repo, commit, path)
                resolved = posixpath.normpath(posixpath.join(posixpath.dirname(path), target))
                if target.startswith("/") or resolved.startswith("../"):
                    raise FetchError(f"{repo}: {path} -> {target} leaves the repository")
                if resolved.startswith(directory + "/"):
                    entries[rel] = {"upstream": path, "symlink": target}
                elif self._mode(repo, commit, resolved) in ("100644", "100755"):
                    entries[rel] = {"upstream": resolved}
                else:
                    raise FetchError(f"{repo}: {path} -> {target} is not a regular file; copy it by hand")
            else:
                raise FetchError(f"{repo}: {path} has mode {mode} (submodule?); copy it by hand")
        if not entries:
            raise FetchError(f"{repo}: {directory} has no files at {commit}")
        return entries

    def read_link(self, repo: str, commit: str, path: str) -> str:
        """The target of the symlink ``path`` at ``commit``."""
        if (mode := self._mode(repo, commit, path)) != "120000":
            raise FetchError(f"{repo}@{commit[:12]}: {path} is not a symlink (mode {mode})")
        return self.read(repo, commit, path, link=True).decode()

    def read(self, repo: str, commit: str, path: str, link: bool = False) -> bytes:
        """The bytes of the regular file ``path`` (with ``link``, the target text of a symlink)."""
        if not link and self._mode(repo, commit, path) == "120000":
            raise FetchError(f"{repo}@{commit[:12]}: {path} is a symlink; list its target as `upstream`")
        out = self._git(self.repo_dir(repo, commit), "cat-file", "blob", f"{commit}:{path}")
        if out.returncode != 0:
            raise FetchError(f"{repo}@{commit[:12]}: {path}: {out.stderr.decode().strip()}")
        return out.stdout


class RawGitHub:
    """Downloads files from https://raw.githubusercontent.com/<repo>/<commit>/<path>."""

    def __init__(self, opener: Callable[..., Any] = urllib.request.urlopen) -> None:
        self.opener = opener

    def verify_tag(self, repo: str, tag: str, commit: str) -> str | None:
        return None  # the raw host cannot resolve tags; files are read at the pinned commit anyway

    list_dir = None  # the raw host cannot list directories: the file list in SOURCE.yaml is kept

    def read_link(self, repo: str, commit: str, path: str) -> None:
        return None  # the raw host does not tell a symlink from a file: `symlink` entries are kept as listed

    def read(self, repo: str, commit: str, path: str) -> bytes:
        url = f"https://raw.githubusercontent.com/{repo}/{commit}/{urllib.parse.quote(path)}"
        try:
            with self.opener(url, timeout=60) as response:
                return response.read()
        except OSError as exc:  # urllib.error.URLError and HTTPError are OSErrors
            raise FetchError(f"{url}: {exc}") from exc


def refresh(source: Path, fetcher: GitSnapshots | RawGitHub, log: Callable[[str], None] = print) -> None:
    """Fetch every file of one SOURCE.yaml at its commit, write them, rewrite the sha256 values."""
    data, problems = load_source(source)
    problems = [p for p in problems if "`sha256`" not in p]  # the sha256 values are about to be rewritten
    if problems:
        raise FetchError("; ".join(problems))
    repo, commit, base = data["repo"], data["commit"], source.parent
    warning = fetcher.verify_tag(repo, data["tag"], commit)
    if warning:
        log(f"  warning: {warning}")
    files: dict[str, dict[str, Any]] = data["files"]
    if data.get("upstream_dir") and fetcher.list_dir is not None:
        stamps = {e["upstream"]: e.get("stamp") for e in files.values()}
        files = {}
        for rel, found in fetcher.list_dir(repo, commit, data["upstream_dir"]).items():
            stamp = stamps.get(found["upstream"])
            files[rel] = {**found, **({"stamp": stamp} if stamp and "symlink" not in found else {})}
    contents, links = {}, {}
    for local, entry in files.items():
        if "symlink" in entry:
            links[local] = fetcher.read_link(repo, commit, entry["upstream"]) or entry["symlink"]
            continue
        content = fetcher.read(repo, commit, entry["upstream"])
        contents[local] = apply_stamp(content, entry["stamp"]) if entry.get("stamp") else content
    for local in sorted(set(data["files"]) - set(files)):
        log(f"  removed upstream: {local}")
        (base / local).unlink(missing_ok=True)
    for local, target in links.items():
        path = base / local
        if not path.is_symlink() or os.readlink(path) != target:
            log(f"  {'updated' if path.is_symlink() or path.exists() else 'added'}: {local} -> {target}")
            if path.is_symlink() or path.is_file():
                path.unlink()
            path.parent.mkdir(parents=True, exist_ok=True)
            path.symlink_to(target)
        files[local]["symlink"] = target
    for local, content in contents.items():
        path = base / local
        if path.is_symlink() or not path.is_file() or path.read_bytes() != content:
            log(f"  {'updated' if path.is_file() else 'added'}: {local}")
            path.parent.mkdir(parents=True, exist_ok=True)
            path.unlink(missing_ok=True)  # a symlink in its place is replaced, not written through
            path.write_bytes(content)
        files[local]["sha256"] = hashlib.sha256(content).hexdigest()
    data["files"] = files
    source.write_text(dump_source(data))


# --- command line ---------------------------------------------------------------------------------


def select(root: Path, names: list[str]) -> list[Path]:
    dirs = []
    for name in names:
        path = Path(name) if Path(name).is_dir() and (Path(name) / SOURCE_FILE).exists() else root / name
        if not (path / SOURCE_FILE).is_file():
            raise SystemExit(f"{name}: no {SOURCE_FILE} (looked in {path})")
        dirs.append(path)
    return dirs


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--check", action="store_true", help="verify files and sha256 values (offline)")
    mode.add_argument("--from-git", metavar="DIR", type=Path, help="read files from git clones under DIR")
    mode.add_argument("--from-raw", action="store_true", help="download files from raw.githubusercontent.com")
    parser.add_argument(
        "--root", type=Path, default=DEFAULT_ROOT, help="vendored data (default: tests/upstream)"
    )
    parser.add_argument("components", nargs="*", help="component directories (default: all)")
    args = parser.parse_args(argv)
    root: Path = args.root
    components = select(root, args.components)

    if not args.check:
        fetcher = GitSnapshots(args.from_git) if args.from_git else RawGitHub()
        sources = [c / SOURCE_FILE for c in components] or find_sources(root)
        failed = []
        for source in sources:
            print(f"{source.parent.relative_to(root)}:")
            try:
                refresh(source, fetcher)
            except (FetchError, ValueError) as exc:
                failed.append(f"{source}: {exc}")
        if failed:
            print(f"{len(failed)} component(s) not refreshed (nothing written for them):", file=sys.stderr)
            for line in failed:
                print(f"  {line}", file=sys.stderr)
            return 1

    problems = check(root, components)
    if problems:
        print(f"{len(problems)} problem(s) with the vendored upstream data in {root}:", file=sys.stderr)
        for line in problems:
            print(f"  {line}", file=sys.stderr)
        print(HINT, file=sys.stderr)
        return 1
    checked = [c / SOURCE_FILE for c in components] or find_sources(root)
    count = sum(len(load_source(s)[0]["files"]) for s in checked)
    print(f"ok: {len(checked)} {SOURCE_FILE} files, {count} files present, all sha256 match")
    return 0


if __name__ == "__main__":
    sys.exit(main())
