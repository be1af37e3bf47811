from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from sandbox.changes import PathChange
from sandbox.checkpoint import (
    Checkpoints,
    InvalidRollbackRef,
    RollbackError,
    resolve_rollback_ref,
)
from sandbox.workspace import Workspace
from tests.sandbox.gitrepos import make_repo, run_git, snapshot, write_files


def _status(ws: Workspace) -> str:
    return run_git(ws.path, "status", "--porcelain", "--ignored", "--untracked-files=all")


def _every_kind_of_change(root: Path) -> None:
    """A step that edits, creates, deletes, renames, chmods and makes ignored files."""
    (root / "src" / "app.py").write_text("def add(a, b):\n    return a + b\n")
    write_files(root, {"src/new_module.py": "NEW = True\n", "docs/guide/intro.md": "# new\n"})
    (root / "README.md").unlink()
    (root / "src" / "util.py").rename(root / "src" / "helpers.py")
    os.chmod(root / "run.sh", 0o755)
    write_files(root, {"build/out/artifact.bin": "binary", "debug.log": "log line\n"})


def test_rollback_restores_every_kind_of_change(workspace: Workspace) -> None:
    cps = Checkpoints(workspace.path)
    before = snapshot(workspace.path)
    checkpoint = cps.take("step-1")
    _every_kind_of_change(workspace.path)

    report = cps.rollback(checkpoint, checkpoint.sha, None)

    assert snapshot(workspace.path) == before
    assert _status(workspace) == ""
    assert report.complete is True
    assert report.restored_by_harness == []
    assert report.to == checkpoint.sha
    assert set(report.paths) == {
        "src/app.py",
        "src/new_module.py",
        "docs/guide/intro.md",
        "README.md",
        "src/util.py",
        "src/helpers.py",
        "run.sh",
        "build",
        "debug.log",
    }
    assert not (workspace.path / "docs").exists()  # emptied directories go too


def test_changes_since_names_each_kind(workspace: Workspace) -> None:
    cps = Checkpoints(workspace.path)
    checkpoint = cps.take("step-1")
    _every_kind_of_change(workspace.path)
    changes = set(cps.changes_since(checkpoint.sha))
    assert changes == {
        PathChange("src/app.py", "modified"),
        PathChange("src/new_module.py", "added"),
        PathChange("docs/guide/intro.md", "added"),
        PathChange("README.md", "deleted"),
        PathChange("src/helpers.py", "renamed", "src/util.py"),
        PathChange("run.sh", "mode"),
    }  # ignored files are not changes


def test_changes_since_an_older_commit_includes_committed_work(workspace: Workspace) -> None:
    cps = Checkpoints(workspace.path)
    first = cps.take("one")
    write_files(workspace.path, {"a.txt": "a\n"})
    cps.commit("one")
    write_files(workspace.path, {"b.txt": "b\n"})
    paths = {c.path: c.kind for c in cps.changes_since(first.sha)}
    assert paths == {"a.txt": "added", "b.txt": "added"}


def test_partial_plan_is_completed_and_reported(workspace: Workspace) -> None:
    cps = Checkpoints(workspace.path)
    before = snapshot(workspace.path)
    checkpoint = cps.take("step-1")
    write_files(workspace.path, {"src/app.py": "broken\n", "tests/test_app.py": "broken\n"})
    write_files(workspace.path, {"stray.txt": "made by a command\n"})

    report = cps.rollback(checkpoint, checkpoint.sha, ["src/app.py"])

    assert snapshot(workspace.path) == before
    assert report.complete is False
    assert sorted(report.restored_by_harness) == ["stray.txt", "tests/test_app.py"]


def test_plan_with_globs_that_covers_everything_is_complete(workspace: Workspace) -> None:
    cps = Checkpoints(workspace.path)
    checkpoint = cps.take("step-1")
    write_files(workspace.path, {"src/app.py": "x\n", "src/deep/new.py": "y\n"})
    report = cps.rollback(checkpoint, checkpoint.sha, ["src/**"])
    assert report.complete is True
    assert _status(workspace) == ""


def test_ignored_files_from_before_the_checkpoint_survive(workspace: Workspace) -> None:
    cps = Checkpoints(workspace.path)
    write_files(workspace.path, {"build/cache.bin": "from an earlier step", "old.log": "kept\n"})
    checkpoint = cps.take("step-2")
    write_files(workspace.path, {"new.log": "made by this step\n", "src/app.py": "edit\n"})

    report = cps.rollback(checkpoint, checkpoint.sha, None)

    assert (workspace.path / "build" / "cache.bin").exists()
    assert (workspace.path / "old.log").exists()
    assert not (workspace.path / "new.log").exists()
    assert report.complete is True
    assert "build" not in report.paths and "old.log" not in report.paths


def test_rollback_by_sha_uses_the_checkpoint_taken_there(workspace: Workspace) -> None:
    cps = Checkpoints(workspace.path)
    write_files(workspace.path, {"keep.log": "earlier\n"})
    checkpoint = cps.take("step-2")
    write_files(workspace.path, {"drop.log": "this step\n"})
    cps.rollback(checkpoint.sha, checkpoint.sha, None)
    assert (workspace.path / "keep.log").exists()
    assert not (workspace.path / "drop.log").exists()


def test_rollback_of_a_committed_step(workspace: Workspace) -> None:
    cps = Checkpoints(workspace.path)
    before = snapshot(workspace.path)
    checkpoint = cps.take("step-1")
    write_files(workspace.path, {"src/app.py": "committed change\n", "added.py": "x\n"})
    committed = cps.commit("step-1")
    assert committed != checkpoint.sha

    report = cps.rollback(checkpoint, checkpoint.sha, None)

    assert run_git(workspace.path, "rev-parse", "HEAD").strip() == checkpoint.sha
    assert snapshot(workspace.path) == before
    assert report.complete is True
    assert not cps.contains(checkpoint.sha, committed)
    assert cps.contains(committed, checkpoint.sha)


def test_rollback_further_back_drops_earlier_commits(workspace: Workspace) -> None:
    cps = Checkpoints(workspace.path)
    start = snapshot(workspace.path)
    base = cps.take("one").sha
    write_files(workspace.path, {"one.txt": "1\n"})
    one = cps.commit("one")
    checkpoint = cps.take("two")
    write_files(workspace.path, {"two.txt": "2\n", "src/app.py": "changed\n"})

    target = resolve_rollback_ref("HEAD~2", checkpoint.sha, {"one": one}, workspace.path)
    assert target == base
    report = cps.rollback(checkpoint, target, ["two.txt"])  # a partial plan cannot apply here

    assert run_git(workspace.path, "rev-parse", "HEAD").strip() == base
    assert snapshot(workspace.path) == start
    assert report.complete is True
    assert set(report.paths) == {"one.txt", "two.txt", "src/app.py"}


def test_rollback_refuses_a_target_not_behind_head(workspace: Workspace) -> None:
    cps = Checkpoints(workspace.path)
    checkpoint = cps.take("one")
    run_git(workspace.path, "checkout", "-q", "-b", "elsewhere")
    write_files(workspace.path, {"side.txt": "x\n"})
    side = cps.commit("side")
    run_git(workspace.path, "checkout", "-q", workspace.branch)
    with pytest.raises(ValueError, match="not behind HEAD"):
        cps.rollback(checkpoint, side, None)


def test_a_file_replaced_by_a_directory_comes_back(workspace: Workspace) -> None:
    cps = Checkpoints(workspace.path)
    before = snapshot(workspace.path)
    checkpoint = cps.take("step")
    (workspace.path / "README.md").unlink()
    write_files(workspace.path, {"README.md/inner.txt": "now a directory\n"})
    (workspace.path / "src" / "app.py").unlink()
    os.symlink("/etc/passwd", workspace.path / "src" / "app.py")
    report = cps.rollback(checkpoint, checkpoint.sha, None)
    assert snapshot(workspace.path) == before
    assert report.complete is True


def test_unrestorable_worktree_raises(workspace: Workspace) -> None:
    cps = Checkpoints(workspace.path)
    checkpoint = cps.take("step")
    stuck = workspace.path / "stuck.txt"
    stuck.write_text("cannot be deleted\n")
    if subprocess.run(["chattr", "+i", str(stuck)], capture_output=True).returncode != 0:
        pytest.skip("chattr +i is not available here; nothing can make a file undeletable")
    try:
        with pytest.raises(RollbackError, match="stuck.txt"):
            cps.rollback(checkpoint, checkpoint.sha, None)
    finally:
        subprocess.run(["chattr", "-i", str(stuck)], check=True)


def test_commit_stages_everything_and_allows_empty(workspace: Workspace) -> None:
    cps = Checkpoints(workspace.path)
    write_files(workspace.path, {"new.txt": "n\n", "ignored.log": "not committed\n"})
    (workspace.path / "README.md").unlink()
    first = cps.commit("step one")
    files = run_git(workspace.path, "show", "--name-status", "--format=", first)
    assert "A\tnew.txt" in files and "D\tREADME.md" in files and "ignored.log" not in files
    second = cps.commit("step two: nothing changed")
    assert second != first
    assert run_git(workspace.path, "rev-parse", f"{second}~1").strip() == first
    assert (
        run_git(workspace.path, "log", "-1", "--format=%s").strip() == "step two: nothing changed"
    )


def test_commit_ignores_repository_hooks(workspace: Workspace) -> None:
    hook = workspace.repo / ".git" / "hooks" / "pre-commit"
    hook.write_text('#!/bin/sh\necho hooked > "$(git rev-parse --show-toplevel)/HOOKED"\nexit 1\n')
    hook.chmod(0o755)
    write_files(workspace.path, {"x.txt": "x\n"})
    Checkpoints(workspace.path).commit("no hooks")
    assert not (workspace.path / "HOOKED").exists()


# --- resolve_rollback_ref ----------------------------------------------------------------


def test_head_n_counts_from_the_checkpoint(workspace: Workspace) -> None:
    cps = Checkpoints(workspace.path)
    base = cps.take("a").sha
    write_files(workspace.path, {"a": "a"})
    a = cps.commit("a")
    write_files(workspace.path, {"b": "b"})
    b = cps.commit("b")
    steps = {"a": a, "b": b}
    assert resolve_rollback_ref("HEAD~1", b, steps, workspace.path) == b
    assert resolve_rollback_ref("HEAD~2", b, steps, workspace.path) == a
    assert resolve_rollback_ref("HEAD~3", b, steps, workspace.path) == base
    assert resolve_rollback_ref("step:a", b, steps, workspace.path) == a


@pytest.mark.parametrize(
    ("ref", "message"),
    [
        ("HEAD~0", "N >= 1"),
        ("HEAD", "not a rollback target"),
        ("main", "not a rollback target"),
        ("HEAD~99", "further than the branch"),
        ("step:nope", "no verified step 'nope'"),
    ],
)
def test_bad_rollback_refs(workspace: Workspace, ref: str, message: str) -> None:
    head = run_git(workspace.path, "rev-parse", "HEAD").strip()
    with pytest.raises(InvalidRollbackRef, match=message):
        resolve_rollback_ref(ref, head, {"a": head}, workspace.path)


def test_rollback_ref_may_not_pass_the_base(workspace: Workspace, repo: Path) -> None:
    write_files(repo, {"second.txt": "2\n"})
    run_git(repo, "add", "-A")
    run_git(repo, "commit", "-q", "-m", "second")
    with Workspace.create(repo, "later") as ws:
        head = ws.base_commit
        assert resolve_rollback_ref("HEAD~2", head, {}, ws.path)  # history exists
        with pytest.raises(InvalidRollbackRef, match="past the run's base"):
            resolve_rollback_ref("HEAD~2", head, {}, ws.path, base_commit=ws.base_commit)


def test_tracked_symlinks_are_restored(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "links", {"a.txt": "a\n", "b.txt": "b\n"})
    os.symlink("a.txt", repo / "to_a")
    os.symlink("b.txt", repo / "to_b")
    run_git(repo, "add", "-A")
    run_git(repo, "commit", "-q", "-m", "links")
    with Workspace.create(repo, "links") as ws:
        cps = Checkpoints(ws.path)
        before = snapshot(ws.path)
        checkpoint = cps.take("step")
        (ws.path / "to_a").unlink()
        os.symlink("b.txt", ws.path / "to_a")  # retargeted
        (ws.path / "to_b").unlink()
        (ws.path / "to_b").write_text("b.txt")  # same bytes, but a file now
        report = cps.rollback(checkpoint, checkpoint.sha, ["to_a"])
        assert snapshot(ws.path) == before
        assert report.restored_by_harness == ["to_b"]


ODD_NAMES = ["a\nb.txt", "tab\there.txt", os.fsdecode(b"caf\xe9.txt"), ' quoted "name".txt']


def test_names_with_newlines_and_odd_bytes_roll_back_and_commit(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "odd", {name: f"{i}\n" for i, name in enumerate(ODD_NAMES)})
    cps = Checkpoints(repo)
    before = snapshot(repo)
    checkpoint = cps.take("odd")
    for name in ODD_NAMES[:3]:
        (repo / name).write_text("changed\n")
    os.rename(repo / ODD_NAMES[3], repo / "moved\nhere.txt")
    (repo / "new\nfile.txt").write_text("new\n")
    changes = {(c.path, c.kind, c.old_path) for c in cps.changes_since(checkpoint.sha)}
    assert ("moved\nhere.txt", "renamed", ODD_NAMES[3]) in changes
    assert ("new\nfile.txt", "added", None) in changes
    assert {(name, "modified", None) for name in ODD_NAMES[:3]} <= changes
    report = cps.rollback(checkpoint, checkpoint.sha, ["a\nb.txt"])
    assert snapshot(repo) == before
    assert report.complete is False and "new\nfile.txt" in report.restored_by_harness
    (repo / "a\nb.txt").write_text("kept\n")
    sha = cps.commit("odd names")
    shown = subprocess.run(
        ["git", "show", f"{sha}:a\nb.txt"], cwd=repo, capture_output=True, check=True
    )
    assert shown.stdout == b"kept\n"
