"""What differs between a commit and the worktree, as git sees it.

One `git status` (porcelain v2) answers for tracked and untracked paths; git's index makes it
a stat per tracked file and content reads only for files that changed. Renames are paired
from deletions and new files with identical content (exact renames: what a rollback and a
scope check need), and a mode change is told from an edit by hashing only the files whose
mode moved. Ignored paths are listed the way `git ls-files --directory` collapses them (a
wholly ignored directory is one entry), so listing them does not descend into, say,
node_modules/.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from sandbox.gitcli import git, git_concurrently, split_z

_ABSENT = "000000"
_REGULAR = ("100644", "100755")
LIST_IGNORED = ["ls-files", "-z", "--others", "--ignored", "--exclude-standard", "--directory"]


@dataclass(frozen=True)
class PathChange:
    path: str
    kind: str  # added | modified | deleted | renamed | mode
    old_path: str | None = None  # set for renamed


@dataclass
class WorktreeScan:
    changes: list[PathChange]
    ignored: frozenset[str]  # ignored entries now (directories end with "/")
    indexed: set[str] = field(default_factory=set)  # changed paths that have an index entry
    base_modes: dict[str, str] = field(default_factory=dict)  # changed paths the base has
    base_blobs: dict[str, str] = field(default_factory=dict)  # and their object ids there

    def touched(self, ignored_before: frozenset[str] = frozenset()) -> list[str]:
        """Every path that differs, renames counted at both ends, new ignored entries too."""
        paths: dict[str, None] = {}
        for change in self.changes:
            if change.old_path:
                paths[change.old_path] = None
            paths[change.path] = None
        for entry in new_ignored(self.ignored, ignored_before):
            paths[entry] = None
        return list(paths)


@dataclass
class _Raw:
    path: str
    status: str  # A M D T ?
    old_mode: str = _ABSENT
    new_mode: str = _ABSENT
    old_blob: str = ""
    indexed: bool = False


def scan_worktree(
    cwd: Path, base: str | None = None, *, with_ignored: bool = False, classify: bool = True
) -> WorktreeScan:
    """Differences between `base` (default HEAD) and the files in `cwd`. Without `classify`,
    renames stay a deletion plus an addition and mode changes stay modifications (no file is
    hashed): enough to know which paths to restore."""
    status = ["status", "--porcelain=v2", "-z", "--untracked-files=all"]
    if with_ignored:
        status.append("--ignored=matching")  # one walk finds untracked and ignored entries
    commands = [status]
    if base is not None:
        commands.append(["diff", "--raw", "-z", "--no-abbrev", "--no-renames", base])
    outputs = git_concurrently(cwd, *commands)
    raws, ignored_entries = parse_status_v2(outputs[0])
    if base is not None:
        raws = parse_diff_raw(outputs[-1]) + [r for r in raws if r.status == "?"]
    ignored = frozenset(ignored_entries)
    changes = _classify(cwd, raws) if classify else _plain(raws)
    indexed = {r.path for r in raws if r.indexed}
    in_base = [r for r in raws if r.old_mode != _ABSENT]
    return WorktreeScan(
        changes,
        ignored,
        indexed,
        {r.path: r.old_mode for r in in_base},
        {r.path: r.old_blob for r in in_base},
    )


def new_ignored(entries: Iterable[str], before: frozenset[str]) -> list[str]:
    """Ignored entries that neither existed nor lay inside an ignored directory before.
    Entries may be collapsed differently (`logs/` then, `logs/a.log` now); a path inside an
    entry that existed counts as old, so a step's additions to an old build directory stay."""
    old = {entry.rstrip("/") for entry in before}
    fresh: list[str] = []
    for entry in sorted(entries):
        path = entry.rstrip("/")
        parts = path.split("/")
        if not any("/".join(parts[:i]) in old for i in range(1, len(parts) + 1)):
            fresh.append(path)
    return fresh


def worktree_files(cwd: Path) -> list[str]:
    """The files a tool may show the model: tracked or new-and-not-ignored, and present now."""
    raw = git(["ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd)
    return sorted(path for path in set(split_z(raw)) if (cwd / path).exists())


def list_ignored(cwd: Path) -> frozenset[str]:
    return frozenset(split_z(git(LIST_IGNORED, cwd)))


def parse_status_v2(raw: bytes) -> tuple[list[_Raw], list[str]]:
    """(changed paths, ignored paths) from `git status --porcelain=v2 -z`."""
    records = raw.split(b"\0")
    changed: list[_Raw] = []
    ignored: list[str] = []
    i = 0
    while i < len(records):
        record = records[i].decode("utf-8", errors="surrogateescape")
        i += 1
        if not record or record.startswith("#"):
            continue
        tag = record[0]
        if tag == "?":
            changed.append(_Raw(record[2:], "?"))
        elif tag == "!":
            ignored.append(record[2:])
        elif tag == "1":
            _, _xy, _sub, m_head, m_index, m_tree, h_head, _h_index, path = record.split(" ", 8)
            changed.extend(_from_status(path, m_head, m_index, m_tree, h_head))
        elif tag == "2":
            fields = record.split(" ", 9)
            _, _xy, _sub, m_head, m_index, m_tree, h_head, _h_index, _score, path = fields
            origin = records[i].decode("utf-8", errors="surrogateescape")
            i += 1
            changed.append(_Raw(origin, "D", m_head, _ABSENT, h_head, indexed=True))
            changed.extend(_from_status(path, _ABSENT, m_index, m_tree, ""))
        elif tag == "u":
            fields = record.split(" ", 10)
            changed.append(_Raw(fields[10], "M", fields[4], fields[6], fields[8], indexed=True))
    return changed, ignored


def parse_diff_raw(raw: bytes) -> list[_Raw]:
    """Entries of `git diff --raw -z --no-renames` (commit against worktree)."""
    records = raw.split(b"\0")
    out: list[_Raw] = []
    for header, path in zip(records[0::2], records[1::2], strict=False):
        if not header.startswith(b":"):
            continue
        old_mode, new_mode, old_blob, _new_blob, status = header[1:].decode().split(" ")
        name = path.decode("utf-8", errors="surrogateescape")
        out.append(_Raw(name, status[0], old_mode, new_mode, old_blob, indexed=True))
    return out


def _from_status(path: str, m_head: str, m_index: str, m_tree: str, h_head: str) -> list[_Raw]:
    indexed = m_index != _ABSENT
    if m_head == _ABSENT and m_tree == _ABSENT:
        return [_Raw(path, "=", indexed=indexed)]  # only staged; the file is as in HEAD
    if m_tree == _ABSENT:
        return [_Raw(path, "D", m_head, m_tree, h_head, indexed)]
    if m_head == _ABSENT:
        return [_Raw(path, "A", m_head, m_tree, indexed=indexed)]
    return [_Raw(path, "M", m_head, m_tree, h_head, indexed)]


def _classify(cwd: Path, raws: list[_Raw]) -> list[PathChange]:
    deleted = {r.path: r for r in raws if r.status == "D"}
    added = [r for r in raws if r.status in ("A", "?")]
    moved_modes = [
        r
        for r in raws
        if r.status == "M"
        and r.old_mode != r.new_mode
        and {r.old_mode, r.new_mode} <= set(_REGULAR)
    ]
    hashes = hash_files(
        cwd, [r.path for r in moved_modes] + ([r.path for r in added] if deleted else [])
    )
    mode_moved = {r.path for r in moved_modes}
    renamed_from: dict[str, str] = {}
    if deleted:
        by_blob: dict[str, list[str]] = {}
        for r in deleted.values():
            by_blob.setdefault(r.old_blob, []).append(r.path)
        for r in added:
            candidates = by_blob.get(hashes.get(r.path, ""), [])
            if candidates:
                renamed_from[r.path] = candidates.pop(0)
    paired = set(renamed_from.values())
    changes: list[PathChange] = []
    for r in raws:
        if r.status == "=" or r.path in paired:
            continue
        if r.path in renamed_from:
            changes.append(PathChange(r.path, "renamed", renamed_from[r.path]))
        elif r.status in ("A", "?"):
            changes.append(PathChange(r.path.rstrip("/"), "added"))
        elif r.status == "D":
            changes.append(PathChange(r.path, "deleted"))
        elif r.path in mode_moved and hashes.get(r.path) == r.old_blob:
            changes.append(PathChange(r.path, "mode"))
        else:
            changes.append(PathChange(r.path, "modified"))
    return changes


def _plain(raws: list[_Raw]) -> list[PathChange]:
    kinds = {"A": "added", "?": "added", "D": "deleted"}
    return [
        PathChange(r.path.rstrip("/"), kinds.get(r.status, "modified"))
        for r in raws
        if r.status != "="
    ]


def hash_files(cwd: Path, paths: Iterable[str]) -> dict[str, str]:
    """Blob ids git would store for these worktree files (directories are skipped)."""
    files = [p for p in paths if not p.endswith("/") and (cwd / p).is_file()]
    hashes: dict[str, str] = {}
    listed = [p for p in files if "\n" not in p]
    if listed:  # --stdin-paths reads one name a line and has no -z
        out = git(["hash-object", "--stdin-paths"], cwd, stdin=_join_lines(listed))
        hashes.update(zip(listed, out.decode().split(), strict=False))
    odd = [p for p in files if "\n" in p]
    for chunk in path_batches(odd):  # a name holding a newline goes as an argument
        out = git(["hash-object", "--", *chunk], cwd)
        hashes.update(zip(chunk, out.decode().split(), strict=False))
    return hashes


ARGS_BUDGET = 64 * 1024
"""Bytes of paths one git command line carries: far below the kernel's bound on a command
line (ARG_MAX, 2 MiB with the environment), which a step leaving 100,000 new files passes."""


def path_batches(paths: Sequence[str], budget: int = ARGS_BUDGET) -> Iterator[list[str]]:
    """`paths` in order, in batches whose names together stay within `budget` bytes, for a
    git command that takes no pathspec on stdin (`ls-files`, `diff-files`, `hash-object`)."""
    batch: list[str] = []
    size = 0
    for path in paths:
        length = len(path.encode("utf-8", errors="surrogateescape")) + 1
        if batch and size + length > budget:
            yield batch
            batch, size = [], 0
        batch.append(path)
        size += length
    if batch:
        yield batch


def _join_lines(paths: Iterable[str]) -> bytes:
    return b"".join(p.encode("utf-8", errors="surrogateescape") + b"\n" for p in paths)
