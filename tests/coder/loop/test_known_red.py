"""Each step's conversation knows the base: the tests red there (bounded, counted) and the parts
of the test command red there; a `run` whose failures are all of those says so in one line
instead of repeating their tracebacks. Real repositories, real pytest, the harness's reader."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from calcrepo import CALC, FIX_ADD, PYPROJECT, TESTS, step
from fake_model_servers import anthropic_message, anthropic_tool_use, fake_anthropic
from gitrepo import make_repo

from coder.loop.conversation.known_red import SHOWN_IDS, known_red
from coder.loop.runner import RunOptions, run_task
from coder.tools.toolbox import ToolBox
from coder.verdict.baseline import run_baseline
from sandbox.confine import make_sandbox
from sandbox.policy import PathPolicy

NET_TESTS = """\
def test_ok():
    assert 1 + 1 == 2


def test_proxy():
    raise ConnectionError("Failed to resolve 'proxy.example' (DNS)")


def test_proxy_auth():
    raise ConnectionError("Failed to resolve 'auth.proxy.example' (DNS)")
"""
QUIET = (
    '[tool.pytest.ini_options]\naddopts = "-p no:hypothesispytest -p no:benchmark -p no:anyio"\n'
)


@pytest.fixture
def net_repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "repo", {"tests/test_net.py": NET_TESTS, "pyproject.toml": QUIET})


def _box(repo: Path, command: str) -> ToolBox:
    sandbox = make_sandbox("none", repo)
    red = known_red(run_baseline(sandbox, repo, command, 60))
    assert red is not None
    box = ToolBox(repo, sandbox, PathPolicy(repo, None, []), 60.0)
    box.known_red = red.known
    return box


def test_a_run_whose_failures_were_all_red_at_the_base_is_one_line(net_repo):
    box = _box(net_repo, "python -m pytest -q")
    whole = box.execute("run", {"command": "python -m pytest -q"})
    assert whole.status == "error"
    head, status, counts, line = whole.text.split("\n")
    assert head == "$ python -m pytest -q" and status.startswith("exit code 1 (")
    assert counts.startswith("2 failed, 1 passed")
    assert line == (
        "Every failure here was already there before any change, the same way: 2 tests failing "
        "(tests/test_net.py::test_proxy, tests/test_net.py::test_proxy_auth); not this change's "
        "doing, so their output is left out."
    )
    one = box.execute("run", {"command": "python -m pytest -q tests/test_net.py::test_proxy"})
    assert one.text.endswith(
        "1 test failing (tests/test_net.py::test_proxy); not this "
        "change's doing, so their output is left out."
    )
    assert "Traceback" not in whole.text + one.text and "DNS" not in whole.text + one.text


def test_a_new_failure_or_an_old_one_failing_differently_shows_the_output(net_repo):
    box = _box(net_repo, "python -m pytest -q")
    tests = net_repo / "tests" / "test_net.py"
    tests.write_text(NET_TESTS.replace("1 + 1 == 2", "1 + 1 == 3"))
    new = box.execute("run", {"command": "python -m pytest -q"})
    assert "already there" not in new.text and "assert (1 + 1) == 3" in new.text
    tests.write_text(NET_TESTS.replace("'proxy.example' (DNS)", "'proxy.example' (timeout)"))
    other = box.execute("run", {"command": "python -m pytest -q"})
    assert "already there" not in other.text and "(timeout)" in other.text
    tests.write_text(NET_TESTS)
    assert "already there" not in box.execute("run", {"command": "python -m pytest -q -k ok"}).text


def test_the_briefing_bounds_the_ids_and_counts_them(tmp_path):
    many = "".join(f"def test_{i}():\n    assert False, 'offline'\n\n\n" for i in range(45))
    repo = make_repo(tmp_path / "repo", {"tests/test_many.py": many, "pyproject.toml": QUIET})
    red = known_red(run_baseline(make_sandbox("none", repo), repo, "python -m pytest -q", 60))
    assert red is not None
    said = red.briefing()
    assert said.startswith("Before any change, 45 tests already fail under `python -m pytest -q`")
    assert said.count("tests/test_many.py::test_") == SHOWN_IDS
    assert f"(+{45 - SHOWN_IDS} more)" in said


def test_a_part_of_the_command_red_at_the_base_is_named(tmp_path):
    lint = "import sys\nprint('lint.py:3:1: E999 trailing whitespace')\nsys.exit(1)\n"
    repo = make_repo(
        tmp_path / "repo",
        {"lint.py": lint, "tests/test_net.py": NET_TESTS, "pyproject.toml": QUIET},
    )
    command = "python lint.py && python -m pytest -q"
    base = run_baseline(make_sandbox("none", repo), repo, command, 60, allow_no_tests=True)
    red = known_red(base)
    assert (
        red is not None and red.briefing() == "Before any change, `python lint.py` fails (exit 1)"
    )


def test_each_step_is_told_the_base_and_its_runs_are_short(tmp_path, monkeypatch):
    """A fresh step conversation: the tests red at the base in its briefing, and the suite run
    before and after the fix answered in one line each (test_add is red at the base too)."""
    repo = make_repo(
        tmp_path / "repo",
        {
            "calc.py": CALC,
            "tests/test_calc.py": TESTS,
            "tests/test_net.py": NET_TESTS,
            "pyproject.toml": PYPROJECT,
        },
    )
    fix = step("fix-add", ["calc.py"], [{"kind": "tests_pass", "paths": ["tests/test_calc.py"]}])
    calls = [
        ("submit_plan", {"goal": "add adds", "steps": [fix]}),
        ("run", {"command": "python -m pytest -q"}),
        ("edit_file", FIX_ADD),
        ("run", {"command": "python -m pytest -q"}),
        ("finish_step", {"summary": "fixed add"}),
    ]
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-base-test")
    replies = [anthropic_message(tool_calls=[anthropic_tool_use(t, a)]) for t, a in calls]
    with fake_anthropic(replies) as server:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.base_url)
        result = run_task(
            RunOptions(repo=repo, task="make add() add", model="anthropic:claude-test")
        ).result
        bodies = server.bodies()
    assert result.status == "verified", result.message
    briefing = bodies[1]["messages"][0]["content"][0]["text"]
    assert "Phase: EXECUTE" in briefing
    assert (
        "Before any change, 3 tests already fail under `python -m pytest -q`: "
        "tests/test_calc.py::test_add, tests/test_net.py::test_proxy, "
        "tests/test_net.py::test_proxy_auth." in briefing
    )
    before_fix = bodies[2]["messages"][-1]["content"][0]["content"]
    after_fix = bodies[4]["messages"][-1]["content"][0]["content"]
    assert before_fix.endswith(
        "3 tests failing (tests/test_calc.py::test_add, "
        "tests/test_net.py::test_proxy, tests/test_net.py::"
        "test_proxy_auth); not this change's doing, so their output is "
        "left out."
    )
    assert "2 tests failing (tests/test_net.py::test_proxy" in after_fix
    assert "Traceback" not in json.dumps(bodies[-1]["messages"])
