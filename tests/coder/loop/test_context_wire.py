"""What the model is sent across turns, byte for byte, through the real Anthropic SDK.

The prompt cache bills a request by the prefix it shares with earlier ones: these tests hold
the context policy to keeping that prefix identical, masking old outputs only in batches, with
placeholders that say what each output established.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from fake_model_servers import anthropic_message, anthropic_tool_use, fake_anthropic
from gitrepo import make_repo

from coder.loop.runner import RunOptions, run_task
from coder.loop.state.trace import read_trace

NOISY = """\
import sys

i = int(sys.argv[1])
for k in range(60):
    print(f"tests/test_m.py::test_{i}_{k} PASSED   padding so that each line is long enough")
print(f"======== 3 failed, 57 passed in 0.{i}1s ========")
sys.exit(1)
"""
BIG = "".join(
    f"def f{i}(x):\n    return x + {i}  # a line of a module worth reading\n" for i in range(60)
)


def call(tool: str, **args: Any) -> dict:
    return anthropic_message(tool_calls=[anthropic_tool_use(tool, args)])


def blocks(body: dict) -> list[str]:
    """Tools, system and every content block in cache order, without the cache markers."""
    items = [*body.get("tools", []), *body.get("system", [])]
    items += [{**b, "role": m["role"]} for m in body["messages"] for b in m["content"]]
    return [
        json.dumps({k: v for k, v in i.items() if k != "cache_control"}, sort_keys=True)
        for i in items
    ]


def tool_results(body: dict) -> dict[str, str]:
    return {
        b["tool_use_id"]: b["content"]
        for m in body["messages"]
        for b in m["content"]
        if b["type"] == "tool_result"
    }


@pytest.fixture
def session(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    repo = make_repo(tmp_path / "repo", {"noisy.py": NOISY, "big.py": BIG, "README.md": "hi\n"})
    replies = [
        call("read_file", path="big.py"),
        call("search", pattern=r"return x \+"),
        call("edit_file", path="README.md", old_text="hi", new_text="hello"),
        *[call("run", command=f"python noisy.py {i}") for i in range(12)],
        call("final_answer", summary="looked at the logs"),
    ]
    ids = [r["content"][0]["id"] for r in replies]
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-wire-test")
    with fake_anthropic(replies) as server:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.base_url)
        outcome = run_task(
            RunOptions(
                repo=repo,
                task="look at the logs",
                model="anthropic:claude-test",
                mode="react",
                test_cmd="true",
                out_dir=tmp_path / "run",
                context_tokens=20_000,
                mask_threshold=8_000,
            )
        )
    events = read_trace(outcome.run_dir / "trace.jsonl")
    return [r.body for r in server.requests], ids, events


def test_under_the_threshold_every_request_extends_the_last_byte_for_byte(session):
    bodies, _, events = session
    calls = [e for e in events if e["type"] == "model_call"]
    assert len(bodies) == len(calls) == 16
    batches = [n for n, e in enumerate(calls) if e.get("masked")]
    assert batches, "the session passes the threshold"
    for n in range(1, len(bodies)):
        if n in batches:
            continue
        before, now = blocks(bodies[n - 1]), blocks(bodies[n])
        assert now[: len(before)] == before, f"request {n + 1} rewrote the prefix"
    for body in bodies:  # the newest message carries the breakpoint, as the provider puts it
        assert "cache_control" in body["messages"][-1]["content"][-1]
    assert all(e["context_tokens"] <= 20_000 for e in calls)


def test_masking_happens_in_one_batch_of_the_oldest_outputs(session):
    bodies, ids, events = session
    calls = [e for e in events if e["type"] == "model_call"]
    batches = [n for n, e in enumerate(calls) if e.get("masked")]
    first = batches[0]
    changed = [
        cid
        for cid, text in tool_results(bodies[first]).items()
        if tool_results(bodies[first - 1]).get(cid, text) != text
    ]
    assert changed == calls[first]["masked"]
    assert len(changed) >= 3, "several outputs at once, not one a turn"
    maskable = [i for i in ids if i != ids[2]]  # the edit's answer is never masked
    assert changed == maskable[: len(changed)], "the oldest outputs, in order"
    if len(batches) > 1:
        assert batches[1] - first >= 3, "batches are turns apart"
    newest = list(tool_results(bodies[first]))[-3:]
    assert not set(newest) & set(changed), "the newest turns are spared"


def test_placeholders_say_what_each_output_established(session):
    bodies, ids, _ = session
    last = tool_results(bodies[-1])
    read, search, edit, first_run = (last[i] for i in ids[:4])
    assert (
        read
        == "[output masked to save context: big.py lines 1-120 of 120; read it again if needed]"
    )
    assert (
        search == "[output masked to save context: search 'return x \\\\+': 60 matches in 1 file]"
    )
    assert first_run == (
        "[output masked to save context: $ python noisy.py 0 → exit code 1: "
        "3 failed, 57 passed in 0.01s]"
    )
    assert edit.startswith("edited README.md") and "call again" not in edit
    for cid in ids[:4]:
        whole = tool_results(bodies[4])[cid] if cid in tool_results(bodies[4]) else None
        assert whole is None or len(last[cid]) <= len(whole)


def test_the_masked_text_stays_in_the_trace(session):
    bodies, ids, events = session
    seen = tool_results(bodies[5])[ids[3]]
    assert seen.startswith("$ python noisy.py 0") and len(seen) > 3000
    traced = [e for e in events if e["type"] == "observation" and e.get("call_id") == ids[3]]
    assert [e["text"] for e in traced] == [seen]
