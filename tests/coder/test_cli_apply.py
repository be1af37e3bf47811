"""`--apply` and `coder apply` as real processes: one line on why not, and one applier at a time."""

from __future__ import annotations

import fcntl
import json
import os
import time
from pathlib import Path

from calcrepo import FIX_TURNS, make_calc_repo, plan, step
from clirun import coder, run_args, start_coder
from gitrepo import git, snapshot, write_script


def fix_script(tmp_path: Path, name: str = "fix.json") -> Path:
    return write_script(tmp_path / name, list(FIX_TURNS))


def notes_script(tmp_path: Path) -> Path:
    return write_script(
        tmp_path / "notes.json",
        [
            plan(step("notes", ["NOTES.md"], [])),
            {"tool": "write_file", "input": {"path": "NOTES.md", "content": "notes\n"}},
            {"tool": "finish_step", "input": {"summary": "wrote notes"}},
        ],
    )


def test_two_concurrent_apply_runs_apply_exactly_one(tmp_path):
    repo = make_calc_repo(tmp_path)
    procs = [
        start_coder(*run_args(repo, fix_script(tmp_path), "--out", str(tmp_path / "a"), "--apply")),
        start_coder(
            *run_args(repo, notes_script(tmp_path), "--out", str(tmp_path / "b"), "--apply")
        ),
    ]
    outputs = [p.communicate(timeout=180) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], outputs
    results = [json.loads((tmp_path / d / "result.json").read_text()) for d in ("a", "b")]
    assert [r["status"] for r in results] == ["verified", "verified"]
    assert sorted(r["applied"] for r in results) == [False, True]
    loser = next(i for i, r in enumerate(results) if not r["applied"])
    said = " ".join(outputs[loser][1].split())  # loud: on stderr, as a warning
    assert "warning: not applied: your working tree has uncommitted changes" in said
    assert f"coder apply {tmp_path / 'ab'[loser]} --repo {repo}" in said
    status = git(repo, "status", "--porcelain").splitlines()
    assert len(status) == 1, status  # one run's change, never both


def test_apply_rechecks_the_tree_under_the_lock(tmp_path):
    repo = make_calc_repo(tmp_path)
    done = coder(*run_args(repo, fix_script(tmp_path), "--out", str(tmp_path / "run")))
    assert done.returncode == 0, done.stderr
    assert "to take the change: `git merge coder/" in done.stdout
    lock = repo / ".git" / "coder-apply.lock"
    with lock.open("a") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        proc = start_coder("apply", str(tmp_path / "run"), "--repo", str(repo))
        deadline = time.monotonic() + 60
        while not _has_open(proc.pid, lock):  # it passed its own checks and waits for the lock
            assert time.monotonic() < deadline and proc.poll() is None, proc.communicate()
            time.sleep(0.02)
        (repo / "README.md").write_text("written while the apply waited\n")
        before = snapshot(repo)
        fcntl.flock(held, fcntl.LOCK_UN)
        stdout, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 1, (stdout, stderr)
    assert stderr.startswith("not applied: your working tree has uncommitted changes (README.md)")
    assert snapshot(repo) == before


def test_coder_apply_exit_codes(tmp_path):
    repo = make_calc_repo(tmp_path)
    done = coder(*run_args(repo, fix_script(tmp_path), "--out", str(tmp_path / "run")))
    assert done.returncode == 0, done.stderr
    applied = coder("apply", str(tmp_path / "run"), "--repo", str(repo))
    assert applied.returncode == 0, applied.stderr
    assert applied.stdout.startswith("applied to your working tree")
    assert "return a + b" in (repo / "calc.py").read_text()
    again = coder("apply", str(tmp_path / "run"), "--repo", str(repo))
    assert again.returncode == 1 and again.stderr.startswith("not applied: already applied")
    empty = tmp_path / "empty"
    empty.mkdir()
    bad = coder("apply", str(empty))
    assert bad.returncode == 2 and "no result.json" in bad.stderr
    assert "Traceback" not in bad.stderr and len(bad.stderr.strip().splitlines()) == 1


def _has_open(pid: int, path: Path) -> bool:
    try:
        fds = os.listdir(f"/proc/{pid}/fd")
    except OSError:
        return False
    for fd in fds:
        try:
            if os.readlink(f"/proc/{pid}/fd/{fd}") == str(path):
                return True
        except OSError:
            continue
    return False
