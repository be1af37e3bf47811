"""Where a run's time went: model, setup, baseline, the model's commands, step verification,
the final check and the harness's own share, each reported apart and adding up to wall_s."""

from __future__ import annotations

import json

from calcrepo import FIX_ADD, step
from fake_model_servers import Reply, anthropic_message, anthropic_tool_use, fake_anthropic
from rich.console import Console

from coder.loop.runner import RunOptions, run_task
from coder.loop.state.trace import read_trace
from coder.show import render_run

SLOW_CHECK = "python -c 'import time; time.sleep(0.6)'"
SLOW_RUN = "python -c 'import time; time.sleep(0.3)'"
MODEL_DELAY_S = 0.4


def test_each_kind_of_time_is_reported_apart_and_they_add_up(calc_repo, tmp_path, monkeypatch):
    plan = {
        "goal": "fix add",
        "steps": [
            step("fix-add", ["calc.py"], [{"kind": "command_succeeds", "command": SLOW_CHECK}])
        ],
    }
    replies = [
        Reply(
            anthropic_message(tool_calls=[anthropic_tool_use("submit_plan", plan)]),
            delay_s=MODEL_DELAY_S,
        ),
        anthropic_message(tool_calls=[anthropic_tool_use("edit_file", FIX_ADD)]),
        anthropic_message(tool_calls=[anthropic_tool_use("run", {"command": SLOW_RUN})]),
        anthropic_message(tool_calls=[anthropic_tool_use("finish_step", {"summary": "fixed"})]),
    ]
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-timing-test")
    with fake_anthropic(replies) as server:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.base_url)
        outcome = run_task(
            RunOptions(
                repo=calc_repo,
                task="fix add",
                model="anthropic:claude-test",
                out_dir=tmp_path / "run",
            )
        )
    result = json.loads((outcome.run_dir / "result.json").read_text())
    assert result["status"] == "verified", result["message"]
    timing = result["timing"]
    assert timing["model_s"] >= MODEL_DELAY_S
    assert timing["tool_commands_s"] >= 0.3
    assert timing["verification_s"] >= 0.6
    assert timing["baseline_s"] > 0 and timing["final_check_s"] > 0  # the repo's pytest, twice
    assert timing["setup_s"] > 0
    assert timing["harness_s"] == result["harness_s"] < timing["verification_s"]
    assert abs(sum(timing.values()) - result["wall_s"]) < 0.01  # nothing counted twice or lost
    finished = next(
        e for e in read_trace(outcome.run_dir / "trace.jsonl") if e["type"] == "run_finished"
    )
    assert finished["timing"] == timing

    console = Console(record=True, width=300)
    render_run(outcome.run_dir, console)
    shown = console.export_text()
    assert f"step verification {timing['verification_s']:.1f}s" in shown
    assert f"final check {timing['final_check_s']:.1f}s" in shown
    assert (
        f"model {timing['model_s']:.1f}s" in shown
        and f"harness {timing['harness_s']:.1f}s" in shown
    )
