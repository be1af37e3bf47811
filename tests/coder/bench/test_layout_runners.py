"""`layout.toml`'s `node_modules = "js-runners"`: the runners scripts/js-runners installed,
shared with the fixture repository by a link, never copied, and shown to commands as a
throwaway layer over the install; without them, the fixture's pairs are skipped with the
reason, never run and never an error."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from rich.console import Console

from coder.bench.cli import bench_command
from coder.bench.fixtures import MODES, load_fixtures, skipped
from coder.bench.layout import (
    JS_RUNNERS_ENV,
    JS_RUNNERS_LOCK,
    Layout,
    js_runners_dir,
    lay_out,
    share_js_runners,
    unavailable,
)
from sandbox.changes import scan_worktree
from sandbox.shared_installs import SHARED_INSTALLS_ENV
from sandbox.workspace import uncommitted_changes
from tests.sandbox.confined import confined, needs_bwrap
from tests.sandbox.gitrepos import snapshot

FIXTURES = Path(__file__).resolve().parents[3] / "fixtures"
RUNNER_FIXTURE = "js-jest-coupons"


def _git(repo: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, text=True)
    return done.stdout


@pytest.fixture
def runners_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A cache laid out as scripts/js-runners leaves it: a package and its `.bin` link."""
    cache = tmp_path / "cache"
    package = cache / "node_modules" / "fake-runner"
    package.mkdir(parents=True)
    (package / "package.json").write_text('{"name": "fake-runner", "bin": "cli.js"}\n')
    (package / "cli.js").write_text("#!/usr/bin/env node\nconsole.log('ran')\n")
    (package / "cli.js").chmod(0o755)
    (cache / "node_modules" / ".bin").mkdir()
    (cache / "node_modules" / ".bin" / "fake-runner").symlink_to("../fake-runner/cli.js")
    monkeypatch.setenv(JS_RUNNERS_ENV, str(cache))
    return cache


def _committed_repo(repo: Path) -> Path:
    repo.mkdir()
    (repo / ".gitignore").write_text("node_modules/\n")
    (repo / "package.json").write_text('{"scripts": {"test": "fake-runner"}}\n')
    _git(repo, "init", "-q", "-b", "main")
    _git(repo, "add", "-A")
    _git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "base")
    return repo


@needs_bwrap
def test_the_runners_are_shared_by_link_and_a_command_never_writes_them(
    runners_cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.delenv(SHARED_INSTALLS_ENV, raising=False)
    repo = _committed_repo(tmp_path / "repo")
    layout = Layout(node_modules="js-runners")
    assert unavailable(layout) is None

    lay_out(tmp_path / "no-fixture-dir", repo, layout)

    modules = repo / "node_modules"
    assert modules.is_symlink() and modules.resolve() == runners_cache / "node_modules"
    assert str(runners_cache / "node_modules") in os.environ[SHARED_INSTALLS_ENV].split(":")
    assert _git(repo, "status", "--porcelain", "--ignored") == "!! node_modules\n"
    (repo / ".git" / "info" / "exclude").write_text("")  # as a repository without the line
    assert uncommitted_changes(repo) == []  # the link is still the environment, not a change
    before = snapshot(runners_cache)
    with confined(repo) as box:
        done = box.run(
            "cat node_modules/fake-runner/cli.js | tail -1; echo changed > node_modules/fake-runner/cli.js && "
            "cat node_modules/fake-runner/cli.js"
        )
        assert done.output.split() == ["console.log('ran')", "changed"], done.output
        assert scan_worktree(box.worktree).changes == []
    assert snapshot(runners_cache) == before


def test_a_tree_whose_commands_run_unconfined_gets_a_copy(runners_cache: Path, tmp_path: Path):
    repo = _committed_repo(tmp_path / "repo")
    lay_out(tmp_path / "no-fixture-dir", repo, Layout(node_modules="js-runners"), copy_runners=True)
    modules = repo / "node_modules"
    assert modules.is_dir() and not modules.is_symlink()
    assert (modules / ".bin" / "fake-runner").resolve() == modules / "fake-runner" / "cli.js"
    (modules / "fake-runner" / "cli.js").write_text("changed\n")
    assert "ran" in (runners_cache / "node_modules" / "fake-runner" / "cli.js").read_text()
    assert _git(repo, "status", "--porcelain") == ""


def test_the_runners_are_found_by_the_lockfile_they_were_installed_from(
    runners_cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.delenv(SHARED_INSTALLS_ENV, raising=False)
    assert js_runners_dir() == runners_cache  # an install made before the cache was keyed
    key = hashlib.sha256(JS_RUNNERS_LOCK.read_bytes()).hexdigest()[:16]
    (runners_cache / "0123456789abcdef" / "node_modules").mkdir(parents=True)  # another lock's
    assert js_runners_dir() == runners_cache
    (runners_cache / key / "node_modules").mkdir(parents=True)
    assert js_runners_dir() == runners_cache / key
    repo = _committed_repo(tmp_path / "repo")
    assert share_js_runners(repo) == runners_cache / key / "node_modules"
    assert (repo / "node_modules").resolve() == runners_cache / key / "node_modules"


def test_without_the_runners_every_pair_is_skipped_with_the_reason(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setenv(JS_RUNNERS_ENV, str(tmp_path / "never-installed"))
    root = tmp_path / "fixtures"
    shutil.copytree(FIXTURES / RUNNER_FIXTURE, root / RUNNER_FIXTURE)
    (root / "expected.json").write_text("{}\n")
    reason = f"no JavaScript runners in {tmp_path / 'never-installed'}: run scripts/js-runners"
    for need_scripts in (True, False):  # a live model's run is skipped the same way
        fixtures = load_fixtures(root, None, ("react", "plan"), need_scripts=need_scripts)
        assert skipped(fixtures) == [
            {"fixture": RUNNER_FIXTURE, "mode": mode, "reason": reason}
            for mode in ("react", "plan")
        ]
    console = Console(record=True, width=250)
    out = tmp_path / "bench.json"
    assert bench_command(root, None, ",".join(MODES), None, 1, out, console) == 0
    data = json.loads(out.read_text())
    assert data["runs"] == []
    assert [(s["mode"], s["reason"]) for s in data["skipped"]] == [(m, reason) for m in MODES]
    text = console.export_text()
    for mode in MODES:
        assert f"skipped {RUNNER_FIXTURE}/{mode}: {reason}" in text
    assert "error" not in text and "0 runs in" in text
    with pytest.raises(FileNotFoundError, match="run scripts/js-runners"):
        lay_out(root / RUNNER_FIXTURE, tmp_path, Layout(node_modules="js-runners"))
