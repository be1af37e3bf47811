"""Live feedback during a run: the phase, the command running with its elapsed time (ticking,
on a terminal), each tool call as one line as it happens; --quiet keeps only the result."""

from __future__ import annotations

import sys

import pexpect
from calcrepo import FIX_ADD, FIX_STEP, make_calc_repo, plan
from clirun import coder, coder_env, run_args
from gitrepo import write_script
from plansupport import wait_for

from coder.progress import shown_command, tool_line

WAIT = "until [ -e go ]; do sleep 0.1; done; rm -f go"
"""A command that runs until the test says so (a file it creates in the worktree)."""


def _script(tmp_path, command: str):
    return write_script(
        tmp_path / "s.json",
        [
            plan(FIX_STEP),
            {"tool": "run", "input": {"command": command}},
            {"tool": "edit_file", "input": FIX_ADD},
            {"tool": "finish_step", "input": {"summary": "fixed add"}},
        ],
    )


def test_a_terminal_shows_the_running_command_and_its_time_ticking(tmp_path):
    repo = make_calc_repo(tmp_path)
    script = _script(tmp_path, WAIT)
    child = pexpect.spawn(
        sys.executable,
        ["-m", "coder", *run_args(repo, script, "--sandbox", "none", "--cmd-timeout", "100")],
        env=coder_env(),
        encoding="utf-8",
        timeout=60,
        dimensions=(40, 200),
    )
    child.expect_exact("· run until [ -e go ]")  # the tool call, as a line of its own
    child.expect_exact(f"execute:fix-add · running `{WAIT}` 0s")
    child.expect_exact(f"execute:fix-add · running `{WAIT}` 1s")
    child.expect_exact(f"execute:fix-add · running `{WAIT}` 2s")
    worktree = wait_for(
        "the worktree", lambda: next((repo / ".git" / "coder-worktrees").glob("*/calc.py"), None)
    ).parent
    (worktree / "go").write_text("")
    child.expect_exact("· edit_file calc.py")
    child.expect_exact("(completed)")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0


def test_without_a_terminal_each_tool_call_is_a_line_and_quiet_hides_them(tmp_path):
    repo = make_calc_repo(tmp_path)
    script = _script(tmp_path, "echo hello")
    said = coder(*run_args(repo, script))
    assert said.returncode == 0, said.stderr
    lines = said.stdout.splitlines()
    calls = [line for line in lines if line.startswith("  · ")]
    assert calls == [
        "  · submit_plan fix calc",
        "  · run echo hello",
        "  · edit_file calc.py",
        "  · finish_step fixed add",
    ]
    assert lines.index("  · run echo hello") > lines.index("step 1/1 fix-add (attempt 1)")
    quiet = coder(*run_args(repo, script, "--quiet"))
    assert quiet.returncode == 0
    assert not [line for line in quiet.stdout.splitlines() if line.startswith("  ")]
    assert quiet.stdout.startswith("verified (completed)")
    assert "run directory:" in quiet.stdout


def test_a_tool_line_says_what_the_call_is_about():
    assert tool_line("read_file", {"path": "a.py", "start_line": 3, "end_line": 9}) == (
        "  · read_file a.py:3-9"
    )
    assert tool_line("search", {"pattern": "def  add\n"}) == "  · search def add"
    assert len(tool_line("run", {"command": "x" * 500})) < 120
    assert shown_command("trap 'exit $__c' EXIT; pytest -q") == "pytest -q"


def test_the_status_line_names_the_phase_and_the_running_command():
    from io import StringIO

    from rich.console import Console

    from coder.progress import ProgressPrinter, _Status

    printer = ProgressPrinter(Console(file=StringIO()))
    status = _Status(printer)
    printer({"type": "run_started", "model": "m", "mode": "contract", "test_cmd": "pytest -q",
             "branch": "b", "base_commit": "0" * 40, "sandbox": "bwrap"})  # fmt: skip
    wrapped = "trap 'exit $__c' EXIT; pytest -q"
    printer({"type": "command_started", "command": wrapped, "started": 0.0})
    assert str(status.__rich__()).startswith("baseline · running `pytest -q` ")
    printer({"type": "command_finished", "command": wrapped})
    printer({"type": "baseline", "command": "pytest -q", "exit_code": 0, "passed": 2})
    assert str(status.__rich__()) == "plan · 0 tokens"
    printer({"type": "step_started", "step": "fix-add", "attempt": 1})
    printer({"type": "command_started", "command": "ls", "started": 0.0})
    assert str(status.__rich__()).startswith("execute:fix-add · running `ls` ")
