from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from fake_model_servers import (
    anthropic_error,
    anthropic_message,
    anthropic_tool_use,
    fake_anthropic,
)

from coder.models.anthropic_model import AnthropicModel
from coder.models.base import Message, ModelError, ModelReply, ToolCall, ToolSpec, Usage
from coder.models.recording import RecordingModel, turn_from_reply
from coder.models.scripted import ScriptedModel
from coder.models.transport import RetryPolicy
from contracts.script import load_script

TOOLS = [ToolSpec("read_file", "Read.", {"type": "object", "properties": {"path": {}}})]


def _reply(text: str, *calls: ToolCall) -> ModelReply:
    return ModelReply(text, list(calls), "tool_use" if calls else "end_turn", Usage(), 0.0)


def test_turn_from_reply_covers_each_turn_kind() -> None:
    read = ToolCall("t1", "read_file", {"path": "a.py"})
    stop = ToolCall("t2", "stop", {"reason": "done"})
    usage = {"input": 0, "output": 0}
    assert turn_from_reply(_reply("just words")) == {"text": "just words", "usage": usage}
    assert turn_from_reply(_reply("", read)) == {
        "tool": "read_file",
        "input": {"path": "a.py"},
        "usage": usage,
    }
    assert turn_from_reply(_reply("", read, stop)) == {
        "calls": [
            {"tool": "read_file", "input": {"path": "a.py"}},
            {"tool": "stop", "input": {"reason": "done"}},
        ],
        "usage": usage,
    }
    assert turn_from_reply(_reply("Reading.", read)) == {
        "tool": "read_file",
        "input": {"path": "a.py"},
        "text": "Reading.",
        "usage": usage,
    }


def test_recorded_usage_is_replayed_instead_of_estimated(tmp_path: Path) -> None:
    path = tmp_path / "s.json"
    path.write_text(
        json.dumps(
            {
                "turns": [
                    {
                        "tool": "read_file",
                        "input": {"path": "a.py"},
                        "text": "Reading.",
                        "usage": {"input": 1234, "output": 56},
                    },
                    {"tool": "read_file", "input": {"path": "b.py"}},
                ]
            }
        )
    )
    model = ScriptedModel.from_file(path)
    first, second = _ask(model, 1), _ask(model, 2)
    assert (first.usage.input_tokens, first.usage.output_tokens) == (1234, 56)
    assert first.text == "Reading."
    assert second.usage.input_tokens != 1234 and second.usage.input_tokens > 0


def _ask(model: object, turn: int) -> ModelReply:
    return model.complete(  # type: ignore[attr-defined]
        system="sys", messages=[Message.user(f"turn {turn}")], tools=TOOLS
    )


@pytest.mark.parametrize("name", ["recorded.json", "recorded.yaml"])
def test_a_real_run_replays_turn_for_turn(tmp_path: Path, name: str) -> None:
    replies = [
        anthropic_message(
            text="Looking.", tool_calls=[anthropic_tool_use("read_file", {"path": "a.py"})]
        ),
        anthropic_message(
            tool_calls=[
                anthropic_tool_use("read_file", {"path": "b.py"}),
                anthropic_tool_use("stop", {"reason": "done"}),
            ]
        ),
        anthropic_message(text="All done."),
    ]
    path = tmp_path / "out" / name
    with fake_anthropic(replies) as server:
        real = AnthropicModel("claude-test", api_key="k", base_url=server.base_url)
        recorder = RecordingModel(real, path)
        assert recorder.name == "anthropic:claude-test"
        live = []
        for turn in range(3):
            live.append(_ask(recorder, turn))
            loaded = yaml.safe_load(path.read_text())  # valid after every reply (JSON is YAML)
            assert len(loaded["turns"]) == turn + 1
    if name.endswith(".json"):
        json.loads(path.read_text())
    assert len(load_script(path).turns) == 3  # the file is valid by the script contract
    replay = ScriptedModel.from_file(path)
    for turn, original in enumerate(live):
        replayed = _ask(replay, turn)
        assert [(c.name, c.input) for c in replayed.tool_calls] == [
            (c.name, c.input) for c in original.tool_calls
        ]
        assert replayed.text == original.text
        assert replayed.usage == original.usage
    with pytest.raises(ModelError) as err:
        _ask(replay, 3)
    assert err.value.kind == "exhausted"


def test_a_model_error_is_passed_on_and_not_recorded(tmp_path: Path) -> None:
    replies = [
        anthropic_message(tool_calls=[anthropic_tool_use("read_file", {"path": "a.py"})]),
        anthropic_error(400, "invalid_request_error", "too long"),
    ]
    path = tmp_path / "rec.json"
    with fake_anthropic(replies) as server:
        real = AnthropicModel(
            "claude-test", api_key="k", base_url=server.base_url, retry=RetryPolicy(max_retries=0)
        )
        recorder = RecordingModel(real, path)
        _ask(recorder, 0)
        with pytest.raises(ModelError) as err:
            _ask(recorder, 1)
    assert err.value.kind == "bad_request"
    assert json.loads(path.read_text()) == {
        "turns": [
            {"tool": "read_file", "input": {"path": "a.py"}, "usage": {"input": 100, "output": 20}}
        ]
    }
    assert not list(tmp_path.glob(".*.tmp"))


def test_a_reply_holding_the_key_is_neither_recorded_nor_shown(tmp_path: Path) -> None:
    """A prompt-injected model echoes the API key the harness holds: plain in a command, reversed
    in its words, base64 in its summary. Neither the --record file nor the progress lines show
    any of them."""
    import base64
    import subprocess

    from calcrepo import FIX_ADD, make_calc_repo
    from clirun import coder_argv, coder_env
    from gitrepo import write_script

    key = "sk-ant-api03-Zq7recorded0key0value9"
    forms = [key, key[::-1], base64.b64encode(key.encode()).decode()]
    repo = make_calc_repo(tmp_path)
    script = write_script(
        tmp_path / "s.json",
        [
            {"tool": "run", "input": {"command": f"echo {key}"}, "text": f"reversed {key[::-1]}"},
            {"tool": "edit_file", "input": FIX_ADD},
            {"tool": "final_answer", "input": {"summary": f"done {forms[2]}"}},
        ],
    )
    record = tmp_path / "rec.json"
    argv = ["run", "--task", "t", "--repo", str(repo), "--model", f"script:{script}"]
    done = subprocess.run(
        coder_argv(*argv, "--mode", "react", "--record", str(record)),
        capture_output=True,
        text=True,
        env={**coder_env(), "ANTHROPIC_API_KEY": key},
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "· run echo [redacted]" in done.stdout
    recorded = record.read_text()
    assert "echo [redacted]" in recorded
    for form in forms:
        assert form not in done.stdout + done.stderr
        assert form not in recorded
