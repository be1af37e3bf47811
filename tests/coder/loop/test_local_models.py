"""Whole runs against a local server that behaves the way llama-cpp-python's does (issue 18).

The real OpenAI SDK talks to `fake_llama_cpp` over a socket; the repository is a real git
repository and commands run in the real sandbox.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

from calcrepo import FIX_ADD, plan, step
from fake_model_servers import (
    Reply,
    fake_llama_cpp,
    fake_openai,
    openai_completion,
    openai_tool_call,
)
from gitrepo import git, make_repo

from coder.loop.runner import RunOptions, run_task
from coder.loop.state.trace import read_trace

MODEL = "openai:gemma-3-270m"
FIXED = [
    {"tool": "read_file", "arguments": {"path": "calc.py"}},
    {"tool": "edit_file", "arguments": FIX_ADD},
    {"tool": "run", "arguments": {"command": "python -m pytest -q"}},
    {"tool": "final_answer", "arguments": {"summary": "add adds"}},
]


def run(repo: Path, base_url: str, **kw) -> tuple:
    options = {"repo": repo, "task": "make add() add", "model": MODEL, "base_url": base_url}
    outcome = run_task(RunOptions(**{**options, **kw}))
    return outcome.result, read_trace(outcome.run_dir / "trace.jsonl")


def actions(events: list[dict]) -> list[str]:
    return [e["tool"] for e in events if e["type"] == "action"]


def branches(repo: Path) -> str:
    return git(repo, "branch", "--list", "coder/*")


def test_real_tool_calls_reach_the_loop_and_each_runs_once(calc_repo):
    with fake_llama_cpp(FIXED) as server:
        result, events = run(calc_repo, server.base_url, mode="react")
    assert (result.status, result.stop_reason) == ("verified", "completed")
    assert result.patch.count("+    return a + b") == 1
    assert actions(events) == ["read_file", "edit_file", "run", "final_answer"]
    bodies = server.bodies()
    assert len(bodies) == 4 and all(b["tool_choice"] == "auto" for b in bodies)
    assert all(isinstance(m["content"], str) for b in bodies for m in b["messages"])
    edits = [e for e in events if e["type"] == "observation" and e["tool"] == "edit_file"]
    assert len(edits) == 1 and edits[0]["status"] == "ok"


def test_limits_come_from_flags_else_from_the_servers_window(calc_repo):
    props = {"GET /props": {"default_generation_settings": {"n_ctx": 16384}, "total_slots": 1}}
    with fake_llama_cpp(FIXED, n_ctx=16384, routes=props) as server:
        result, events = run(calc_repo, server.base_url, mode="react")
    assert result.status == "verified"
    assert {b["max_tokens"] for b in server.bodies()} == {2048}  # 16384 / 8
    limits = events[0]["limits"]
    assert (limits["max_reply_tokens"], limits["context_tokens"]) == (2048, 12185)
    assert limits["token_source"] == "llama.cpp /props n_ctx: 16384 tokens"
    with fake_llama_cpp(FIXED, n_ctx=16384, routes=props) as server:
        _, events = run(
            calc_repo, server.base_url, mode="react", max_reply_tokens=300, context_tokens=5000
        )
    assert {b["max_tokens"] for b in server.bodies()} == {300}
    assert server.side_requests == []  # both given: the server is not asked
    assert (events[0]["limits"]["max_reply_tokens"], events[0]["limits"]["context_tokens"]) == (
        300,
        5000,
    )


def test_the_run_timeout_holds_while_the_model_is_thinking(calc_repo):
    late = Reply(openai_completion(content="late"), delay_s=120.0)
    with fake_openai([late]) as server:
        started = time.monotonic()
        # no test suite to take the run's time before the model is asked (a loaded CI machine
        # spent all of a 6 s timeout on the baseline): the timeout must fall on the model
        result, events = run(
            calc_repo,
            server.base_url,
            mode="react",
            timeout_s=15.0,
            test_cmd="true",
            allow_no_tests=True,
        )
        waited = time.monotonic() - started
    assert (result.status, result.stop_reason) == ("stopped", "timeout")
    assert "waiting for the model" in result.message
    assert waited < 60.0
    assert [e.get("error") for e in events if e["type"] == "model_call"] == ["timeout"]


def test_a_request_past_the_servers_window_is_refitted_and_asked_again(tmp_path):
    big = "".join(f"line {i}: {'x' * 60}\n" for i in range(400))  # ~7,000 tokens as read
    repo = make_repo(
        tmp_path / "repo", {"calc.py": "def add(a, b):\n    return a - b\n", "big.txt": big}
    )
    turns = [
        {"tool": "read_file", "arguments": {"path": "big.txt"}},
        {"tool": "edit_file", "arguments": FIX_ADD},
        {"tool": "final_answer", "arguments": {"summary": "done"}},
    ]
    with fake_llama_cpp(turns, n_ctx=8000) as server:
        result, events = run(repo, server.base_url, mode="react", test_cmd="true")
    refused = [e for e in events if e["type"] == "model_call" and e.get("error")]
    assert len(refused) == 1 and refused[0]["window"] == 8000
    refit = refused[0]["retry_with"]
    # A quarter of the window for the reply; the context what is left, less the share by which
    # the server's count of the refused prompt exceeded ours.
    assert refit["max_reply_tokens"] == 2000 and 4000 < refit["context_tokens"] <= 5100
    assert (result.status, result.stop_reason) == ("verified", "completed")
    assert result.model_turns == 3 and len(server.requests) == 4
    assert server.bodies()[-1]["max_tokens"] == 2000


def test_a_window_too_small_for_any_request_stops_with_the_numbers(calc_repo):
    with fake_llama_cpp(FIXED, n_ctx=300) as server:
        result, _ = run(calc_repo, server.base_url, mode="react")
    assert (result.status, result.stop_reason) == ("failed", "model_error")
    assert "does not fit the server's 300-token context window" in result.message
    assert "maximum context length is 300 tokens" in result.message


def test_replies_cut_at_max_tokens_are_reported_as_cut_off_with_their_length(calc_repo):
    rambling = [{"text": "First I will think about the code. " * 100}] * 3
    with fake_llama_cpp(rambling) as server:
        result, events = run(calc_repo, server.base_url, mode="react", max_reply_tokens=120)
    assert result.stop_reason == "model_error"
    assert result.message == (
        "3 replies in a row had no usable tool call (the last was cut off at the reply limit of "
        "120 tokens; see --max-reply-tokens, --context-tokens)"
    )
    told = [e["text"] for e in events if e["type"] == "observation" and e["tool"] is None]
    assert told[0].startswith("Your reply was cut off at the reply limit of 120 tokens")


def test_an_empty_reply_is_not_put_in_the_models_mouth(calc_repo):
    replies = [
        openai_completion(content=""),
        openai_completion(tool_calls=[openai_tool_call("stop", json.dumps({"reason": "no"}))]),
    ]
    with fake_openai(replies) as server:
        result, _ = run(calc_repo, server.base_url, mode="react")
    assert result.stop_reason == "stopped_by_model"
    second = server.bodies()[1]["messages"]
    assert "(empty reply)" not in json.dumps(second)
    assert [m["role"] for m in second] == ["system", "user"]
    assert second[1]["content"].count("Your reply was empty") == 1


def test_a_react_answer_that_changed_nothing_is_not_verified_and_commits_nothing(calc_repo, script):
    result = run_task(
        RunOptions(
            repo=calc_repo,
            task="make add() add",
            mode="react",
            model=script({"tool": "final_answer", "input": {"summary": "all good"}}),
        )
    ).result
    assert (result.status, result.stop_reason) == ("failed", "final_check_failed")
    assert result.message.startswith("the run changed nothing")
    assert result.patch == ""
    assert git(calc_repo, "rev-parse", result.branch).strip() == result.base_commit


def test_steps_that_all_verified_with_an_empty_diff_are_not_a_verified_run(calc_repo, script):
    noop = step("look", ["calc.py"], [{"kind": "command_succeeds", "command": "true"}])
    turns = [plan(noop), {"tool": "finish_step", "input": {"summary": "nothing to do"}}]
    result = run_task(
        RunOptions(repo=calc_repo, task="make add() add", mode="plan", model=script(*turns))
    ).result
    assert (result.status, result.stop_reason) == ("failed", "final_check_failed")
    assert result.message.startswith("the run changed nothing")
    assert result.steps[0].status == "done_unverified"
    # contract mode never verifies the empty step in the first place (tests/coder/loop/test_proofs.py)
    result = run_task(
        RunOptions(repo=calc_repo, task="make add() add", model=script(*turns), max_revisions=0)
    ).result
    assert result.status == "failed" and result.steps[0].status == "rolled_back"


def test_a_run_that_never_reached_the_model_leaves_no_branch_or_worktree(calc_repo, script):
    with fake_openai([openai_completion(content="unused")]) as server:
        root = server.base_url.removesuffix("/v1")
        result, _ = run(calc_repo, root, mode="react")
    assert (result.status, result.stop_reason) == ("failed", "model_error")
    assert f"did you mean {root}/v1?" in result.message
    assert "removed: the model was never reached" in result.message
    assert branches(calc_repo) == ""
    assert not list((calc_repo / ".git" / "coder-worktrees").glob("*"))
    exhausted = run_task(RunOptions(repo=calc_repo, task="x", model=script())).result
    assert exhausted.stop_reason == "model_error" and branches(calc_repo) == ""
    reached = run_task(RunOptions(repo=calc_repo, task="x", model=script({"text": "hmm"}))).result
    assert reached.stop_reason == "model_error" and reached.branch in branches(calc_repo)


def test_config_keys_set_the_limits_and_flags_win(tmp_path, script):
    repo = make_repo(
        tmp_path / "repo",
        {"calc.py": "x = 1\n", ".coder.toml": "max_reply_tokens = 700\ncontext_tokens = 9000\n"},
    )
    stop = script({"tool": "stop", "input": {"reason": "enough"}})
    configured = run_task(RunOptions(repo=repo, task="x", model=stop, test_cmd="true"))
    limits = read_trace(configured.run_dir / "trace.jsonl")[0]["limits"]
    assert (limits["max_reply_tokens"], limits["context_tokens"]) == (700, 9000)
    flagged = run_task(
        RunOptions(repo=repo, task="x", model=stop, test_cmd="true", context_tokens=4000)
    )
    limits = read_trace(flagged.run_dir / "trace.jsonl")[0]["limits"]
    assert (limits["max_reply_tokens"], limits["context_tokens"]) == (700, 4000)


def test_anthropic_limits_come_from_its_models_window(calc_repo, monkeypatch):
    from fake_model_servers import anthropic_message, anthropic_tool_use, fake_anthropic

    stop = anthropic_message(tool_calls=[anthropic_tool_use("stop", {"reason": "enough"})])
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-limits-test")
    with fake_anthropic([stop]) as server:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.base_url)
        outcome = run_task(RunOptions(repo=calc_repo, task="x", model="anthropic:claude-test"))
    assert server.requests[0].body["max_tokens"] == 4096
    limits = read_trace(outcome.run_dir / "trace.jsonl")[0]["limits"]
    assert (limits["max_reply_tokens"], limits["context_tokens"]) == (4096, 166518)
