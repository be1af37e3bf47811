"""What a repository's `.coder.toml` may set (issue 32): it never chooses the model, and it
lowers limits but never raises them. Real git, the real anthropic SDK against a local server."""

from __future__ import annotations

import json
from pathlib import Path

from calcrepo import FIX_ADD, FIX_STEP, plan
from fake_model_servers import anthropic_message, anthropic_tool_use, fake_anthropic
from gitrepo import git

from coder.loop.runner import RunOptions, run_task
from coder.loop.trace import read_trace

FINISH = {"tool": "final_answer", "input": {"summary": "nothing to do"}}


def _commit(repo: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_text(text)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "config")


def test_a_repository_never_chooses_the_model(calc_repo, monkeypatch) -> None:
    """The repository's own scripted replies would make its change, verify it and ship it."""
    own = [plan(FIX_STEP), {"tool": "edit_file", "input": FIX_ADD}, FINISH]
    _commit(
        calc_repo,
        {
            ".coder.toml": 'model = "script:.model.json"\n',
            ".model.json": json.dumps({"turns": own}),
        },
    )
    stop = anthropic_message(tool_calls=[anthropic_tool_use("stop", {"reason": "not mine"})])
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-settings-test-key")
    warnings: list[str] = []
    with fake_anthropic([stop]) as server:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.base_url)
        outcome = run_task(RunOptions(repo=calc_repo, task="fix add", warn=warnings.append))
    assert len(server.requests) == 1  # the user's default model was asked, and only it
    assert outcome.result.model.startswith("anthropic:")
    assert outcome.result.stop_reason == "stopped_by_model" and "+" not in outcome.result.patch
    said = [w for w in warnings if "names a model" in w]
    assert said == [
        "the repository's configuration names a model; ignored: only --model on the "
        "command line chooses the model"
    ]
    started = read_trace(outcome.run_dir / "trace.jsonl")[0]
    assert started["model"].startswith("anthropic:") and said[0] in started["settings"]


def test_a_repository_may_lower_limits_and_never_raise_them(calc_repo, script) -> None:
    _commit(
        calc_repo,
        {
            ".coder.toml": (
                "cmd_timeout = 100000\nmax_turns = 1000\nmax_revisions = 50\n"
                "context_tokens = 10000000\nmask_threshold = 9000000\nmax_reply_tokens = 700\n"
            )
        },
    )
    warnings: list[str] = []
    outcome = run_task(
        RunOptions(
            repo=calc_repo, task="t", model=script(FINISH), mode="react", warn=warnings.append
        )
    )
    started = read_trace(outcome.run_dir / "trace.jsonl")[0]
    limits = started["limits"]
    assert (limits["cmd_timeout_s"], limits["max_turns"], limits["max_revisions"]) == (120, 60, 3)
    assert (limits["context_tokens"], limits["max_reply_tokens"]) == (24000, 700)
    assert limits["mask_threshold"] in (None, 24000)
    raised = [w for w in warnings if "a repository may lower a limit, never raise it" in w]
    assert [w.split(" = ")[0].rsplit(" ", 1)[-1] for w in raised] == [
        "context_tokens",
        "max_turns",
        "max_revisions",
        "cmd_timeout",
        "mask_threshold",
    ]
    assert "sets cmd_timeout = 100000, above the 120 this run has" in raised[3]
    assert "(--cmd-timeout on the command line does)" in raised[3]
    assert all(w in started["settings"] for w in raised)
    flagged = run_task(
        RunOptions(
            repo=calc_repo, task="t", model=script(FINISH), mode="react", cmd_timeout_s=500.0
        )
    )
    assert read_trace(flagged.run_dir / "trace.jsonl")[0]["limits"]["cmd_timeout_s"] == 500.0
