from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
import yaml

from coder.models.base import ConfigError, Message, ModelError, ToolCall, ToolSpec
from coder.models.registry import make_model
from coder.models.scripted import ScriptedModel, request_text

DESIGN_EXAMPLE = {
    "turns": [
        {"tool": "submit_plan", "input": {"goal": "...", "steps": []}},
        {
            "tool": "edit_file",
            "input": {"path": "calc.py", "old_text": "a - b", "new_text": "a + b"},
        },
        {
            "calls": [
                {"tool": "run", "input": {"command": "pytest -q"}},
                {"tool": "finish_step", "input": {"summary": "fixed add"}},
            ]
        },
        {"text": "a reply with no tool call"},
    ]
}
TOOLS = [ToolSpec("run", "Run a command.", {"type": "object", "properties": {"command": {}}})]


def _ask(model: ScriptedModel, text: str = "anything"):
    return model.complete(system="sys", messages=[Message.user(text)], tools=TOOLS)


def _write(tmp_path: Path, name: str, document: object) -> Path:
    path = tmp_path / name
    if name.endswith((".yaml", ".yml")):
        path.write_text(yaml.safe_dump(document))
    else:
        path.write_text(json.dumps(document))
    return path


@pytest.mark.parametrize("name", ["run.json", "run.yaml", "run.yml"])
def test_design_example_plays_in_order_from_json_and_yaml(tmp_path: Path, name: str) -> None:
    path = _write(tmp_path, name, DESIGN_EXAMPLE)
    model = make_model(f"script:{path}")
    assert model.name == f"script:{path}"
    replies = [_ask(model) for _ in range(4)]
    assert replies[0].tool_calls == [
        ToolCall("call_1_1", "submit_plan", {"goal": "...", "steps": []})
    ]
    assert replies[1].tool_calls == [
        ToolCall(
            "call_2_1", "edit_file", {"path": "calc.py", "old_text": "a - b", "new_text": "a + b"}
        )
    ]
    assert replies[2].tool_calls == [
        ToolCall("call_3_1", "run", {"command": "pytest -q"}),
        ToolCall("call_3_2", "finish_step", {"summary": "fixed add"}),
    ]
    assert [r.stop_reason for r in replies] == ["tool_use", "tool_use", "tool_use", "end_turn"]
    assert replies[3].tool_calls == [] and replies[3].text == "a reply with no tool call"
    assert all(r.latency_s == 0.0 and r.parse_errors == [] for r in replies)
    with pytest.raises(ModelError) as err:
        _ask(model)
    assert err.value.kind == "exhausted"
    assert "no turn 5" in err.value.message and "all 4" in err.value.message


def test_turns_come_whatever_was_asked(tmp_path: Path) -> None:
    model = ScriptedModel.from_file(_write(tmp_path, "s.json", DESIGN_EXAMPLE))
    first = model.complete(system="", messages=[], tools=[])
    assert first.tool_calls[0].name == "submit_plan"
    assert model.remaining == 3


def test_token_counts_are_estimated_from_request_and_reply_sizes(tmp_path: Path) -> None:
    model = ScriptedModel.from_file(_write(tmp_path, "s.json", DESIGN_EXAMPLE))
    short = _ask(model, "x")
    long = _ask(model, "x" * 4000)
    expected_in = math.ceil(len(request_text("sys", [Message.user("x")], TOOLS).encode()) / 4)
    assert short.usage.input_tokens == expected_in
    assert long.usage.input_tokens - short.usage.input_tokens == pytest.approx(1000, abs=2)
    assert short.usage.output_tokens > 5
    assert short.usage.cache_read_tokens == 0 and short.usage.cache_write_tokens == 0


def test_callers_cannot_change_the_script_through_a_reply(tmp_path: Path) -> None:
    model = ScriptedModel.from_file(_write(tmp_path, "s.json", DESIGN_EXAMPLE))
    _ask(model).tool_calls[0].input["goal"] = "changed"
    model.position = 0
    assert _ask(model).tool_calls[0].input["goal"] == "..."


def test_bad_script_is_a_config_error_naming_the_turn(tmp_path: Path) -> None:
    document = {"turns": [{"tool": "run", "input": {"command": "ls"}}, {"input": {"x": 1}}]}
    path = _write(tmp_path, "bad.json", document)
    with pytest.raises(ConfigError) as err:
        make_model(f"script:{path}")
    message = str(err.value)
    assert "\n" not in message
    assert str(path) in message
    assert "turns[1]" in message and message.startswith("bad script ")


def test_bad_yaml_script_is_a_config_error(tmp_path: Path) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text("turns:\n  - tool: run\n    input: [unclosed\n")
    with pytest.raises(ConfigError) as err:
        make_model(f"script:{path}")
    assert "\n" not in str(err.value) and str(path) in str(err.value)


def test_missing_script_is_a_config_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as err:
        make_model(f"script:{tmp_path / 'nope.json'}")
    assert "nope.json" in str(err.value)
