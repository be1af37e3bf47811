"""A rolled-back attempt is restored byte for byte, and never through a link the model made
in the worktree since (at the path or at a parent directory). It is kept in a throwaway object
directory, never in the repository's objects or refs, scrubbed and bounded like a commit."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from gitrepo import git, make_repo

from sandbox.attempts import discard_attempt, restore_files, save_attempt


def test_restoring_an_attempt_replaces_links_instead_of_writing_through_them(tmp_path: Path):
    repo = make_repo(tmp_path / "repo", {"calc.py": "a - b\n", "pkg/mod.py": "x = 1\n"})
    base = git(repo, "rev-parse", "HEAD").strip()
    (repo / "calc.py").write_text("a + b\n")
    (repo / "pkg" / "mod.py").write_text("x = 2\n")
    (repo / "run.sh").write_text("#!/bin/sh\n")
    (repo / "run.sh").chmod(0o755)
    attempt = save_attempt(repo, base, "s", tmp_path / "store")
    assert attempt is not None
    git(repo, "checkout", "-q", "--", ".")
    (repo / "run.sh").unlink()
    private = tmp_path / "private"
    private.mkdir(mode=0o700)
    target = private / "secret"
    target.write_text("root-only\n")
    (repo / "calc.py").unlink()
    (repo / "calc.py").symlink_to(target)
    (repo / "pkg" / "mod.py").unlink()
    (repo / "pkg").rmdir()
    (repo / "pkg").symlink_to(private)
    restore_files(repo, attempt, ["calc.py", "pkg/mod.py", "run.sh"])
    assert target.read_text() == "root-only\n"
    assert sorted(p.name for p in private.iterdir()) == ["secret"]
    assert (repo / "calc.py").read_text() == "a + b\n" and not (repo / "calc.py").is_symlink()
    assert (repo / "pkg" / "mod.py").read_text() == "x = 2\n"
    assert (repo / "run.sh").stat().st_mode & 0o777 == 0o755


def _objects(repo: Path, env: dict[str, str] | None = None) -> bytes:
    """Every object of a store (the repository's, or `GIT_OBJECT_DIRECTORY`), as git shows it."""
    return subprocess.run(
        ["git", "cat-file", "--batch-all-objects", "--batch"],
        cwd=repo,
        capture_output=True,
        check=True,
        env={**os.environ, **(env or {})},
    ).stdout


def _everything_git_holds(repo: Path) -> bytes:
    return _objects(repo) + git(repo, "for-each-ref").encode()


def test_an_attempt_is_kept_outside_the_repository_scrubbed_and_bounded(tmp_path: Path):
    repo = make_repo(tmp_path / "repo", {"calc.py": "a - b\n", "old.txt": "old\n"})
    base = git(repo, "rev-parse", "HEAD").strip()
    (repo / "calc.py").write_text("a + b  # ATTEMPT-MARKER\n")
    (repo / "key.txt").write_text("SECRET-IN-A-FILE\n")
    (repo / "big.bin").write_bytes(b"B" * 4096)
    (repo / "old.txt").unlink()
    before = _everything_git_holds(repo)
    store = tmp_path / "store"
    attempt = save_attempt(
        repo,
        base,
        "s",
        store,
        left_out={"key.txt": "it held a secret the harness holds"},
        max_file_bytes=1024,
    )
    assert attempt is not None and not attempt.refused
    assert attempt.changes == {"calc.py": "M", "old.txt": "D"}
    assert attempt.not_kept == {
        "key.txt": "it held a secret the harness holds",
        "big.bin": "4096 bytes, over the 1024 byte file size bound",
    }
    assert _everything_git_holds(repo) == before  # no object, no ref
    shown = _objects(repo, {"GIT_OBJECT_DIRECTORY": str(store)})
    assert b"ATTEMPT-MARKER" in shown
    assert b"SECRET-IN-A-FILE" not in shown and b"B" * 4096 not in shown
    git(repo, "checkout", "-q", "--", ".")
    restore_files(repo, attempt, ["calc.py", "old.txt"])
    assert (repo / "calc.py").read_text() == "a + b  # ATTEMPT-MARKER\n"
    assert not (repo / "old.txt").exists()
    again = save_attempt(repo, base, "t", store, max_change_bytes=8)
    assert again is not None and again.changes == {}
    assert (
        again.refused.startswith("the change was ") and "over the bound of 8 bytes" in again.refused
    )
    assert not store.exists()  # saving another replaced the first; this one kept nothing
    discard_attempt(store)
