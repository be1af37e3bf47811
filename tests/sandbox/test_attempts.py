"""A rolled-back attempt is restored byte for byte, and never through a link the model made
in the worktree since (at the path or at a parent directory)."""

from __future__ import annotations

from pathlib import Path

from gitrepo import git, make_repo

from sandbox.attempts import restore_files, save_attempt


def test_restoring_an_attempt_replaces_links_instead_of_writing_through_them(tmp_path: Path):
    repo = make_repo(tmp_path / "repo", {"calc.py": "a - b\n", "pkg/mod.py": "x = 1\n"})
    base = git(repo, "rev-parse", "HEAD").strip()
    (repo / "calc.py").write_text("a + b\n")
    (repo / "pkg" / "mod.py").write_text("x = 2\n")
    (repo / "run.sh").write_text("#!/bin/sh\n")
    (repo / "run.sh").chmod(0o755)
    attempt = save_attempt(repo, base, "refs/coder/attempts/1-s", "s")
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
