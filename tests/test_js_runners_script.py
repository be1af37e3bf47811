"""scripts/js-runners as scripts/bootstrap runs it (`--optional`): the bench's runner fixtures
need its cache, and a machine without npm (or offline) is told which of them will be skipped,
without failing the set-up."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "scripts" / "js-runners"
TOOLS = ("bash", "dirname", "cat", "grep", "xargs", "basename", "paste", "sed", "cmp", "env")


def _runner_fixtures() -> list[str]:
    return sorted(
        p.parent.name
        for p in (ROOT / "fixtures").glob("*/layout.toml")
        if 'node_modules = "js-runners"' in p.read_text(encoding="utf-8")
    )


def _run(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(SCRIPT), *args], capture_output=True, text=True, env=env, timeout=60)


def _path_without_npm(tmp_path: Path) -> str:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for tool in TOOLS:
        found = shutil.which(tool)
        assert found, tool
        (bin_dir / tool).symlink_to(found)
    return str(bin_dir)


def test_without_npm_one_line_names_the_skipped_fixtures(tmp_path: Path):
    names = _runner_fixtures()
    assert len(names) == 4
    env = {**os.environ, "PATH": _path_without_npm(tmp_path)}
    optional = _run("--optional", env=env)
    assert optional.returncode == 0
    (line,) = optional.stderr.splitlines()
    assert "npm is not installed" in line and "scripts/js-runners" in line
    assert f"skips {', '.join(names)} (" in line
    assert _run(env=env).returncode == 1  # run by hand, it is an error


def test_a_failed_install_is_a_warning_for_the_bootstrap(tmp_path: Path):
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    env = {**os.environ, "CODER_JS_RUNNERS": str(blocker / "cache")}
    done = _run("--optional", env=env)
    assert done.returncode == 0
    assert "warning: could not install the runners" in done.stderr
    assert all(name in done.stderr for name in _runner_fixtures())
    assert _run(env=env).returncode != 0


def test_the_bootstrap_runs_it_optionally():
    lines = (ROOT / "scripts" / "bootstrap").read_text(encoding="utf-8").splitlines()
    assert "scripts/js-runners --optional" in lines
