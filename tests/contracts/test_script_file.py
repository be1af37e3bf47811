import json
from pathlib import Path

import pytest

from contracts.script import CallsTurn, ScriptError, TextTurn, ToolTurn, load_script, parse_script

DATA = Path(__file__).parent / "data"

YAML_SCRIPT = """\
turns:
  - tool: submit_plan
    input: {goal: "fix add", steps: []}
  - calls:
      - tool: run
        input: {command: pytest -q}
      - tool: finish_step
        input: {summary: done}
  - text: "I forgot to call a tool"
  - tool: finish_step
"""


def test_design_example_loads_in_order() -> None:
    script = load_script(DATA / "script_example.json")
    kinds = [type(turn) for turn in script.turns]
    assert kinds == [ToolTurn, ToolTurn, CallsTurn, TextTurn]
    assert [[c.tool for c in t.tool_calls()] for t in script.turns] == [
        ["submit_plan"],
        ["edit_file"],
        ["run", "finish_step"],
        [],
    ]
    assert script.turns[1].tool_calls()[0].input["new_text"] == "a + b"


@pytest.mark.parametrize("name", ["script.yaml", "script.yml", "script"])
def test_yaml_by_extension_or_content(tmp_path: Path, name: str) -> None:
    path = tmp_path / name
    path.write_text(YAML_SCRIPT)
    script = load_script(path)
    assert len(script.turns) == 4
    assert (
        isinstance(script.turns[2], TextTurn) and script.turns[2].text == "I forgot to call a tool"
    )
    assert script.turns[3].tool_calls()[0].input == {}


def test_json_without_an_extension_is_read_as_json(tmp_path: Path) -> None:
    path = tmp_path / "script"
    path.write_text(json.dumps({"turns": [{"text": "hi"}]}))
    assert load_script(path).turns == [TextTurn(text="hi")]


@pytest.mark.parametrize(
    ("turns", "index", "needle"),
    [
        (
            [{"text": "ok"}, {"tool": "run", "input": "pytest"}],
            1,
            "turns[1].input: expected an object",
        ),
        ([{"calls": []}], 0, "turns[0].calls: must not be empty"),
        ([{"text": "a"}, {"text": "b"}, {"say": "x"}], 2, "turns[2]: a turn is {tool, input}"),
        ([7], 0, "turns[0]: a turn is"),
        ([{"tool": ""}], 0, "turns[0].tool: must not be empty"),
        ([{"tool": "run", "txt": "x"}], 0, "turns[0].txt: unknown field"),
        ([{"tool": "run", "usage": {"input": -1, "output": 0}}], 0, "turns[0].usage.input"),
        ([{"calls": [{"tool": "run"}, {"input": {}}]}], 0, "turns[0].calls[1].tool: missing"),
    ],
)
def test_bad_turns_are_named_by_index(turns: list, index: int, needle: str) -> None:
    with pytest.raises(ScriptError) as caught:
        parse_script({"turns": turns}, source="s.json")
    assert caught.value.turn == index
    assert needle in str(caught.value)
    assert str(caught.value).startswith("s.json: ")


@pytest.mark.parametrize("data", [[], {"turn": []}, {"turns": {}}])
def test_bad_top_level(data: object) -> None:
    with pytest.raises(ScriptError) as caught:
        parse_script(data)
    assert caught.value.turn is None


def test_malformed_json_names_line_and_column(tmp_path: Path) -> None:
    path = tmp_path / "s.json"
    path.write_text('{"turns": [\n  {"text": "a"},\n  ]\n}')
    with pytest.raises(ScriptError) as caught:
        load_script(path)
    assert str(caught.value).startswith(f"{path}:3:3: not valid JSON")


def test_malformed_yaml_names_line_and_column(tmp_path: Path) -> None:
    path = tmp_path / "s.yaml"
    path.write_text("turns:\n  - text: [unclosed\n")
    with pytest.raises(ScriptError) as caught:
        load_script(path)
    assert str(caught.value).startswith(f"{path}:3:1: not valid YAML")
    assert "\n" not in str(caught.value)


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(ScriptError, match="cannot read the script"):
        load_script(tmp_path / "nope.json")
