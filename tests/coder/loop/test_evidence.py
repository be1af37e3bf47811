"""One fact, one wording: what the planner wrote is what the model is shown, and the trace,
result.json and the terminal say the same thing in the same unit."""

from __future__ import annotations

import json

from calcrepo import FIX_ADD, FIX_STEP, plan, step
from fake_model_servers import anthropic_message, anthropic_tool_use, fake_anthropic
from gitrepo import git

from coder.loop.runner import RunOptions, run_task
from coder.loop.state.trace import read_trace

WANTS_FLAG = "calc.py must contain `--max-cost`"


def _sent_text(request) -> str:  # type: ignore[no-untyped-def]
    return json.dumps(request.body["messages"], ensure_ascii=False)


def test_a_text_invariant_reaches_the_model_as_the_planner_wrote_it(
    calc_repo, tmp_path, monkeypatch
):
    flag_step = step("flag", ["calc.py"], [WANTS_FLAG])
    replies = [
        anthropic_message(
            tool_calls=[anthropic_tool_use("submit_plan", {"goal": "g", "steps": [flag_step]})]
        ),
        anthropic_message(tool_calls=[anthropic_tool_use("finish_step", {"summary": "nothing"})]),
        anthropic_message(tool_calls=[anthropic_tool_use("stop", {"reason": "enough"})]),
    ]
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-evidence-test")
    with fake_anthropic(replies) as server:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.base_url)
        outcome = run_task(
            RunOptions(
                repo=calc_repo,
                task="add a flag",
                model="anthropic:claude-test",
                out_dir=tmp_path / "run",
            )
        )
        briefing, revision = _sent_text(server.requests[1]), _sent_text(server.requests[2])
    assert f"{WANTS_FLAG} (checked as text_present)" in briefing
    assert "no match for /--max-cost/" in revision
    for sent in (briefing, revision):
        assert "\\\\-" not in sent and "\\-" not in sent, sent
    steps = json.loads((outcome.run_dir / "result.json").read_text())["steps"]
    checks = {c["kind"]: c for c in steps[0]["invariants"]}
    assert checks["text_present"] == {
        "kind": "text_present",
        "status": "failed",
        "detail": WANTS_FLAG,
    }


def test_scope_detail_in_result_json_is_the_trace_evidence(calc_repo, script):
    outcome = run_task(
        RunOptions(
            repo=calc_repo,
            task="fix add",
            model=script(
                plan(FIX_STEP),
                {"tool": "edit_file", "input": FIX_ADD},
                {"tool": "finish_step", "input": {"summary": "fixed"}},
            ),
        )
    )
    assert outcome.result.status == "verified"
    scope = next(i for i in outcome.result.steps[0].invariants if i.kind == "files_within_scope")
    events = read_trace(outcome.run_dir / "trace.jsonl")
    traced = next(
        e for e in events if e["type"] == "verification" and e["kind"] == "files_within_scope"
    )
    assert (
        scope.detail == traced["evidence"] == traced["detail"] == "1 changed path(s), all in scope"
    )


def test_trace_sizes_are_characters_for_every_tool(calc_repo, script):
    accents = "é" * 50 + "\n"  # 51 characters, 101 bytes
    (calc_repo / "accents.txt").write_text(accents, encoding="utf-8")
    git(calc_repo, "add", "accents.txt")
    git(calc_repo, "commit", "-qm", "accents")
    outcome = run_task(
        RunOptions(
            repo=calc_repo,
            task="t",
            model=script(
                plan(step("look", ["accents.txt"], [])),
                {"tool": "read_file", "input": {"path": "accents.txt"}},
                {"tool": "search", "input": {"pattern": "é+", "glob": "*.txt"}},
                {"tool": "run", "input": {"command": "cat accents.txt"}},
                {
                    "tool": "edit_file",
                    "input": {"path": "accents.txt", "old_text": "éé", "new_text": "e"},
                },
                {"tool": "finish_step", "input": {"summary": "done"}},
            ),
        )
    )
    sizes = {
        e["tool"]: (e["raw_chars"], e["summarized_chars"], e["text"])
        for e in read_trace(outcome.run_dir / "trace.jsonl")
        if e["type"] == "observation" and e.get("tool")
    }
    assert sizes["read_file"][0] == len(accents)
    assert sizes["search"][0] == len("accents.txt:1: " + "é" * 50) == sizes["search"][1]
    assert sizes["run"][0] == len(accents)
    assert sizes["edit_file"][0] == sizes["edit_file"][1] == len(sizes["edit_file"][2])
    for _raw, summarized, text in sizes.values():
        assert summarized == len(text)
