"""Prompt caching, counted: a multi-turn contract run through the real `anthropic` SDK to the
local stand-in, which reports cache reads and writes as a prompt cache would (by the prefix a
request shares with the breakpoints of earlier ones). The cache markers sit on the stable
prefix, the prefix is byte-identical turn to turn within a phase, and the run's tokens,
`coder show` and the bench report give billed input beside raw input."""

from __future__ import annotations

import hashlib
import io
import json
from typing import Any

import pytest
from calcrepo import FIX_ADD, FIX_STEP
from fake_model_servers import Reply, anthropic_message, anthropic_tool_use, fake_anthropic
from rich.console import Console

from coder.bench.report import billed_in, summarize
from coder.loop.runner import RunOptions, run_task
from coder.loop.state.trace import read_trace
from coder.show import render_run

CALLS = [
    ("read_file", {"path": "calc.py"}),
    ("search", {"pattern": "def add"}),
    ("submit_plan", {"goal": "add adds", "steps": [FIX_STEP]}),
    ("read_file", {"path": "calc.py"}),
    ("edit_file", FIX_ADD),
    ("run", {"command": "python -m pytest -q"}),
    ("finish_step", {"summary": "fixed add"}),
]


def items(body: dict[str, Any]) -> list[dict[str, Any]]:
    """Tools, system, then every content block (with its role), in the provider's cache order."""
    found = [*body.get("tools", []), *body.get("system", [])]
    return found + [{**b, "role": m["role"]} for m in body["messages"] for b in m["content"]]


def unmarked(item: dict[str, Any]) -> str:
    return json.dumps({k: v for k, v in item.items() if k != "cache_control"}, sort_keys=True)


class PromptCache:
    """What a provider's prompt cache does with a request: the longest prefix written at a
    breakpoint of an earlier request is read; from there to the last breakpoint is written;
    the rest is plain input. Tokens are bytes / 4."""

    def __init__(self) -> None:
        self.written: set[str] = set()
        self.usages: list[dict[str, int]] = []

    def usage(self, body: dict[str, Any]) -> dict[str, int]:
        blocks = items(body)
        sizes = [len(unmarked(b)) // 4 for b in blocks]
        digests, running = [], hashlib.sha256()
        for block in blocks:
            running.update(unmarked(block).encode())
            digests.append(running.copy().hexdigest())
        marks = [k for k, b in enumerate(blocks) if "cache_control" in b]
        read_upto = max((k + 1 for k, d in enumerate(digests) if d in self.written), default=0)
        end = marks[-1] + 1 if marks else 0
        read = sum(sizes[:read_upto])
        write = sum(sizes[read_upto:end]) if end > read_upto else 0
        self.written.update(digests[k] for k in marks)
        usage = {"input": sum(sizes) - read - write, "read": read, "write": write}
        self.usages.append(usage)
        return usage


@pytest.fixture(scope="module")
def cached_run(tmp_path_factory: pytest.TempPathFactory):
    from calcrepo import make_calc_repo

    tmp_path = tmp_path_factory.mktemp("cache")
    repo = make_calc_repo(tmp_path)
    cache = PromptCache()
    pending = iter(CALLS)

    def respond(request: Any) -> Reply:
        usage = cache.usage(request.body)
        tool, args = next(pending)
        return Reply(
            anthropic_message(
                tool_calls=[anthropic_tool_use(tool, args)],
                input_tokens=usage["input"],
                cache_read=usage["read"],
                cache_write=usage["write"],
            )
        )

    with pytest.MonkeyPatch.context() as patch, fake_anthropic(respond=respond) as server:
        patch.setenv("ANTHROPIC_API_KEY", "sk-ant-cache-test")
        patch.setenv("ANTHROPIC_BASE_URL", server.base_url)
        outcome = run_task(
            RunOptions(
                repo=repo,
                task="make add() add",
                model="anthropic:claude-sonnet-4-5",
                out_dir=tmp_path / "run",
            )
        )
    assert outcome.result.status == "verified", outcome.result.message
    events = read_trace(outcome.run_dir / "trace.jsonl")
    phases = [e["phase"] for e in events if e["type"] == "model_call"]
    return outcome, server.bodies(), phases, cache.usages


def test_the_stable_prefix_carries_the_cache_markers(cached_run):
    _, bodies, _, _ = cached_run
    assert len(bodies) == len(CALLS)
    for body in bodies:
        assert body["tools"][-1]["cache_control"] == {"type": "ephemeral"}
        assert all("cache_control" not in t for t in body["tools"][:-1])
        assert body["system"][-1]["cache_control"] == {"type": "ephemeral"}
        assert "cache_control" in body["messages"][-1]["content"][-1]


def test_the_prefix_is_byte_identical_turn_to_turn_within_a_phase(cached_run):
    _, bodies, phases, usages = cached_run
    assert phases == ["plan"] * 3 + ["execute:fix-add"] * 4
    for n in range(1, len(bodies)):
        if phases[n] != phases[n - 1]:
            continue
        before, now = bodies[n - 1], bodies[n]
        fixed = ("tools", "system")
        assert json.dumps([before[k] for k in fixed]) == json.dumps([now[k] for k in fixed])
        old = [unmarked(b) for b in items(before)]
        assert [unmarked(b) for b in items(now)][: len(old)] == old, f"request {n + 1}"
        assert usages[n]["read"] >= sum(len(o) // 4 for o in old[:-1]), "read from the cache"


def test_the_runs_tokens_give_billed_input_beside_raw_input(cached_run):
    outcome, _, _, usages = cached_run
    read = sum(u["read"] for u in usages)
    write = sum(u["write"] for u in usages)
    whole = sum(u["input"] + u["read"] + u["write"] for u in usages)
    saved = json.loads((outcome.run_dir / "result.json").read_text())["tokens"]
    billed = round(whole - read - write + 1.25 * write + 0.1 * read, 1)
    assert saved == {
        "input": whole,
        "output": 20 * len(usages),
        "cache_read": read,
        "cache_write": write,
        "billed_input": billed,
    }
    assert read > whole / 2 and billed < whole / 2


def test_coder_show_and_the_bench_report_give_billed_input(cached_run):
    outcome, _, _, _ = cached_run
    tokens = json.loads((outcome.run_dir / "result.json").read_text())["tokens"]
    out = io.StringIO()
    render_run(outcome.run_dir, Console(file=out, width=200))
    assert (
        f"tokens in {tokens['input']:,} (billed {tokens['billed_input']:,.0f}: "
        f"{tokens['cache_read']:,} read from the cache, {tokens['cache_write']:,} written)"
    ) in out.getvalue()
    row = {"mode": "contract", "tokens": tokens}
    assert billed_in(row) == tokens["billed_input"]
    assert billed_in({"mode": "react", "tokens": {"input": 900, "output": 5}}) == 900


def test_a_provider_that_reports_no_cache_leaves_tokens_as_designed(calc_repo, script):
    from calcrepo import FIX_TURNS

    outcome = run_task(RunOptions(repo=calc_repo, task="fix add", model=script(*FIX_TURNS)))
    saved = json.loads((outcome.run_dir / "result.json").read_text())["tokens"]
    assert set(saved) == {"input", "output"}
    assert "billed" not in _shown(outcome.run_dir)


def _shown(run_dir) -> str:
    out = io.StringIO()
    render_run(run_dir, Console(file=out, width=200))
    return out.getvalue()


def test_the_summary_means_billed_input_per_mode():
    rows = [
        _row("contract", {"input": 1000, "output": 10, "billed_input": 250.0}),
        _row("contract", {"input": 3000, "output": 10}),
    ]
    summary = summarize(rows, ("contract",))["contract"]
    assert summary["mean_input_tokens"] == 2000 and summary["mean_billed_input"] == 1625.0
    assert summary["cost_per_resolved"]["billed_input"] == 1625.0


def _row(mode: str, tokens: dict[str, Any]) -> dict[str, Any]:
    timing = dict.fromkeys(
        (
            "setup_s",
            "baseline_s",
            "model_s",
            "tool_commands_s",
            "verification_s",
            "final_check_s",
            "harness_s",
        ),
        0.0,
    )
    return {
        "fixture": "f",
        "mode": mode,
        "resolved": True,
        "claimed_success": True,
        "shipped_broken": False,
        "stop_reason": "completed",
        "tokens": tokens,
        "turns": 3,
        "harness_s": 0.0,
        "wall_s": 1.0,
        "timing": timing,
        "failure_class": None,
        "caught_by": None,
        "billed_input": float(tokens["input"]),
        "model_s": 0.0,
    }
