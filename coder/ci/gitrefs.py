"""Read-only questions about two commits, asked of git's object store.

Nothing here reads or writes a working tree: file contents come from `git show commit:path`,
so a review never depends on what happens to be checked out.
"""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
from pathlib import Path


class GitError(Exception):
    """A git command failed; the message is one line for the person."""


@dataclass(frozen=True)
class ChangedPath:
    path: str
    old_path: str | None
    status: str
    """added | deleted | modified | renamed"""
    added_lines: int
    removed_lines: int
    binary: bool = False


def git(repo: Path, *args: str, check: bool = True) -> str:
    proc = subprocess.run(
        ["git", "-C", str(repo), *args],
        capture_output=True,
        text=True,
        encoding="utf-8",
        errors="replace",
    )
    if check and proc.returncode != 0:
        detail = (proc.stderr.strip().splitlines() or ["failed"])[-1]
        raise GitError(f"git {args[0]}: {detail}")
    return proc.stdout


def is_repository(path: Path) -> bool:
    if not path.is_dir():
        return False
    proc = subprocess.run(
        ["git", "-C", str(path), "rev-parse", "--git-dir"], capture_output=True, text=True
    )
    return proc.returncode == 0


def resolve_commit(repo: Path, ref: str) -> str | None:
    """The full sha `ref` names, or None when it names no commit."""
    if not ref or ref.startswith("-"):
        return None
    proc = subprocess.run(
        ["git", "-C", str(repo), "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}"],
        capture_output=True,
        text=True,
    )
    return proc.stdout.strip() if proc.returncode == 0 else None


def merge_base(repo: Path, base: str, head: str) -> str | None:
    proc = subprocess.run(
        ["git", "-C", str(repo), "merge-base", base, head], capture_output=True, text=True
    )
    return proc.stdout.strip() if proc.returncode == 0 else None


def changed_paths(repo: Path, base: str, head: str) -> list[ChangedPath]:
    """Every file that differs between two commits, renames detected, with line counts."""
    statuses = _name_status(git(repo, "diff", "--name-status", "-z", "-M", base, head))
    counts = _numstat(git(repo, "diff", "--numstat", "-z", "-M", base, head))
    changed: list[ChangedPath] = []
    for path, (status, old_path) in statuses.items():
        added, removed, binary = counts.get(path, (0, 0, False))
        changed.append(ChangedPath(path, old_path, status, added, removed, binary))
    return changed


def unified_diff(repo: Path, base: str, head: str) -> str:
    return git(repo, "diff", "-M", "--no-color", "--no-ext-diff", base, head)


def file_at(repo: Path, commit: str, path: str) -> str | None:
    """The file's text at the commit, or None when it is absent there."""
    proc = subprocess.run(["git", "-C", str(repo), "show", f"{commit}:{path}"], capture_output=True)
    if proc.returncode != 0:
        return None
    return proc.stdout.decode("utf-8", errors="replace")


_STATUS_WORDS = {"A": "added", "D": "deleted", "M": "modified", "R": "renamed", "C": "added"}


def _name_status(out: str) -> dict[str, tuple[str, str | None]]:
    fields = out.split("\0")
    result: dict[str, tuple[str, str | None]] = {}
    i = 0
    while i < len(fields) and fields[i]:
        code = fields[i][0]
        if code in "RC":
            old, new = fields[i + 1], fields[i + 2]
            result[new] = (_STATUS_WORDS[code], old if code == "R" else None)
            i += 3
        else:
            result[fields[i + 1]] = (_STATUS_WORDS.get(code, "modified"), None)
            i += 2
    return result


def _numstat(out: str) -> dict[str, tuple[int, int, bool]]:
    """Parse `--numstat -z`: a rename's record is `a\\tb\\t` followed by old and new paths."""
    fields = out.split("\0")
    result: dict[str, tuple[int, int, bool]] = {}
    i = 0
    while i < len(fields) and fields[i]:
        added, removed, path = fields[i].split("\t", 2)
        if path == "":
            path = fields[i + 2]
            i += 3
        else:
            i += 1
        binary = added == "-"
        result[path] = (0 if binary else int(added), 0 if binary else int(removed), binary)
    return result
