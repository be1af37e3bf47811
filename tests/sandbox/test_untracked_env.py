"""The environment as its owner has it: a dependency directory at the top that git neither
tracks nor ignores (`python -m venv .venv` in a project without that ignore line) comes into
the run's view as an ignored one would, is never a change of the run or of the user, and what
cannot come in is named with the `include` that brings it. A dependency directory may also be
a link to an install shared between checkouts, when the person names it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from sandbox.changes import scan_worktree
from sandbox.repo_env import RepoEnvironmentError, prepare_environment
from sandbox.shared_installs import SHARED_INSTALLS_ENV
from sandbox.workspace import Workspace, new_run_id, uncommitted_changes
from tests.sandbox.confined import confined, needs_bwrap
from tests.sandbox.gitrepos import make_repo, run_git, snapshot, write_files


def _venv(path: Path) -> Path:
    subprocess.run(
        [sys.executable, "-m", "venv", "--without-pip", "--system-site-packages", str(path)],
        check=True,
    )
    return path


def _prepare(repo: Path, **kwargs):  # type: ignore[no-untyped-def]
    workspace = Workspace.create(repo, new_run_id())
    kwargs.setdefault("include", [])
    kwargs.setdefault("sandbox_mode", "bwrap")
    try:
        return workspace, prepare_environment(workspace, **kwargs)
    except BaseException:
        workspace.close()
        raise


def test_an_untracked_top_level_venv_is_not_an_uncommitted_change(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {"README.md": "hi\n"})
    _venv(repo / ".venv")
    write_files(repo, {"node_modules/x/index.js": "", "pkg/venv/pyvenv.cfg": ""})
    assert run_git(repo, "status", "--porcelain") != ""  # git calls them untracked
    assert uncommitted_changes(repo) == ["pkg/"]  # a nested one is the user's work
    (repo / "pkg" / "venv" / "pyvenv.cfg").unlink()
    (repo / "pkg" / "venv").rmdir()
    (repo / "pkg").rmdir()
    with Workspace.create(repo, new_run_id()) as workspace:
        assert workspace.user_tree_dirty is False
        assert not any("uncommitted" in note for note in workspace.notes)
    write_files(repo, {"notes.txt": "mine\n"})
    assert uncommitted_changes(repo) == ["notes.txt"]
    with Workspace.create(repo, new_run_id()) as workspace:
        assert workspace.user_tree_dirty is True


@pytest.mark.parametrize("mode", ["bwrap", "none"])
def test_an_untracked_top_level_venv_is_brought_in_and_hidden_from_git(
    tmp_path: Path, mode: str
) -> None:
    repo = make_repo(tmp_path / "repo", {"README.md": "hi\n", "pkg/index.js": ""})
    _venv(repo / ".venv")
    write_files(repo, {"pkg/node_modules/y/index.js": ""})  # nested: not the top's
    before = snapshot(repo)
    workspace, env = _prepare(repo, sandbox_mode=mode, test_cmd=".venv/bin/python -m pytest")
    with workspace:
        assert [e.rel for e in env.exposed] == [".venv"]
        assert env.exposed[0].source == repo / ".venv"
        assert env.venv == repo / ".venv"
        scan = scan_worktree(workspace.path, with_ignored=True)
        assert scan.changes == []
        assert all(e.startswith(".venv/") for e in scan.ignored)
        assert run_git(workspace.path, "status", "--porcelain", "--untracked-files=all") == ""
        run_git(workspace.path, "add", "-A")
        assert run_git(workspace.path, "diff", "--cached", "--name-only") == ""
    assert snapshot(repo) == before


def test_what_cannot_come_in_is_named_with_the_include_that_brings_it(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {"README.md": "hi\n", "backend/app.py": ""})
    _venv(repo / "backend" / ".venv")
    command = "backend/.venv/bin/python -m pytest backend"
    with pytest.raises(RepoEnvironmentError) as raised:
        _prepare(repo, test_cmd=command)
    message = str(raised.value)
    assert "backend/.venv/bin/python" in message
    assert 'include = ["/backend/.venv"]' in message
    assert "fix the command" not in message and "\n" not in message
    workspace, env = _prepare(repo, test_cmd=command, include=["/backend/.venv"])
    with workspace:
        assert [e.rel for e in env.exposed] == ["backend/.venv"]
        assert scan_worktree(workspace.path).changes == []


def test_a_program_that_is_nowhere_is_left_to_the_baseline(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {"README.md": "hi\n"})
    workspace, env = _prepare(repo, test_cmd="CI=1 .venv/bin/python -m pytest")
    with workspace:
        assert env.exposed == []


@needs_bwrap
def test_a_dependency_link_to_a_named_shared_install_is_shown_writable_and_never_written(
    visible_base: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shared = visible_base / "shared"
    write_files(shared, {"node_modules/left/index.js": "module.exports = 1;\n"})
    repo = make_repo(visible_base / "repo", {".gitignore": "node_modules/\n", "README.md": "hi\n"})
    (repo / "node_modules").symlink_to(shared / "node_modules", target_is_directory=True)
    monkeypatch.delenv(SHARED_INSTALLS_ENV, raising=False)
    with pytest.raises(RepoEnvironmentError, match=SHARED_INSTALLS_ENV):
        _prepare(repo)
    monkeypatch.setenv(SHARED_INSTALLS_ENV, f"relative/dir{os.pathsep}/")
    with pytest.raises(RepoEnvironmentError, match="outside the repository"):
        _prepare(repo)  # neither a relative entry nor / trusts anything
    monkeypatch.setenv(SHARED_INSTALLS_ENV, str(shared))
    for path in [visible_base, *visible_base.rglob("*")]:
        if path.is_dir() and not path.is_symlink():
            path.chmod(0o755)
    before = snapshot(shared)
    with confined(repo) as box:
        assert [(e.rel, e.source) for e in box.environment.exposed] == [
            ("node_modules", shared / "node_modules")
        ]
        wrote = box.run(
            "cat node_modules/left/index.js && echo 'changed' > node_modules/left/index.js && "
            "mkdir -p node_modules/.vite && touch node_modules/.vite/x && "
            "cat node_modules/left/index.js"
        )
        assert wrote.exit_code == 0, wrote.output
        assert wrote.output.split() == ["module.exports", "=", "1;", "changed"]
        again = box.run("cat node_modules/left/index.js; ls -a node_modules")
        assert "module.exports = 1;" in again.output and ".vite" not in again.output
        assert scan_worktree(box.worktree).changes == []
    assert snapshot(shared) == before
