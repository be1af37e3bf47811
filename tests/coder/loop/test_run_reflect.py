"""Reflect mode end to end: real git repositories, the real sandbox, the scripted model (or the
real Anthropic SDK against the local wire server where what the model was sent matters)."""

from __future__ import annotations

import io
import json
from pathlib import Path

from calcrepo import CALC, FIX_ADD
from fake_model_servers import anthropic_message, anthropic_tool_use, fake_anthropic
from gitrepo import git, snapshot
from rich.console import Console

from coder.loop.reflect import run_account
from coder.loop.runner import RunOptions, run_task
from coder.loop.state.trace import read_trace
from coder.progress import ProgressPrinter
from coder.show import render_run
from coder.verdict.baseline import run_baseline
from coder.verdict.run import run_tests
from sandbox.confine import make_sandbox

BREAK_SCALE = {"path": "calc.py", "old_text": "value * factor", "new_text": "value ** factor"}
SCALE_PROBLEM = "scale() fails for factor=3 now; keep it multiplying"


def reflect(repo: Path, model: str, **kw) -> tuple:
    outcome = run_task(
        RunOptions(repo=repo, task="make add() add", model=model, mode="reflect", **kw)
    )
    return outcome.result, read_trace(outcome.run_dir / "trace.jsonl"), outcome.run_dir


def tool(name: str, **args) -> dict:
    return {"tool": name, "input": args}


def said(name: str, **args) -> dict:
    return anthropic_message(tool_calls=[anthropic_tool_use(name, args)])


def of_type(events: list[dict], kind: str) -> list[dict]:
    return [e for e in events if e["type"] == kind]


def test_ok_verdict_ships_the_attempt_and_the_critic_saw_diff_and_tests(
    calc_repo, monkeypatch
) -> None:
    before = snapshot(calc_repo)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
    replies = [
        said("edit_file", **FIX_ADD),
        said("final_answer", summary="add adds now"),
        said("critique_done", verdict="ok"),
    ]
    with fake_anthropic(replies) as server:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.base_url)
        result, events, run_dir = reflect(calc_repo, "anthropic:claude-test")
        critic = json.dumps(server.requests[2].body)
        tools = [t["name"] for t in server.requests[2].body["tools"]]
    assert (result.mode, result.status, result.stop_reason) == ("reflect", "verified", "completed")
    assert (result.rollbacks, result.revisions, result.model_turns) == (0, 0, 3)
    assert "return a + b" in result.patch
    assert sorted(tools) == ["critique_done", "list_files", "read_file", "run", "search", "stop"]
    assert "add adds now" in critic and "+    return a + b" in critic
    assert "The harness ran the test command `python -m pytest -q` on the attempt" in critic
    assert "it passed (exit 0)" in critic
    assert "Before the change, these tests already failed: tests/test_calc.py::test_add." in (
        critic
    )
    (critique,) = of_type(events, "critique")
    assert (critique["verdict"], critique["tests"]["exit_code"]) == ("ok", 0)
    assert [e["phase"] for e in of_type(events, "model_call")] == ["react", "react", "critique:1"]
    final = of_type(events, "verification")[-1]
    assert final["kind"] == "final_check" and final["reused"] is True
    assert snapshot(calc_repo) == before


def test_problem_verdict_rolls_back_and_a_fresh_attempt_fixes_it(calc_repo, monkeypatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
    replies = [
        said("edit_file", **FIX_ADD),
        said("edit_file", **BREAK_SCALE),
        said("final_answer", summary="first attempt: add fixed, scale tidied"),
        said("critique_done", verdict="problem"),
        said("critique_done", verdict="problem", problem=SCALE_PROBLEM),
        said("edit_file", **FIX_ADD),
        said("final_answer", summary="add fixed"),
    ]
    with fake_anthropic(replies) as server:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.base_url)
        result, events, run_dir = reflect(calc_repo, "anthropic:claude-test")
        critic = json.dumps(server.requests[3].body)
        retry = json.dumps(server.requests[5].body["messages"])
    assert (result.status, result.rollbacks, result.revisions) == ("verified", 1, 1)
    assert "return a + b" in result.patch and "**" not in result.patch
    assert "1 test(s) that passed before the change now fail: tests/test_calc.py::test_scale" in (
        critic
    )
    rejected = [e for e in of_type(events, "observation") if e["tool"] == "critique_done"]
    assert rejected[0]["status"] == "error" and "needs `problem`" in rejected[0]["text"]
    assert SCALE_PROBLEM in retry and "discarded" in retry
    assert "first attempt: add fixed" not in retry and "value ** factor" not in retry
    (rollback,) = of_type(events, "rollback")
    assert (rollback["to"], rollback["paths"], rollback["complete"]) == ("base", ["calc.py"], True)
    (critique,) = of_type(events, "critique")
    assert critique["tests"]["failing"] == ["tests/test_calc.py::test_scale"]
    assert critique["attempt_commit"] not in git(calc_repo, "rev-list", result.branch).split()
    phases = [e["phase"] for e in of_type(events, "model_call")]
    assert phases == ["react"] * 3 + ["critique:1"] * 2 + ["retry:1"] * 2


def test_a_worse_retry_replaces_a_right_first_attempt(calc_repo, script) -> None:
    """A critic that flags a right answer: the retry is what ships, even though it is worse."""
    printed = io.StringIO()
    result, events, run_dir = reflect(
        calc_repo,
        script(
            tool("edit_file", **FIX_ADD),
            tool("final_answer", summary="fixed add"),
            tool("critique_done", verdict="problem", problem="add() should not use +"),
            tool("edit_file", **FIX_ADD),
            tool("edit_file", **BREAK_SCALE),
            tool("final_answer", summary="fixed add and scale"),
        ),
        listeners=[ProgressPrinter(Console(file=printed, width=200))],
    )
    assert (result.status, result.stop_reason) == ("failed", "final_check_failed")
    live = printed.getvalue()
    assert "critique 1: problem: add() should not use +" in live
    assert "rolled back critique:1 to base" in live
    shown = Console(record=True, width=200)
    render_run(run_dir, shown)
    table = shown.export_text()
    assert "critique:1" in table and "problem" in table and "tests: exit 0" in table
    assert result.final_check and result.final_check.new_failures == [
        "tests/test_calc.py::test_scale"
    ]
    assert "value ** factor" in git(calc_repo, "show", f"{result.branch}:calc.py")
    first = of_type(events, "critique")[0]["attempt_commit"]
    ancestors = git(calc_repo, "rev-list", result.branch).split()
    assert first not in ancestors and result.final_commit in ancestors


def test_one_critique_round_by_default_and_max_revisions_bounds_the_rounds(
    calc_repo, script
) -> None:
    turns = [
        tool("edit_file", **BREAK_SCALE),
        tool("final_answer", summary="scale"),
        tool("critique_done", verdict="problem", problem="add() still subtracts"),
        tool("edit_file", **BREAK_SCALE),
        tool("final_answer", summary="scale again"),
    ]
    result, events, run_dir = reflect(calc_repo, script(*turns))
    assert len(of_type(events, "critique")) == 1 and result.revisions == 1
    assert result.stop_reason == "final_check_failed"  # not model_error: no second critique

    more = [
        tool("critique_done", verdict="problem", problem="scale broke"),
        tool("edit_file", **FIX_ADD),
        tool("final_answer", summary="add"),
        tool("critique_done", verdict="ok"),
    ]
    result, events, run_dir = reflect(calc_repo, script(*turns, *more), max_revisions=3)
    assert [e["verdict"] for e in of_type(events, "critique")] == ["problem", "problem", "ok"]
    assert (result.status, result.rollbacks, result.revisions) == ("verified", 2, 2)


def test_the_critique_cannot_change_what_ships(calc_repo, script) -> None:
    """Read-only tools and `run`: an edit is refused, and what a command changed is reset."""
    result, events, run_dir = reflect(
        calc_repo,
        script(
            tool("edit_file", **FIX_ADD),
            tool("final_answer", summary="fixed add"),
            {
                "calls": [
                    tool("edit_file", path="calc.py", old_text="a + b", new_text="a * b"),
                    tool("run", command="sed -i 's/a + b/a * b/' calc.py && touch junk.txt"),
                ]
            },
            tool("critique_done", verdict="ok"),
        ),
    )
    assert result.status == "verified"
    assert "return a + b" in git(calc_repo, "show", f"{result.branch}:calc.py")
    assert "junk.txt" not in result.patch
    refused = [e for e in of_type(events, "observation") if e["tool"] == "edit_file"][-1]
    assert (
        refused["status"] == "error"
        and "not available in the critique:1 phase" in (refused["text"])
    )
    reset = [e for e in of_type(events, "rollback") if e["to"] == "HEAD"]
    assert reset and set(reset[0]["paths"]) == {"calc.py", "junk.txt"}


def test_what_the_critic_is_told_of_the_harness_run(calc_repo) -> None:
    """Judged against the base (new failures, still failing), a timeout said as one."""
    box = make_sandbox("bwrap", calc_repo, warn=None)
    base = run_baseline(box, calc_repo, "python -m pytest -q", 60)
    (calc_repo / "calc.py").write_text(CALC.replace("value * factor", "value ** factor"))
    told = run_account(run_tests(box, calc_repo, "python -m pytest -q", 60), base)
    assert told.startswith("The harness ran the test command `python -m pytest -q`")
    assert "it exited 1; 1 test(s) that passed before the change now fail: " in told
    assert (
        "tests/test_calc.py::test_scale; still failing as before the change, the same way: " in told
    )
    assert "tests/test_calc.py::test_add." in told and "AssertionError" in told

    (calc_repo / "calc.py").write_text(CALC.replace("a - b", "a * b"))
    told = run_account(run_tests(box, calc_repo, "python -m pytest -q", 60), base)
    assert "the same way" not in told
    assert (
        "tests/test_calc.py::test_add failed before the change too, but differently: it was "
        "AssertionError: assert -1 == 5"
    ) in told
    assert "now AssertionError: assert 6 == 5" in told

    (calc_repo / "calc.py").write_text(CALC.replace("return a - b", "while True:\n        pass"))
    told = run_account(run_tests(box, calc_repo, "python -m pytest -q", 1), base)
    assert "on the attempt: it timed out after 1s and was killed." in told
    assert run_account(None, base).startswith("No test command is known")
