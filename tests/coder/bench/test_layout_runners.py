"""`layout.toml`'s `node_modules = "js-runners"`: the runners scripts/js-runners installed,
copied into the fixture repository as `npm ci` would leave them; without them, the fixture's
pairs are skipped with the reason, never run and never an error."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from rich.console import Console

from coder.bench.cli import bench_command
from coder.bench.fixtures import MODES, load_fixtures, skipped
from coder.bench.layout import JS_RUNNERS_ENV, Layout, lay_out, unavailable

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


def test_the_runners_are_a_real_copy_that_git_ignores(runners_cache: Path, tmp_path: Path):
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / ".gitignore").write_text("node_modules/\n")
    (repo / "package.json").write_text('{"scripts": {"test": "fake-runner"}}\n')
    _git(repo, "init", "-q", "-b", "main")
    _git(repo, "add", "-A")
    _git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "base")
    layout = Layout(node_modules="js-runners")
    assert unavailable(layout) is None

    lay_out(tmp_path / "no-fixture-dir", repo, layout)

    modules = repo / "node_modules"
    assert modules.is_dir() and not modules.is_symlink()
    link = modules / ".bin" / "fake-runner"
    assert link.is_symlink() and link.resolve() == (modules / "fake-runner" / "cli.js")
    assert (modules / "fake-runner" / "cli.js").stat().st_mode & 0o111
    (modules / "fake-runner" / "cli.js").write_text("changed\n")  # a tool writing its cache
    assert "ran" in (runners_cache / "node_modules" / "fake-runner" / "cli.js").read_text()
    assert _git(repo, "status", "--porcelain") == ""


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
