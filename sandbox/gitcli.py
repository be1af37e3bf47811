"""The git command line as the harness runs it.

The harness's own git calls must not run anything the repository (or a confined command
that wrote into the worktree) configured: no hooks, no fsmonitor, no signing, no pager, and
a fixed identity passed through the environment so the user's config is never written.
`-c` settings reach git's own child processes too (GIT_CONFIG_PARAMETERS).
"""

from __future__ import annotations

import os
import subprocess
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path

HARNESS_NAME = "coder"
HARNESS_EMAIL = "coder@localhost"

_SAFE_CONFIG = (
    "-c",
    "core.hooksPath=/dev/null",
    "-c",
    "core.fsmonitor=false",
    "-c",
    "commit.gpgSign=false",
    "-c",
    "core.pager=cat",
    "-c",
    "core.quotePath=false",
    "-c",
    "diff.ignoreSubmodules=all",
)
# Variables that would point git at another repository than the one we name.
_REPO_SELECTORS = (
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_INDEX_FILE",
    "GIT_OBJECT_DIRECTORY",
    "GIT_ALTERNATE_OBJECT_DIRECTORIES",
    "GIT_COMMON_DIR",
    "GIT_NAMESPACE",
    "GIT_CEILING_DIRECTORIES",
    "GIT_CONFIG_PARAMETERS",
    "GIT_CONFIG_COUNT",
)


class GitError(Exception):
    """A git command failed; `str()` is git's first line of complaint."""

    def __init__(self, args: Sequence[str], returncode: int, stderr: str) -> None:
        lines = [line for line in stderr.strip().splitlines() if line.strip()]
        first = lines[0] if lines else f"exit status {returncode}"
        super().__init__(first.removeprefix("fatal: ").removeprefix("error: "))
        self.args_ = list(args)
        self.returncode = returncode
        self.stderr = stderr


def git(
    args: Sequence[str],
    cwd: Path,
    *,
    stdin: bytes | None = None,
    check: bool = True,
    env: Mapping[str, str] | None = None,
) -> bytes:
    """Run git in `cwd`; its stdout, or GitError when it fails and `check` is set."""
    done = subprocess.run(
        ["git", *_SAFE_CONFIG, *args],
        cwd=cwd,
        input=stdin,
        stdin=None if stdin is not None else subprocess.DEVNULL,
        capture_output=True,
        env={**_base_env(), **(env or {})},
    )
    if check and done.returncode != 0:
        raise GitError(args, done.returncode, done.stderr.decode("utf-8", errors="replace"))
    return done.stdout


def git_to_file(args: Sequence[str], cwd: Path, out: Path) -> int:
    """Run git in `cwd` with its stdout written to `out` (never held in memory); the exit
    status."""
    with open(out, "wb") as sink:
        done = subprocess.run(
            ["git", *_SAFE_CONFIG, *args],
            cwd=cwd,
            stdin=subprocess.DEVNULL,
            stdout=sink,
            stderr=subprocess.DEVNULL,
            env=_base_env(),
        )
    return done.returncode


def git_line(args: Sequence[str], cwd: Path, **kwargs: object) -> str:
    """The first line of git's output, decoded."""
    out = git(args, cwd, **kwargs)  # type: ignore[arg-type]
    return out.decode("utf-8", errors="surrogateescape").strip().split("\n", 1)[0]


def git_ok(args: Sequence[str], cwd: Path) -> bool:
    """Whether git exits 0 (for questions such as `merge-base --is-ancestor`)."""
    return (
        subprocess.run(
            ["git", *_SAFE_CONFIG, *args],
            cwd=cwd,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            env=_base_env(),
        ).returncode
        == 0
    )


def git_concurrently(cwd: Path, *commands: Sequence[str]) -> list[bytes]:
    """Run independent read-only git commands side by side; their outputs in order."""
    env = _base_env()
    procs = [
        subprocess.Popen(
            ["git", *_SAFE_CONFIG, *args],
            cwd=cwd,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        for args in commands
    ]
    outputs: list[bytes] = []
    for args, proc in zip(commands, procs, strict=True):
        out, err = proc.communicate()
        if proc.returncode != 0:
            raise GitError(args, proc.returncode, err.decode("utf-8", errors="replace"))
        outputs.append(out)
    return outputs


def git_detached(
    args: Sequence[str], cwd: Path, *, env: Mapping[str, str], pass_fds: Sequence[int] = ()
) -> tuple[int, str]:
    """Run git in a session of its own, holding `pass_fds` open: a signal sent to the caller's
    process group (Ctrl-C, a kill of the group) does not stop it half way, a lock passed in
    stays held until git itself is done even when the caller is killed, and its complaints go
    to a file, not a pipe a dead caller would break. Exit status and stderr."""
    with tempfile.TemporaryFile() as errors:
        done = subprocess.run(
            ["git", *_SAFE_CONFIG, *args],
            cwd=cwd,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=errors,
            env={**_base_env(), **env},
            start_new_session=True,
            pass_fds=tuple(pass_fds),
        )
        errors.seek(0)
        return done.returncode, errors.read().decode("utf-8", errors="replace")


def split_z(raw: bytes) -> list[str]:
    """NUL-separated git output as paths (undecodable bytes kept via surrogateescape)."""
    return [item.decode("utf-8", errors="surrogateescape") for item in raw.split(b"\0") if item]


def join_z(paths: Sequence[str]) -> bytes:
    return b"".join(p.encode("utf-8", errors="surrogateescape") + b"\0" for p in paths)


def _base_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in _REPO_SELECTORS}
    env.update(
        GIT_AUTHOR_NAME=HARNESS_NAME,
        GIT_AUTHOR_EMAIL=HARNESS_EMAIL,
        GIT_COMMITTER_NAME=HARNESS_NAME,
        GIT_COMMITTER_EMAIL=HARNESS_EMAIL,
        GIT_TERMINAL_PROMPT="0",
        GIT_LITERAL_PATHSPECS="1",
        LC_ALL="C",
    )
    return env
