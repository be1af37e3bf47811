"""The baseline: the test command once on the untouched worktree, before the first model call.

Real repositories in tmp_path, the real sandbox, the scripted model (or a fake Anthropic server
where what the model was sent matters).
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from calcrepo import CALC, FIX_ADD, FIX_STEP, PYPROJECT, TESTS, plan
from fake_model_servers import anthropic_message, anthropic_tool_use, fake_anthropic
from gitrepo import git, make_repo, snapshot
from rich.console import Console

from coder.loop.runner import RunOptions, UsageError, run_task
from coder.loop.state.trace import read_trace
from coder.progress import ProgressPrinter
from coder.verdict.baseline import ENVIRONMENT_FIX, briefing_note, run_baseline
from sandbox.confine import make_sandbox

ENV_TEST = "import missing_dep\n\n\ndef test_dep():\n    assert missing_dep\n"


def calc_with(tmp_path: Path, extra: dict[str, str] | None = None) -> Path:
    files = {"calc.py": CALC, "tests/test_calc.py": TESTS, "pyproject.toml": PYPROJECT}
    return make_repo(tmp_path / "repo", {**files, **(extra or {})})


def sandbox(root: Path):
    return make_sandbox("bwrap", root, warn=None)


@pytest.mark.parametrize(
    ("test_cmd", "said"),
    [
        ("nonexistent-runner --all", "nonexistent-runner: command not found (exit 127)"),
        (".venv/bin/python -m pytest", ".venv/bin/python: No such file or directory (exit 127)"),
        ("./run-tests.sh", "./run-tests.sh: Permission denied (exit 126)"),
    ],
)
def test_a_test_command_that_cannot_run_is_bad_input_and_changes_nothing(
    tmp_path: Path, script, test_cmd: str, said: str
) -> None:
    repo = make_repo(
        tmp_path / "repo", {"calc.py": CALC, "run-tests.sh": "#!/bin/sh\npython -m pytest\n"}
    )
    before = snapshot(repo)
    events: list[dict] = []
    with pytest.raises(UsageError) as caught:
        run_task(
            RunOptions(
                repo=repo,
                task="x",
                model=script(plan(FIX_STEP)),
                test_cmd=test_cmd,
                listeners=[events.append],
            )
        )
    message = str(caught.value)
    assert "\n" not in message and f"`{test_cmd}` cannot run" in message and said in message
    assert "model_call" not in [e["type"] for e in events]
    assert snapshot(repo) == before
    assert git(repo, "branch", "--list", "coder/*") == ""
    assert not (repo / ".coder" / "runs").exists() or not list((repo / ".coder/runs").iterdir())
    assert not list((repo / ".git" / "coder-worktrees").glob("*"))


def test_an_unrunnable_command_leaves_nothing_in_an_out_dir_either(tmp_path: Path, script):
    repo = make_repo(tmp_path / "repo", {"calc.py": CALC})
    out = tmp_path / "out"
    out.mkdir()
    (out / "mine.txt").write_text("keep\n")
    with pytest.raises(UsageError):
        run_task(
            RunOptions(repo=repo, task="x", model=script(), test_cmd="no-such-cmd", out_dir=out)
        )
    assert sorted(p.name for p in out.iterdir()) == ["mine.txt"]


def test_the_baseline_is_recorded_traced_and_printed(tmp_path: Path, script):
    repo = calc_with(tmp_path)
    stream = io.StringIO()
    printer = ProgressPrinter(Console(file=stream, width=200))
    outcome = run_task(
        RunOptions(
            repo=repo,
            task="make add() add",
            model=script(
                plan(FIX_STEP),
                {"tool": "edit_file", "input": FIX_ADD},
                {"tool": "finish_step", "input": {"summary": "fixed"}},
            ),
            listeners=[printer],
        )
    )
    result = json.loads((outcome.run_dir / "result.json").read_text())
    assert result["baseline"] == {
        "command": "python -m pytest -q",
        "exit_code": 1,
        "passed": 1,
        "failing": ["tests/test_calc.py::test_add"],
    }
    events = read_trace(outcome.run_dir / "trace.jsonl")
    types = [e["type"] for e in events]
    assert types.index("baseline") < types.index("model_call")
    base = events[types.index("baseline")]
    assert (base["command"], base["exit_code"], base["passed"], base["failed"]) == (
        "python -m pytest -q",
        1,
        1,
        1,
    )
    assert base["failing"] == ["tests/test_calc.py::test_add"] and base["duration_s"] > 0
    printed = stream.getvalue()
    assert "baseline `python -m pytest -q`" in printed
    assert "1 passed, 1 already failing: tests/test_calc.py::test_add" in printed


@pytest.mark.parametrize("mode", ["contract", "react", "reflect"])
def test_the_model_is_told_which_tests_already_fail(tmp_path: Path, monkeypatch, mode) -> None:
    """The planner, and react's and reflect's attempt, which have no plan to count them in."""
    repo = calc_with(tmp_path, {"tests/test_env.py": ENV_TEST})
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
    stop = anthropic_message(tool_calls=[anthropic_tool_use("stop", {"reason": "seen"})])
    with fake_anthropic([stop]) as server:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.base_url)
        result = run_task(
            RunOptions(repo=repo, task="fix add", model="anthropic:claude-test", mode=mode)
        ).result
        sent = json.dumps(server.requests[0].body["messages"])
    assert result.stop_reason == "stopped_by_model"
    assert "these tests already fail" in sent
    assert ("names them by id" in sent) == (mode == "contract")
    assert "tests/test_calc.py::test_add" in sent and "tests/test_env.py" in sent
    assert "`missing_dep` cannot be imported" in sent and "`.worktreeinclude`" in sent


def test_an_import_of_a_module_outside_the_repository_is_named_with_the_fix(tmp_path, script):
    own = "from calc import subtract\n\n\ndef test_sub():\n    assert subtract\n"
    repo = calc_with(tmp_path, {"tests/test_env.py": ENV_TEST, "tests/test_own.py": own})
    stream = io.StringIO()
    outcome = run_task(
        RunOptions(
            repo=repo,
            task="x",
            model=script({"tool": "stop", "input": {"reason": "done"}}),
            listeners=[ProgressPrinter(Console(file=stream, width=300))],
        )
    )
    base = next(e for e in read_trace(outcome.run_dir / "trace.jsonl") if e["type"] == "baseline")
    assert len(base["missing_environment"]) == 1  # calc is a file of the repository
    assert base["missing_environment"][0].startswith("`missing_dep` cannot be imported")
    printed = stream.getvalue()
    assert "likely missing environment: `missing_dep` cannot be imported" in printed
    assert "`setup_cmd`" in printed and "`include`" in printed


def test_a_generated_module_missing_from_the_worktree_is_an_environment_problem(tmp_path):
    """humanize's `_version.py` is written by hatch-vcs and ignored: the worktree lacks it."""
    repo = make_repo(
        tmp_path / "repo",
        {
            "src/pkg/__init__.py": "from pkg._version import version\n",
            "tests/test_pkg.py": "import sys\nsys.path.insert(0, 'src')\nimport pkg\n\n\n"
            "def test_version():\n    assert pkg.version\n",
            ".gitignore": "src/pkg/_version.py\n",
        },
    )
    base = run_baseline(sandbox(repo), repo, "python -m pytest -q", 60)
    assert base.failing == ["tests/test_pkg.py"]
    assert base.missing_environment == [
        "`pkg._version` cannot be imported (ModuleNotFoundError: No module named "
        "'pkg._version') and is not a file of the repository"
    ]
    note = briefing_note(base)
    assert "Likely a missing environment" in note and ENVIRONMENT_FIX in note


def test_a_passing_baseline_says_so(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {"test_ok.py": "def test_ok():\n    assert True\n"})
    base = run_baseline(sandbox(repo), repo, "python -m pytest -q", 60)
    assert (base.exit_code, base.failing, base.missing_environment) == (0, [], [])
    assert base.result().passed == 1
    assert (
        briefing_note(base)
        == "Before any change (at the commit this run starts from) `python -m pytest -q` passes."
    )
