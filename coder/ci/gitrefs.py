"""Read-only questions about two commits, asked of git's object store; and the one door
through which coder/ci runs git at all (sandbox.gitcli's safe settings, always).

Nothing here reads or writes a working tree: file contents come from `git cat-file`, so a
review never depends on what happens to be checked out.
"""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
from pathlib import Path

from sandbox import gitcli


class GitError(Exception):
    """A git command failed; the message is one line for the person."""


_PLAIN_DIFF = ("-M", "--no-ext-diff", "--no-textconv")
"""Git's own diff only: a `.gitattributes` in the PR cannot route it through a program."""


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
    """git in `repo` as the harness runs it (sandbox.gitcli: no hooks, no fsmonitor, no
    repository-selecting variables), so nothing a PR or a confined command wrote is run."""
    try:
        out = gitcli.git(list(args), repo, check=check)
    except gitcli.GitError as exc:
        raise GitError(f"git {args[0]}: {_last_line(exc.stderr)}") from None
    return out.decode("utf-8", errors="replace")


@dataclass(frozen=True)
class GitRun:
    returncode: int
    output: str
    """stderr then stdout, decoded."""
    timed_out: bool = False


def git_run(repo: Path, *args: str, timeout_s: float) -> GitRun:
    """git with a time limit, for commands that talk to a remote (sandbox.gitcli has no
    timeout; this is the one place that reuses its settings directly)."""
    try:
        proc = subprocess.run(
            ["git", *gitcli._SAFE_CONFIG, *args],
            cwd=repo,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=timeout_s,
            env=gitcli._base_env(),
        )
    except subprocess.TimeoutExpired:
        return GitRun(-1, "", timed_out=True)
    output = (proc.stderr + proc.stdout).decode("utf-8", errors="replace")
    return GitRun(proc.returncode, output)


def git_url(repo: Path, remote: str) -> str | None:
    """The remote's URL, or None when there is no such remote."""
    if not remote or remote.startswith("-"):
        return None
    return _line_or_none(repo, "remote", "get-url", remote)


def is_repository(path: Path) -> bool:
    return path.is_dir() and gitcli.git_ok(["rev-parse", "--git-dir"], path)


def resolve_commit(repo: Path, ref: str) -> str | None:
    """The full sha `ref` names, or None when it names no commit."""
    if not ref or ref.startswith("-"):
        return None
    return _line_or_none(repo, "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}")


def merge_base(repo: Path, base: str, head: str) -> str | None:
    return _line_or_none(repo, "merge-base", base, head)


def _line_or_none(repo: Path, *args: str) -> str | None:
    try:
        return gitcli.git(list(args), repo).decode("utf-8", errors="replace").strip()
    except gitcli.GitError:
        return None


def _last_line(stderr: str) -> str:
    return (stderr.strip().splitlines() or ["failed"])[-1]


def changed_paths(repo: Path, base: str, head: str) -> list[ChangedPath]:
    """Every file that differs between two commits, renames detected, with line counts."""
    statuses = _name_status(git(repo, "diff", *_PLAIN_DIFF, "--name-status", "-z", base, head))
    counts = _numstat(git(repo, "diff", *_PLAIN_DIFF, "--numstat", "-z", base, head))
    changed: list[ChangedPath] = []
    for path, (status, old_path) in statuses.items():
        added, removed, binary = counts.get(path, (0, 0, False))
        changed.append(ChangedPath(path, old_path, status, added, removed, binary))
    return changed


def unified_diff(repo: Path, base: str, head: str, *, context: int = 3) -> str:
    """The patch from base to head, paths unquoted (a non-ASCII name reads as itself)."""
    return git(
        repo,
        "-c",
        "core.quotePath=false",
        "diff",
        *_PLAIN_DIFF,
        "--no-color",
        f"-U{context}",
        base,
        head,
    )


def file_at(repo: Path, commit: str, path: str) -> str | None:
    """The file's text at the commit, or None when it is absent there."""
    try:
        data = gitcli.git(["cat-file", "blob", f"{commit}:{path}"], repo)
    except gitcli.GitError:
        return None
    return data.decode("utf-8", errors="replace")


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
