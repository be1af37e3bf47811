"""A run against a fake Anthropic server, recorded with --record, replays offline to the same result."""

from __future__ import annotations

import json

from calcrepo import FIX_ADD, FIX_STEP
from fake_model_servers import anthropic_message, anthropic_tool_use, fake_anthropic

from coder.loop.runner import RunOptions, run_task

VOLATILE = {"run_id", "branch", "final_commit", "wall_s", "harness_s", "timing", "model", "patch"}


def comparable(result) -> dict:
    data = json.loads(result.model_dump_json())
    for step in data["steps"]:
        step.pop("commit", None)
    return {k: v for k, v in data.items() if k not in VOLATILE}


def test_recorded_run_replays_to_the_same_result(calc_repo, tmp_path, monkeypatch):
    replies = [
        anthropic_message(
            text="Planning.",
            tool_calls=[anthropic_tool_use("submit_plan", {"goal": "fix", "steps": [FIX_STEP]})],
        ),
        anthropic_message(
            tool_calls=[
                anthropic_tool_use(
                    "edit_file", {"path": "calc.py", "old_text": "nope", "new_text": "x"}
                )
            ]
        ),
        anthropic_message(tool_calls=[anthropic_tool_use("edit_file", FIX_ADD)]),
        anthropic_message(tool_calls=[anthropic_tool_use("finish_step", {"summary": "fixed"})]),
    ]
    record = tmp_path / "recorded.json"
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-recording-test")
    with fake_anthropic(replies) as server:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.base_url)
        live = run_task(
            RunOptions(
                repo=calc_repo,
                task="fix add",
                model="anthropic:claude-test",
                record=record,
                out_dir=tmp_path / "live",
            )
        ).result
        assert len(server.requests) == 4
        third = server.requests[2].body["messages"]
        results = [
            b
            for m in third
            if m["role"] == "user"
            for b in m["content"]
            if isinstance(b, dict) and b.get("type") == "tool_result"
        ]
        assert [r["tool_use_id"] for r in results] == [replies[1]["content"][0]["id"]]
        assert results[0]["is_error"] is True and "not found" in str(results[0]["content"])
    assert live.status == "verified"
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    replay = run_task(
        RunOptions(
            repo=calc_repo, task="fix add", model=f"script:{record}", out_dir=tmp_path / "replay"
        )
    ).result
    assert comparable(replay) == comparable(live)
    assert replay.patch == live.patch
