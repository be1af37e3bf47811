"""`coder resume` on runs interrupted for real: a `coder run` subprocess gets SIGINT during a
step's command, or between steps while it waits for the model, and is then resumed."""

from __future__ import annotations

import json
import signal
import subprocess
import threading
from pathlib import Path

from calcrepo import CALC, FIX_ADD, FIX_STEP, PYPROJECT, TESTS, plan
from clirun import coder, start_coder
from fake_model_servers import Reply, fake_openai, openai_completion, openai_tool_call
from gitrepo import git, make_repo, write_script
from plansupport import ADD_SUB, FIX_TURNS, SUB, SUB_TURNS, wait_for

HALF_DONE = {**SUB, "new_text": "def sub_half_done(a, b):\n    pass\n\n\ndef scale("}


def calc(tmp_path: Path) -> Path:
    return make_repo(
        tmp_path / "repo",
        {"calc.py": CALC, "tests/test_calc.py": TESTS, "pyproject.toml": PYPROJECT},
    )


def interrupt(proc: subprocess.Popen[str]) -> None:
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, out + err


def resume_and_check(tmp_path: Path, repo: Path, out: Path) -> dict:
    state = json.loads((out / "state.json").read_text())
    assert (state["status"], state["stop_reason"]) == ("ended", "interrupted")
    assert state["verified"] == ["fix-add"] and state["in_progress"]["step"] == "add-sub"
    assert state["head"] == state["step_commits"]["fix-add"] == state["in_progress"]["checkpoint"]
    assert git(repo, "rev-parse", state["branch"]).strip() == state["head"]
    rest = write_script(tmp_path / "rest.json", SUB_TURNS)
    recorded = tmp_path / "resumed.json"
    proc = coder(
        "resume",
        str(out),
        "--repo",
        str(repo),
        "--model",
        f"script:{rest}",
        "--json",
        "--record",
        str(recorded),
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    turns = json.loads(recorded.read_text())["turns"]  # the resumed part's replies only
    assert [(t["tool"], t["input"]) for t in turns] == [(t["tool"], t["input"]) for t in SUB_TURNS]
    result = json.loads(proc.stdout)
    assert (result["status"], result["resumed_from"]) == ("verified", state["run_id"])
    assert result["branch"] == state["branch"]
    assert [(s["stepId"], s["status"]) for s in result["steps"]] == [
        ("fix-add", "verified"),
        ("add-sub", "verified"),
    ]
    assert result["steps"][0]["commit"] == state["step_commits"]["fix-add"]
    calc_py = git(repo, "show", f"{result['branch']}:calc.py")
    assert "def sub(a, b)" in calc_py and "sub_half_done" not in calc_py
    assert not list((repo / ".git" / "coder-worktrees").glob("*"))
    return result


def test_sigint_during_a_step_command_then_resume(tmp_path):
    repo = calc(tmp_path)
    out = tmp_path / "run"
    hang = "touch .step-command-started && exec sleep 600"
    script = write_script(
        tmp_path / "first.json",
        [
            plan(FIX_STEP, ADD_SUB),
            *FIX_TURNS,
            {
                "calls": [
                    {"tool": "edit_file", "input": HALF_DONE},
                    {"tool": "run", "input": {"command": hang}},
                ]
            },
        ],
    )
    proc = start_coder(
        "run", "--task", "fix add, add sub", "--repo", str(repo), "--model", f"script:{script}",
        "--out", str(out), "--cmd-timeout", "600",
    )  # fmt: skip
    worktrees = repo / ".git" / "coder-worktrees"
    wait_for("the step's command", lambda: list(worktrees.glob("*/.step-command-started")))
    interrupt(proc)
    assert json.loads((out / "result.json").read_text())["stop_reason"] == "interrupted"
    resume_and_check(tmp_path, repo, out)


def test_sigint_between_steps_then_resume(tmp_path):
    repo = calc(tmp_path)
    out = tmp_path / "run"
    waiting = tmp_path / "model-is-waiting"
    released = threading.Event()

    def step_two(request) -> Reply:
        waiting.touch()
        released.wait(120)
        return Reply(openai_completion(tool_calls=[openai_tool_call("stop", "{}")]))

    turns = [
        openai_tool_call("submit_plan", json.dumps(plan(FIX_STEP, ADD_SUB)["input"])),
        openai_tool_call("edit_file", json.dumps(FIX_ADD)),
        openai_tool_call("finish_step", json.dumps({"summary": "fixed"})),
    ]
    replies = [openai_completion(tool_calls=[call]) for call in turns]
    try:
        with fake_openai(replies, respond=step_two) as server:
            proc = start_coder(
                "run", "--task", "fix add, add sub", "--repo", str(repo), "--model", "openai:local",
                "--base-url", server.base_url, "--out", str(out),
            )  # fmt: skip
            wait_for("step 2's first model call", waiting.exists)
            trace = (out / "trace.jsonl").read_text()
            assert '"step_verified"' in trace and '"step": "add-sub"' in trace
            interrupt(proc)
    finally:
        released.set()
    result = resume_and_check(tmp_path, repo, out)
    assert result["model"].startswith("script:")
    assert result["model_turns"] == 6


def test_sigint_during_the_baseline_says_nothing_was_done_and_offers_no_resume(tmp_path):
    repo = calc(tmp_path)
    out = tmp_path / "run"
    script = write_script(tmp_path / "s.json", [plan(FIX_STEP), *FIX_TURNS])
    proc = start_coder(
        "run", "--task", "fix add", "--repo", str(repo), "--model", f"script:{script}",
        "--out", str(out), "--cmd-timeout", "600",
        "--test-cmd", "touch .baseline-started && exec sleep 600",
    )  # fmt: skip
    worktrees = repo / ".git" / "coder-worktrees"
    wait_for("the baseline", lambda: list(worktrees.glob("*/.baseline-started")))
    proc.send_signal(signal.SIGINT)
    stdout, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 130, stdout + stderr
    assert "nothing was done" in stdout
    assert "coder resume" not in stdout + stderr
    assert "coder/" not in git(repo, "branch")
    again = coder("resume", str(out), "--repo", str(repo), "--model", f"script:{script}")
    assert again.returncode == 2 and "nothing to resume" in again.stderr, again.stderr
