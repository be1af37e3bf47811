"""A `tests_pass` with paths runs the test runner on those paths, whatever shell the test
command uses, and the planner and the executor are shown the exact command it runs."""

from __future__ import annotations

import json
from pathlib import Path

from calcrepo import FIX_ADD, plan, step
from fake_model_servers import anthropic_message, anthropic_tool_use, fake_anthropic

from coder.loop.runner import RunOptions, run_task
from coder.loop.state.trace import read_trace
from coder.verdict.scoping import command_for_paths, paths_briefing
from summarizers.runners.commands import NODE_BIN_PATH

COMPOSITE = "cd . && python -m pytest -q"
NAMED = step("fix-add", ["calc.py"], [{"kind": "tests_pass", "paths": ["tests/test_calc.py"]}])


def test_package_json_scripts_are_read_from_the_worktree(tmp_path, monkeypatch):
    scripts = {"test": "jest --ci", "posttest": "eslint ."}
    (tmp_path / "package.json").write_text(json.dumps({"scripts": scripts}))
    (tmp_path / "test").mkdir()
    (tmp_path / "test" / "a.test.js").write_text("")
    run = command_for_paths("npm test --silent", ["test/a.test.js"], tmp_path)
    assert run.runner == "jest"
    assert run.command.startswith(f"{NODE_BIN_PATH} jest ")
    assert run.command.endswith(" test/a.test.js")
    assert run.note == "the test command without the posttest hook `eslint .`"


def test_a_command_with_no_runner_runs_whole_and_says_so(tmp_path, monkeypatch):
    (tmp_path / "package.json").write_text("{not json")
    run = command_for_paths("tox -e py311", ["tests/test_a.py"], tmp_path)
    assert run.command == "tox -e py311"
    assert run.note.startswith("the whole test command ran, not just those tests: no test runner")


def test_a_whole_command_run_still_knows_the_files_its_names_are(tmp_path, monkeypatch):
    """The proof lays the step's version of the named test files over the code before it, a
    runner coder does not know included (the camelcase trial: AVA's root `test.js`)."""
    (tmp_path / "package.json").write_text(json.dumps({"scripts": {"test": "xo && ava"}}))
    (tmp_path / "test.js").write_text("")
    run = command_for_paths("npm test", ["test.js"], tmp_path)
    assert run.command == "npm test"
    assert [t.files for t in run.targets] == [("test.js",)]


def test_the_planner_is_shown_what_a_tests_pass_with_paths_runs(tmp_path, monkeypatch):
    assert paths_briefing(COMPOSITE, tmp_path) == (
        "A tests_pass with paths runs `cd . && python -m pytest -q <paths>`."
    )
    assert paths_briefing("cd backend && pytest; ruff check .", tmp_path) == (
        "A tests_pass with paths runs `cd backend && pytest <paths>` "
        "(the test command without `ruff check .`)."
    )
    assert paths_briefing("tox -e py311", tmp_path) == (
        "A tests_pass with paths runs the whole test command: no test runner coder knows is "
        "run by `tox -e py311`."
    )
    assert paths_briefing(None, tmp_path) == ""


def test_a_composite_test_command_verifies_a_step_naming_a_test_file(
    calc_repo, script, monkeypatch
):
    outcome = run_task(
        RunOptions(
            repo=calc_repo,
            task="make add() add",
            model=script(
                plan(NAMED),
                {"tool": "edit_file", "input": FIX_ADD},
                {"tool": "finish_step", "input": {"summary": "fixed"}},
            ),
            test_cmd=COMPOSITE,
        )
    )
    assert (outcome.result.status, outcome.result.stop_reason) == ("verified", "completed")
    events = read_trace(outcome.run_dir / "trace.jsonl")
    check = next(e for e in events if e["type"] == "verification" and e.get("kind") == "tests_pass")
    assert check["status"] == "passed"
    assert check["detail"] == "cd . && python -m pytest -q tests/test_calc.py"


def test_both_briefings_show_the_exact_command(calc_repo, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
    calls = [
        ("submit_plan", plan(NAMED)["input"]),
        ("edit_file", FIX_ADD),
        ("finish_step", {"summary": "fixed"}),
    ]
    replies = [anthropic_message(tool_calls=[anthropic_tool_use(t, a)]) for t, a in calls]
    with fake_anthropic(replies) as server:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.base_url)
        result = run_task(
            RunOptions(
                repo=calc_repo,
                task="make add() add",
                model="anthropic:claude-test",
                test_cmd=COMPOSITE,
            )
        ).result
        planner, executor = (_first_message(server.requests[i].body) for i in (0, 1))
    assert result.status == "verified", result.message
    assert (
        "A tests_pass on `tests/test_calc.py` runs `cd . && python -m pytest -q "
        "tests/test_calc.py`." in planner
    )
    assert (
        'tests_pass {"paths": ["tests/test_calc.py"]}\n'
        "    runs: `cd . && python -m pytest -q tests/test_calc.py`"
    ) in executor


def _first_message(body: dict) -> str:
    content = body["messages"][0]["content"]
    if isinstance(content, str):
        return content
    return "".join(part.get("text", "") for part in content)


def test_a_composite_script_runs_only_its_runner(tmp_path: Path, monkeypatch):
    (tmp_path / "package.json").write_text(
        json.dumps({"scripts": {"test": "pnpm lint && vitest run --typecheck", "lint": "x"}})
    )
    run = command_for_paths("pnpm test", ["src/a.test.ts"], tmp_path)
    assert run.command.startswith(f"{NODE_BIN_PATH} vitest run --typecheck")
    assert "src/a.test.ts" in run.command and "lint" not in run.command
    assert run.note == "the test command without `pnpm lint`"


def test_the_briefings_example_is_a_file_named_like_a_test(tmp_path):
    """humanize (live trial): the example was `tests/__init__.py`, a file a weak planner
    might copy into its invariant."""
    for rel in (
        "tests/__init__.py",
        "tests/conftest.py",
        "tests/unit/test_deep.py",
        "tests/test_filesize.py",
        "tests/helpers.py",
    ):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("")
    assert paths_briefing("python -m pytest -q", tmp_path) == (
        "A tests_pass on `tests/test_filesize.py` runs `python -m pytest -q tests/test_filesize.py`."
    )
