"""The plan and revise phases: commands the planner runs, and what a revision is told."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from calcrepo import CALC, FIX_ADD, FIX_STEP, PYPROJECT, TESTS, plan
from fake_model_servers import anthropic_message, anthropic_tool_use, fake_anthropic
from gitrepo import git, make_repo
from rich.console import Console

from coder.loop.runner import RunOptions, run_task
from coder.loop.state.trace import read_trace
from coder.progress import ProgressPrinter
from coder.show import render_run

ENVIRONMENT = {"build/env.txt": "put there before the plan phase\n", "local.cfg": "x = 1\n"}


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_repo(
        tmp_path / "repo",
        {
            "calc.py": CALC,
            "tests/test_calc.py": TESTS,
            "pyproject.toml": PYPROJECT,
            ".gitignore": "build/\nlocal.cfg\n*.log\n.cache/\n",
        },
    )


def environment(event: dict[str, Any]) -> None:
    """Ignored files in the worktree before the first model call, as the sandbox's
    environment puts them there (copied include files, dependency mount points)."""
    if event["type"] == "run_started":
        for rel, text in ENVIRONMENT.items():
            path = Path(event["worktree"]) / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)


def test_plan_phase_commands_run_confined_and_what_they_change_is_reset(repo, script, tmp_path):
    messy = (
        "echo '# probe' >> calc.py; echo scratch > scratch.txt; echo x > run.log; "
        "mkdir -p .cache && echo c > .cache/c; python -m pytest -q tests; cat local.cfg"
    )
    look = "git status --porcelain --ignored --untracked-files=all; tail -1 calc.py"
    console = Console(record=True, width=200)
    outcome = run_task(
        RunOptions(
            repo=repo,
            task="make add() add",
            model=script(
                {"tool": "run", "input": {"command": messy}},
                plan(FIX_STEP),
                {"tool": "run", "input": {"command": look}},
                {"tool": "edit_file", "input": FIX_ADD},
                {"tool": "finish_step", "input": {"summary": "fixed"}},
            ),
            out_dir=tmp_path / "run",
            listeners=[environment, ProgressPrinter(console)],
        )
    )
    result, events = outcome.result, read_trace(outcome.run_dir / "trace.jsonl")
    observations = [e for e in events if e["type"] == "observation" and e.get("tool") == "run"]
    probe, seen = observations[0]["text"], observations[1]["text"]
    assert "1 failed, 1 passed" in probe and "x = 1" in probe, "the planner reproduced the bug"
    reset = [e for e in events if e["type"] == "rollback"]
    assert len(reset) == 1 and reset[0]["step"] is None and reset[0]["phase"] == "plan"
    assert set(reset[0]["paths"]) == {"calc.py", "scratch.txt", "run.log", ".cache"}
    status = seen.split("\n", 2)[2]
    assert "scratch.txt" not in status and "run.log" not in status and ".cache" not in status
    assert "!! build/" in status and "!! local.cfg" in status, "the environment stays"
    assert "# probe" not in seen
    assert result.status == "verified" and "probe" not in result.patch
    assert git(repo, "status", "--porcelain") == "", "the user's tree is never touched"
    said = next(
        line
        for line in console.export_text().splitlines()
        if "reset what the plan phase's commands changed: " in line
    )
    assert said.endswith(" (+1 more)") and said.count(", ") == 2
    render_run(outcome.run_dir, console)
    shown = console.export_text()
    assert "(plan)" in shown and "scratch.txt" in shown, shown


def test_a_plan_phase_without_commands_resets_nothing(repo, script, tmp_path):
    outcome = run_task(
        RunOptions(
            repo=repo,
            task="make add() add",
            model=script(
                plan(FIX_STEP),
                {"tool": "edit_file", "input": FIX_ADD},
                {"tool": "finish_step", "input": {"summary": "fixed"}},
            ),
            out_dir=tmp_path / "run",
        )
    )
    events = read_trace(outcome.run_dir / "trace.jsonl")
    assert outcome.result.status == "verified"
    assert not [e for e in events if e["type"] == "rollback"]


def _call(tool: str, **args: Any) -> dict:
    return anthropic_message(tool_calls=[anthropic_tool_use(tool, args)])


def test_a_revision_and_the_retried_step_are_told_what_the_failed_attempt_did(
    repo, tmp_path, monkeypatch
):
    wrong_half = {"path": "calc.py", "old_text": "value * factor", "new_text": "value + factor"}
    replies = [
        _call("submit_plan", **plan(FIX_STEP)["input"]),
        _call("edit_file", **FIX_ADD),
        _call("edit_file", **wrong_half),
        _call("finish_step", summary="fixed add and tidied scale"),
        _call("submit_plan", **plan(FIX_STEP)["input"]),
        _call("edit_file", **FIX_ADD),
        _call("finish_step", summary="fixed add only"),
    ]
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-revision-test")
    with fake_anthropic(replies) as server:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.base_url)
        result = run_task(
            RunOptions(
                repo=repo, task="make add() add", model="anthropic:claude-test", out_dir=tmp_path
            )
        ).result
    briefings = [r.body["messages"][0]["content"][0]["text"] for r in server.requests]
    assert result.status == "verified" and result.revisions == 1
    execute = [b for b in briefings if "Phase: EXECUTE" in b]
    assert len(execute) == 5 and all("Test command: python -m pytest -q" in b for b in execute)
    revise = next(b for b in briefings if "Phase: REVISE" in b)
    retried = execute[-1]
    for told in (revise, retried):
        assert "test_scale" in told, "the failed check's evidence"
        assert "its finish_step summary was 'fixed add and tidied scale'" in told
        assert "-    return a - b\n+    return a + b" in told, "the correct half, to keep"
        assert "+    return value + factor" in told, "the wrong half, to drop"
    assert "fixed add and tidied scale" not in execute[0]
