"""A full disk, for real (a small tmpfs as the run's --out): one line saying so and where, a
clean stop with the run directory whole, the user's repository as it was."""

from __future__ import annotations

import json
import time
from pathlib import Path

from calcrepo import FIX_ADD, FIX_STEP, FIX_TURNS, make_calc_repo, plan
from clirun import coder, run_args, start_coder
from gitrepo import git, snapshot, write_script
from smallfs import fill, small_tmpfs


def _waits_for(go: Path) -> list[dict]:
    """A run whose step waits (unconfined, so it sees `go`) until the test has filled the disk."""
    return [
        plan(FIX_STEP),
        {"tool": "run", "input": {"command": f"until [ -e {go} ]; do sleep 0.05; done"}},
        {"tool": "edit_file", "input": FIX_ADD},
        {"tool": "finish_step", "input": {"summary": "fixed"}},
    ]


def _trace(out: Path) -> list[dict]:
    text = (out / "trace.jsonl").read_text() if (out / "trace.jsonl").exists() else ""
    return [json.loads(line) for line in text.splitlines()]


def test_the_disk_filling_up_mid_run_is_one_line_and_a_clean_stop(tmp_path):
    repo = make_calc_repo(tmp_path)
    before = snapshot(repo)
    go = tmp_path / "go"
    script = write_script(tmp_path / "s.json", _waits_for(go))
    with small_tmpfs(tmp_path / "disk", "4m") as disk:
        out = disk / "run"
        proc = start_coder(
            *run_args(repo, script, "--out", str(out), "--sandbox", "none", "--cmd-timeout", "60")
        )
        deadline = time.monotonic() + 90
        while not any(e.get("tool") == "run" for e in _trace(out) if e["type"] == "action"):
            assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()
            time.sleep(0.05)
        fill(disk)
        go.touch()
        stdout, stderr = proc.communicate(timeout=120)
        said = f"the disk is full: no space left on {disk}"
        assert proc.returncode == 130, stdout + stderr
        assert "Traceback" not in stdout + stderr and "Errno" not in stdout + stderr
        assert [line for line in stdout.splitlines() if "disk is full" in line] == [
            line for line in stdout.splitlines() if line.startswith("stopped (interrupted)")
        ]
        assert said in stdout, stdout
        result = json.loads((out / "result.json").read_text())
        assert (result["status"], result["stop_reason"]) == ("stopped", "interrupted")
        assert result["message"].startswith(f"internal error: {said}")
        events = _trace(out)  # every line whole, the last one the run's end
        assert events[-1]["type"] == "run_finished"
        assert not list(out.glob("*.tmp")) and not (out / ".coder-reserve").exists()
        for plan_file in out.glob("plan.v*.json"):
            json.loads(plan_file.read_text())
    assert snapshot(repo) == before
    assert git(repo, "worktree", "list").count("\n") == 1


def test_a_disk_full_before_the_run_starts_is_bad_input_and_nothing_is_left(tmp_path):
    repo = make_calc_repo(tmp_path)
    before = snapshot(repo)
    script = write_script(tmp_path / "s.json", list(FIX_TURNS))
    with small_tmpfs(tmp_path / "disk", "256k") as disk:
        fill(disk)
        done = coder(*run_args(repo, script, "--out", str(disk / "run")))
        assert done.returncode == 2, done.stdout + done.stderr
        assert "Traceback" not in done.stdout + done.stderr
        assert done.stderr.strip().splitlines() == [
            f"error: the disk is full: no space left on {disk} (under {disk / 'run'}); "
            "nothing was done"
        ]
        assert not (disk / "run").exists()
    assert snapshot(repo) == before
    assert "coder/" not in git(repo, "branch")
