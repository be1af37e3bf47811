"""`coder clean`: removes what finished runs left (branches, old run directories), says what
first, asks unless --yes, and never touches a run that is going on."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from calcrepo import FIX_STEP, FIX_TURNS, make_calc_repo, plan
from clirun import coder, coder_env, run_args, start_coder
from gitrepo import git, write_script
from plansupport import wait_for

from sandbox.workspace import prune_stale_worktrees


def _branches(repo: Path) -> set[str]:
    return set(git(repo, "branch", "--format=%(refname:short)").split())


def _finished_run(repo: Path, tmp_path: Path, name: str) -> str:
    script = write_script(tmp_path / f"{name}.json", list(FIX_TURNS))
    proc = coder(*run_args(repo, script), "--json")
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)["run_id"]


def _live_run(repo: Path, tmp_path: Path) -> tuple[subprocess.Popen[str], str]:
    script = write_script(
        tmp_path / "live.json",
        [plan(FIX_STEP), {"tool": "run", "input": {"command": "sleep 100"}}],
    )
    proc = start_coder(*run_args(repo, script), "--cmd-timeout", "120")
    runs = repo / ".coder" / "runs"

    def sleeping() -> str | None:
        for trace in runs.glob("*/trace.jsonl"):
            if not (trace.parent / "result.json").exists() and "sleep 100" in trace.read_text():
                return trace.parent.name
        return None

    return proc, wait_for("the live run's command", sleeping)


def _age(run_dir: Path, days: float) -> None:
    when = time.time() - days * 86_400
    for name in ("result.json", "state.json", "trace.jsonl"):
        if (run_dir / name).exists():
            os.utime(run_dir / name, (when, when))


def test_clean_removes_finished_runs_branches_and_never_a_live_run(tmp_path):
    repo = make_calc_repo(tmp_path)
    first = _finished_run(repo, tmp_path, "a")
    second = _finished_run(repo, tmp_path, "b")
    live, live_id = _live_run(repo, tmp_path)
    try:
        assert {f"coder/{first}", f"coder/{second}", f"coder/{live_id}"} <= _branches(repo)
        asked = coder("clean", "--repo", str(repo))  # no terminal, no --yes
        assert asked.returncode == 2
        assert f"branch coder/{first} (verified" in asked.stdout
        assert "pass --yes" in asked.stdout
        assert f"coder/{live_id}" not in asked.stdout.replace(f"run {live_id} is going on", "")
        assert f"coder/{first}" in _branches(repo)
        done = coder("clean", "--repo", str(repo), "--yes")
        assert done.returncode == 0, done.stdout + done.stderr
        assert f"kept: run {live_id} is going on now" in done.stdout
        assert _branches(repo) == {"main", f"coder/{live_id}"}
        assert (repo / ".coder" / "runs" / first).is_dir()  # run directories: only with an age
    finally:
        live.send_signal(signal.SIGTERM)
        live.communicate(timeout=60)
    assert _branches(repo) == {"main", f"coder/{live_id}"}
    again = coder("clean", "--repo", str(repo), "--yes")
    assert again.returncode == 0 and _branches(repo) == {"main"}


def test_older_than_keeps_newer_runs_and_removes_old_run_directories(tmp_path):
    repo = make_calc_repo(tmp_path)
    old = _finished_run(repo, tmp_path, "a")
    new = _finished_run(repo, tmp_path, "b")
    _age(repo / ".coder" / "runs" / old, 10)
    proc = coder("clean", "--repo", str(repo), "--older-than", "5", "--yes")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert f"run directory .coder/runs/{old} (verified, 10 days old)" in proc.stdout
    assert "kept: 2 newer than 5 day(s)" in proc.stdout
    assert _branches(repo) == {"main", f"coder/{new}"}
    assert not (repo / ".coder" / "runs" / old).exists()
    assert (repo / ".coder" / "runs" / new).is_dir()
    nothing = coder("clean", "--repo", str(repo), "--older-than", "5")
    assert nothing.returncode == 0 and "nothing to clean" in nothing.stdout


def test_clean_outside_a_repository_is_one_line(tmp_path):
    proc = coder("clean", "--repo", str(tmp_path))
    assert proc.returncode == 2 and "is not a git repository" in proc.stderr


KILLED_PLAN_SESSION = """
import sys, time
from sandbox.workspace import Workspace
Workspace.create(sys.argv[1], "20260101-000000-abcdef", throwaway=True)
print("ready", flush=True)
time.sleep(100)
"""


def test_a_killed_plan_sessions_branch_goes_with_its_worktree(tmp_path):
    repo = make_calc_repo(tmp_path)
    child = subprocess.Popen(
        [sys.executable, "-c", KILLED_PLAN_SESSION, str(repo)],
        stdout=subprocess.PIPE,
        text=True,
        env=coder_env(),
    )
    assert child.stdout is not None and child.stdout.readline() == "ready\n"
    assert "coder/20260101-000000-abcdef" in _branches(repo)
    child.kill()
    child.wait()
    assert prune_stale_worktrees(repo)
    assert _branches(repo) == {"main"}


def _commit_on(repo: Path, branch: str, message: str, env: dict[str, str] | None = None) -> None:
    """A commit on `branch` made the way a person makes one, not by a run."""
    tree = git(repo, "rev-parse", f"{branch}^{{tree}}").strip()
    sha = git(repo, "commit-tree", tree, "-p", branch, "-m", message, env=env).strip()
    git(repo, "update-ref", f"refs/heads/{branch}", sha)


def test_clean_keeps_a_run_branch_carrying_a_commit_coder_did_not_make(tmp_path):
    repo = make_calc_repo(tmp_path)
    mine, late, plain = (_finished_run(repo, tmp_path, name) for name in ("a", "b", "c"))
    _commit_on(repo, f"coder/{mine}", "my own follow-up")
    later = str(int(time.time()) + 3600)
    coder_later = {
        "GIT_COMMITTER_NAME": "coder",
        "GIT_COMMITTER_EMAIL": "coder@localhost",
        "GIT_COMMITTER_DATE": f"{later} +0000",
    }
    _commit_on(repo, f"coder/{late}", "coder: more\n\nCoder-Step: fix-add", coder_later)
    done = coder("clean", "--repo", str(repo), "--yes")
    assert done.returncode == 0, done.stdout + done.stderr
    assert _branches(repo) == {"main", f"coder/{mine}", f"coder/{late}"}
    kept = [line for line in done.stdout.splitlines() if "did not make" in line]
    assert len(kept) == 2, done.stdout
    [own] = [line for line in kept if f"coder/{mine}" in line]
    assert own.startswith(f"kept: branch coder/{mine} carries a commit coder did not make")
    assert '"my own follow-up"' in own
    assert any(line.startswith(f"kept: branch coder/{late} carries") for line in kept)
    assert f"branch coder/{plain}" in done.stdout


def test_clean_removes_attempt_refs_an_earlier_version_left_and_the_pack_cache(tmp_path):
    """coder before issue 32 kept rolled-back attempts as refs in the user's repository; the
    view's copies of packs (sandbox/packfilter.py) are a cache."""
    repo = make_calc_repo(tmp_path)
    head = git(repo, "rev-parse", "HEAD").strip()
    git(repo, "update-ref", "refs/coder/attempts/1-fix-add", head)
    cache = repo / ".git" / "coder-packs" / "pack-1-2"
    cache.mkdir(parents=True)
    done = coder("clean", "--repo", str(repo), "--yes")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "attempt ref refs/coder/attempts/1-fix-add (a rolled-back attempt" in done.stdout
    assert "pack cache " in done.stdout and not cache.parent.exists()
    assert git(repo, "for-each-ref", "refs/coder").strip() == ""


def test_the_branches_a_run_of_attempts_leaves_are_a_finished_runs(tmp_path):
    """`coder/<run-id>` and each attempt's `coder/<run-id>-a<i>` (its directory is
    `<run-id>/a<i>/`) go with the run; a branch under coder/ that is no run's stays."""
    repo = make_calc_repo(tmp_path)
    run_id = "20261201-101010-abcdef"
    for attempt in ("a1", "a2"):
        attempt_dir = repo / ".coder" / "runs" / run_id / attempt
        attempt_dir.mkdir(parents=True)
        (attempt_dir / "result.json").write_text('{"status": "failed", "stop_reason": "x"}')
    (repo / ".coder" / "runs" / run_id / "result.json").write_text('{"status": "verified"}')
    for branch in (f"coder/{run_id}", f"coder/{run_id}-a1", f"coder/{run_id}-a2", "coder/mine-a1"):
        git(repo, "branch", branch)
    done = coder("clean", "--repo", str(repo), "--yes")
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"branch coder/{run_id}-a2 (failed (x)" in done.stdout
    assert _branches(repo) == {"main", "coder/mine-a1"}
