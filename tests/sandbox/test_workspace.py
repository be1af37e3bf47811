from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from clirun import interruptible

from sandbox.checkpoint import Checkpoints
from sandbox.workspace import Workspace, WorkspaceError, new_run_id, prune_stale_worktrees
from tests.sandbox.gitrepos import make_repo, run_git, snapshot, write_files

REPO_ROOT = Path(__file__).resolve().parents[2]


def test_create_makes_a_worktree_on_a_new_branch_from_head(repo: Path) -> None:
    head = run_git(repo, "rev-parse", "HEAD").strip()
    with Workspace.create(repo, "r1") as ws:
        assert ws.path == repo / ".git" / "coder-worktrees" / "r1"
        assert ws.branch == "coder/r1"
        assert ws.base_commit == head
        assert (ws.path / "src" / "app.py").read_text().startswith("def add")
        assert run_git(ws.path, "rev-parse", "--abbrev-ref", "HEAD").strip() == "coder/r1"
        assert str(ws.path) in run_git(repo, "worktree", "list", "--porcelain")
        assert ws.user_tree_dirty is False
        assert ws.notes == []
    assert not ws.path.exists()
    assert str(ws.path) not in run_git(repo, "worktree", "list", "--porcelain")
    assert run_git(repo, "rev-parse", "coder/r1").strip() == head  # the branch stays


def test_an_attempt_works_on_the_branch_it_is_given_under_coder(repo: Path) -> None:
    """One attempt of several (coder.attempts) works on `coder/<run-id>/a<i>`."""
    with Workspace.create(repo, "r1-a2", branch="coder/r1/a2") as ws:
        assert ws.branch == "coder/r1/a2"
        assert run_git(ws.path, "rev-parse", "--abbrev-ref", "HEAD").strip() == "coder/r1/a2"
    with pytest.raises(WorkspaceError, match="under coder/"):
        Workspace.create(repo, "r2", branch="main")
    assert "r2" not in run_git(repo, "branch", "--list")


def test_worktree_is_git_not_a_copy(repo: Path) -> None:
    with Workspace.create(repo, "r1") as ws:
        assert (ws.path / ".git").is_file()
        common = run_git(ws.path, "rev-parse", "--path-format=absolute", "--git-common-dir")
        assert Path(common.strip()) == repo / ".git"


def test_close_is_idempotent_and_runs_on_exception(repo: Path) -> None:
    with pytest.raises(RuntimeError), Workspace.create(repo, "boom") as ws:
        (ws.path / "new.txt").write_text("uncommitted work\n")
        raise RuntimeError("the run crashed")
    assert not ws.path.exists()
    ws.close()
    ws.close()
    assert not (repo / ".git" / "coder-worktrees" / "boom.owner.json").exists()


def test_close_removes_a_worktree_made_read_only(repo: Path) -> None:
    ws = Workspace.create(repo, "ro")
    locked = ws.path / "locked"
    locked.mkdir()
    (locked / "f").write_text("x")
    locked.chmod(0o500)
    ws.close()
    assert not ws.path.exists()


def test_dirty_user_tree_is_reported_and_left_alone(repo: Path) -> None:
    (repo / "README.md").write_text("user's unsaved edit\n")
    (repo / "scratch.txt").write_text("untracked\n")
    before = snapshot(repo)
    with Workspace.create(repo, "dirty") as ws:
        assert ws.user_tree_dirty is True
        assert any("uncommitted changes" in note for note in ws.notes)
        assert (ws.path / "README.md").read_text() == "hello\n"  # starts from HEAD
        assert not (ws.path / "scratch.txt").exists()
        (ws.path / "README.md").write_text("the run's edit\n")
    assert snapshot(repo) == before


def test_detached_head_starts_from_the_commit_and_says_so(repo: Path) -> None:
    head = run_git(repo, "rev-parse", "HEAD").strip()
    run_git(repo, "checkout", "-q", "--detach")
    with Workspace.create(repo, "det") as ws:
        assert ws.detached_head is True
        assert ws.base_commit == head
        assert any("detached" in note and head[:12] in note for note in ws.notes)


def test_coder_dir_is_excluded_once(repo: Path) -> None:
    for run_id in ("a", "b"):
        Workspace.create(repo, run_id).close()
    exclude = (repo / ".git" / "info" / "exclude").read_text()
    assert exclude.splitlines().count(".coder/") == 1
    (repo / ".coder" / "runs").mkdir(parents=True)
    (repo / ".coder" / "runs" / "x.json").write_text("{}")
    assert run_git(repo, "status", "--porcelain") == ""


def test_harness_commits_do_not_touch_user_config(repo: Path) -> None:
    config_before = (repo / ".git" / "config").read_text()
    with Workspace.create(repo, "ident") as ws:
        (ws.path / "x.txt").write_text("x\n")
        sha = Checkpoints(ws.path).commit("step one")
        author = run_git(ws.path, "log", "-1", "--format=%an <%ae>|%cn", sha).strip()
        assert author == "coder <coder@localhost>|coder"
    assert (repo / ".git" / "config").read_text() == config_before


def test_run_id_is_sortable_and_unique() -> None:
    ids = [new_run_id() for _ in range(50)]
    assert all(re.fullmatch(r"\d{8}-\d{6}-[0-9a-f]{6}", i) for i in ids)
    assert len(set(ids)) == 50
    assert sorted(ids)[0][:15] <= ids[-1][:15]


@pytest.mark.parametrize("bad_id", ["", "../escape", "a b", "x/y", "-flag"])
def test_bad_run_ids_are_refused(repo: Path, bad_id: str) -> None:
    with pytest.raises(WorkspaceError, match="invalid run id"):
        Workspace.create(repo, bad_id)


def test_existing_branch_is_refused(repo: Path) -> None:
    run_git(repo, "branch", "coder/taken")
    with pytest.raises(WorkspaceError, match="already exists"):
        Workspace.create(repo, "taken")


# --- refusals -------------------------------------------------------------------------------


def _one_line(error: pytest.ExceptionInfo[WorkspaceError]) -> str:
    message = str(error.value)
    assert "\n" not in message
    return message


def test_refuses_a_directory_that_is_not_a_repository(tmp_path: Path) -> None:
    (tmp_path / "plain").mkdir()
    with pytest.raises(WorkspaceError) as error:
        Workspace.create(tmp_path / "plain", "r")
    assert "not a git repository" in _one_line(error)


def test_refuses_a_missing_path(tmp_path: Path) -> None:
    with pytest.raises(WorkspaceError) as error:
        Workspace.create(tmp_path / "nope", "r")
    assert "not a directory" in _one_line(error)


def test_refuses_a_repository_without_commits(tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    run_git(empty, "init", "-q")
    with pytest.raises(WorkspaceError) as error:
        Workspace.create(empty, "r")
    assert "no commits" in _one_line(error)
    assert not (empty / ".git" / "coder-worktrees" / "r").exists()


def test_refuses_an_unborn_branch_in_a_repository_with_history(repo: Path) -> None:
    run_git(repo, "checkout", "-q", "--orphan", "fresh")
    with pytest.raises(WorkspaceError) as error:
        Workspace.create(repo, "r")
    assert "no commits on fresh" in _one_line(error)


def test_refuses_a_bare_repository(tmp_path: Path, repo: Path) -> None:
    bare = tmp_path / "bare.git"
    run_git(tmp_path, "clone", "-q", "--bare", str(repo), str(bare))
    with pytest.raises(WorkspaceError) as error:
        Workspace.create(bare, "r")
    assert "bare repository" in _one_line(error)


def test_refuses_the_git_directory_itself(repo: Path) -> None:
    with pytest.raises(WorkspaceError) as error:
        Workspace.create(repo / ".git", "r")
    assert ".git directory" in _one_line(error)


def test_subdirectory_means_its_repository(repo: Path) -> None:
    with Workspace.create(repo / "src", "sub") as ws:
        assert ws.repo == repo
        assert (ws.path / "README.md").exists()


# --- killed runs ---------------------------------------------------------------------------

_HOLD_A_WORKSPACE = textwrap.dedent(
    """
    import sys, time
    from pathlib import Path
    from sandbox.workspace import Workspace
    ws = Workspace.create(Path(sys.argv[1]), sys.argv[2])
    (ws.path / "half-done.txt").write_text("work in progress")
    print(ws.path, flush=True)
    time.sleep(60)
    """
)


def _start_and_kill(repo: Path, run_id: str) -> Path:
    proc = subprocess.Popen(
        [sys.executable, "-c", _HOLD_A_WORKSPACE, str(repo), run_id],
        cwd=REPO_ROOT,
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(REPO_ROOT)},
    )
    assert proc.stdout is not None
    path = Path(proc.stdout.readline().strip())
    assert path.is_dir()
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=10)
    return path


def test_killed_run_leaves_the_user_repo_as_it_was_and_is_pruned(repo: Path) -> None:
    write_files(repo, {"README.md": "user edit, not committed\n"})
    before = snapshot(repo)
    status_before = run_git(repo, "status", "--porcelain")
    head_before = run_git(repo, "rev-parse", "HEAD")

    stale = _start_and_kill(repo, "killed")

    assert snapshot(repo) == before
    assert run_git(repo, "status", "--porcelain") == status_before
    assert run_git(repo, "rev-parse", "HEAD") == head_before
    assert stale.exists()  # nobody cleaned up: the process died with SIGKILL

    live = Workspace.create(repo, "alive")  # the next run prunes the stale worktree
    try:
        assert not stale.exists()
        assert str(stale) not in run_git(repo, "worktree", "list", "--porcelain")
        assert live.path.exists()
        assert prune_stale_worktrees(repo) == []  # a live owner is never pruned
        assert live.path.exists()
    finally:
        live.close()
    assert snapshot(repo) == before


def test_prune_reports_what_it_removed(repo: Path) -> None:
    stale = _start_and_kill(repo, "gone")
    assert prune_stale_worktrees(repo) == [stale]
    assert not stale.exists()
    assert prune_stale_worktrees(repo) == []


def test_prune_on_a_repository_that_never_had_a_run(tmp_path: Path) -> None:
    assert prune_stale_worktrees(make_repo(tmp_path / "fresh")) == []


_CTRL_C_DURING_A_RUN = textwrap.dedent(
    """
    import sys, time
    from pathlib import Path
    from sandbox.workspace import Workspace
    with Workspace.create(Path(sys.argv[1]), "interrupted") as ws:
        (ws.path / "half-done.txt").write_text("work in progress")
        print(ws.path, flush=True)
        time.sleep(60)
    """
)


def test_ctrl_c_removes_the_worktree_and_keeps_the_branch(repo: Path) -> None:
    proc = subprocess.Popen(
        [sys.executable, "-c", _CTRL_C_DURING_A_RUN, str(repo)],
        cwd=REPO_ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env={**os.environ, "PYTHONPATH": str(REPO_ROOT)},
        preexec_fn=interruptible,
    )
    assert proc.stdout is not None
    path = Path(proc.stdout.readline().strip())
    assert path.is_dir()
    proc.send_signal(signal.SIGINT)
    assert proc.wait(timeout=20) != 0
    assert not path.exists()
    assert not path.with_name("interrupted.owner.json").exists()
    assert run_git(repo, "branch", "--list", "coder/interrupted").strip() == "coder/interrupted"
