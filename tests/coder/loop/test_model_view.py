"""What the model is sent, through the real Anthropic SDK against the local wire server:
the briefing's map heading once, search hits with their indentation (old_text copied from
them matches), edits answered with the edited region, command output without colour codes,
and a failure account that lists one failure once."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest
from calcrepo import CALC, FIX_ADD, PYPROJECT, TESTS, step
from fake_model_servers import Reply, anthropic_message, anthropic_tool_use, fake_anthropic
from gitrepo import make_repo

from coder.loop.runner import RunOptions, run_task

PYTEST = "python -m pytest -q tests/test_calc.py"
STEP = step(
    "fix-add",
    ["calc.py"],
    [
        {"kind": "tests_pass", "paths": ["tests/test_calc.py"]},
        {"kind": "command_succeeds", "command": PYTEST},
    ],
)
PLAN = {"goal": "fix add", "steps": [STEP]}
Turn = Callable[[dict[str, Any]], dict[str, Any]]


def call(name: str, args: dict[str, Any] | Callable[[dict[str, Any]], dict[str, Any]]) -> Turn:
    """A reply calling one tool; `args` may be computed from the request the model was sent."""
    return lambda body: anthropic_message(
        tool_calls=[anthropic_tool_use(name, args(body) if callable(args) else args)]
    )


def last_result(body: dict[str, Any]) -> str:
    """The text of the newest tool result the model was sent."""
    block = next(b for b in body["messages"][-1]["content"] if b["type"] == "tool_result")
    content = block["content"]
    return content if isinstance(content, str) else "".join(c["text"] for c in content)


def briefing(body: dict[str, Any]) -> str:
    first = body["messages"][0]["content"]
    return first if isinstance(first, str) else "".join(b.get("text", "") for b in first)


def copied_from_hits(body: dict[str, Any]) -> dict[str, Any]:
    """What a model does with search hits: take the text after `path:line: ` as old_text."""
    hits = [m.group(1) for m in re.finditer(r"^calc\.py:\d+: (.*)$", last_result(body), re.M)]
    return {
        "path": "calc.py",
        "old_text": "\n".join(hits),
        "new_text": "def add(a, b):\n    return a * b",
    }


@pytest.fixture(scope="module")
def sent(tmp_path_factory: pytest.TempPathFactory) -> list[dict[str, Any]]:
    """One run, looked at by every test of this module."""
    tmp_path = tmp_path_factory.mktemp("view")
    calc_repo = make_repo(
        tmp_path / "repo",
        {
            "calc.py": CALC,
            "tests/test_calc.py": TESTS,
            "README.md": "calc\n",
            "pyproject.toml": PYPROJECT,
        },
    )
    turns: list[Turn] = [
        call("submit_plan", PLAN),
        call("search", {"pattern": r"def add|return a - b"}),
        call("edit_file", copied_from_hits),  # a wrong fix: the step fails verification
        call("run", {"command": r"printf '\033[31mred\033[0m \033[1mbold\033[0m\n'"}),
        call("finish_step", {"summary": "multiplied"}),
        call("submit_plan", PLAN),  # the revision
        call("edit_file", FIX_ADD),
        call("finish_step", {"summary": "fixed"}),
    ]
    pending = iter(turns)

    def respond(request: Any) -> Reply:
        return Reply(next(pending)(request.body))

    with pytest.MonkeyPatch.context() as monkeypatch, fake_anthropic(respond=respond) as server:
        monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-view-test")
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.base_url)
        result = run_task(
            RunOptions(
                repo=calc_repo,
                task="make add() add",
                model="anthropic:claude-test",
                out_dir=tmp_path / "run",
            )
        ).result
    assert (result.status, result.revisions) == ("verified", 1), result.message
    return server.bodies()


def test_the_repository_map_has_one_heading(sent) -> None:
    text = briefing(sent[0])
    assert text.count("Repository map") == 1
    assert re.search(r"Repository map:\n\d+ of \d+ tracked files", text)


def test_search_hits_keep_their_indentation_and_copy_into_an_edit(sent) -> None:
    hits = last_result(sent[2])
    assert "calc.py:1: def add(a, b):\ncalc.py:2:     return a - b" in hits
    edit = sent[3]["messages"][-1]["content"][0]
    assert edit["is_error"] is False, last_result(sent[3])


def test_an_edit_answers_with_the_edited_region(sent) -> None:
    answer = last_result(sent[3])
    assert answer.startswith("edited calc.py (line 2 changed); it now reads:\n")  # line 1 kept
    assert "    1| def add(a, b):\n    2|     return a * b\n    3| \n" in answer
    assert "    5| def scale(value, factor=2):" in answer  # three lines of context after
    fixed = last_result(sent[7])
    assert (
        fixed.startswith("edited calc.py (line 2 changed)") and "    2|     return a + b" in fixed
    )


def test_command_output_reaches_the_model_without_colour_codes(sent) -> None:
    answer = last_result(sent[4])
    assert "\x1b" not in answer
    assert answer.splitlines()[2:] == ["red bold"]  # after the echoed command and its status


def test_the_failure_account_lists_one_failure_once(sent) -> None:
    revision = briefing({"messages": [sent[5]["messages"][-1]]})
    assert "Phase: REVISE" in revision
    assert "[failed] tests_pass" in revision and "[failed] command_succeeds" in revision
    assert revision.count("FAILED tests/test_calc.py::test_add") == 1
    assert "unnamed failure" not in revision
