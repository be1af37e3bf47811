"""Step verification and the final check, judged against the baseline; incomplete runs are not
evidence; the final check reuses the last step's identical run. End to end on real repos."""

from __future__ import annotations

from pathlib import Path

from calcrepo import CALC, FIX_ADD, PYPROJECT, TESTS, plan, step
from gitrepo import make_repo

from coder.loop.runner import RunOptions, run_task
from coder.loop.state.trace import read_trace

ENV_TEST = "import missing_dep\n\n\ndef test_dep():\n    assert missing_dep\n"
FINISH = {"tool": "finish_step", "input": {"summary": "done"}}
TESTS_DIR = {"kind": "tests_pass", "paths": ["tests"]}
ADD_ID = "tests/test_calc.py::test_add"


def repo_with(tmp_path: Path, extra: dict[str, str] | None = None, pyproject: str = PYPROJECT):
    files = {"calc.py": CALC, "tests/test_calc.py": TESTS, "pyproject.toml": pyproject}
    return make_repo(tmp_path / "repo", {**files, **(extra or {})})


def run(repo: Path, model: str, **kw):
    outcome = run_task(RunOptions(repo=repo, task="make add() add", model=model, **kw))
    return outcome.result, read_trace(outcome.run_dir / "trace.jsonl")


def checks(events: list[dict], kind: str = "tests_pass") -> list[dict]:
    return [e for e in events if e["type"] == "verification" and e["kind"] == kind]


def test_a_test_red_at_the_base_for_another_reason_does_not_fail_the_step(tmp_path, script):
    """Issue 11's live run: tests_pass on a directory counted an environment failure."""
    repo = repo_with(tmp_path, {"tests/test_env.py": ENV_TEST})
    fix = step("fix-add", ["calc.py"], [TESTS_DIR, {"kind": "tests_pass", "paths": [ADD_ID]}])
    result, events = run(repo, script(plan(fix), {"tool": "edit_file", "input": FIX_ADD}, FINISH))
    assert result.status == "verified" and result.rollbacks == 0
    directory, named = checks(events)
    assert directory["status"] == "passed" and named["status"] == "passed"
    assert "already failing at the base" in directory["evidence"]
    assert "tests/test_env.py" in directory["evidence"]
    assert result.final_check is not None and result.final_check.passed


def test_a_test_the_invariant_names_by_id_must_pass(tmp_path, script):
    repo = repo_with(tmp_path)
    touch_scale = {"path": "calc.py", "old_text": "value * factor", "new_text": "factor * value"}
    named = step("s", ["calc.py"], [{"kind": "tests_pass", "paths": [ADD_ID, "tests"]}])
    result, events = run(
        repo,
        script(plan(named), {"tool": "edit_file", "input": touch_scale}, FINISH),
        max_revisions=0,
    )
    assert result.stop_reason == "revisions_exhausted"
    evidence = checks(events)[0]["evidence"]
    assert checks(events)[0]["status"] == "failed"
    assert f"count against the step: {ADD_ID}" in evidence


def test_a_test_red_at_the_base_that_now_fails_differently_counts(tmp_path, script):
    repo = repo_with(tmp_path)
    wrong = {**FIX_ADD, "new_text": "return (a, b)"}
    s = step("fix-add", ["calc.py"], ["All unit tests in tests/test_calc.py must exit code 0"])
    result, events = run(
        repo,
        script(
            plan(s),
            {"tool": "edit_file", "input": wrong},
            FINISH,
            plan(s),
            # The rollback restored `return a - b`, so the retry edits that, and changes something.
            {"tool": "edit_file", "input": FIX_ADD},
            FINISH,
        ),
    )
    first, second = checks(events)
    assert first["status"] == "failed"
    assert f"{ADD_ID} failed at the base, but differently (was: AssertionError" in first["evidence"]
    assert second["status"] == "passed" and result.status == "verified"


def test_a_run_where_nothing_passes_is_no_evidence(tmp_path, script):
    repo = repo_with(tmp_path, {"tests/test_env.py": ENV_TEST})
    s = step("s", ["calc.py"], [{"kind": "tests_pass", "paths": ["tests/test_env.py"]}])
    touch = {"path": "calc.py", "old_text": "value * factor", "new_text": "factor * value"}
    result, events = run(
        repo, script(plan(s), {"tool": "edit_file", "input": touch}, FINISH), max_revisions=0
    )
    check = checks(events)[0]
    assert check["status"] == "failed" and "no test passed" in check["evidence"]


def test_stop_flags_are_taken_out_so_the_final_check_sees_every_test(tmp_path, script):
    """With `-x` the baseline and the final check both stopped at test_add (red at the base), so
    breaking test_scale went unseen and the final check passed."""
    repo = repo_with(tmp_path, pyproject=PYPROJECT.replace("-m pytest -q", "-m pytest -x -q"))
    break_scale = {"path": "calc.py", "old_text": "value * factor", "new_text": "value + factor"}
    result, events = run(
        repo,
        script(
            {"tool": "edit_file", "input": break_scale},
            {"tool": "final_answer", "input": {"summary": "done"}},
        ),
        mode="react",
    )
    base = next(e for e in events if e["type"] == "baseline")
    assert base["ran"] == "python -m pytest -q" and base["removed_flags"] == ["-x"]
    assert base["failing"] == [ADD_ID] and base["passed"] == 1
    assert result.stop_reason == "final_check_failed"
    assert result.final_check is not None
    assert result.final_check.new_failures == ["tests/test_calc.py::test_scale"]


def test_a_stop_configured_where_it_cannot_be_taken_out_fails_the_check(tmp_path, script):
    repo = repo_with(
        tmp_path,
        {"run-tests.sh": '#!/bin/sh\nexec python -m pytest -x -q "$@"\n'},
        pyproject=PYPROJECT.replace("python -m pytest -q", "sh run-tests.sh"),
    )
    break_scale = {"path": "calc.py", "old_text": "value * factor", "new_text": "value + factor"}
    s = step("s", ["calc.py"], [{"kind": "tests_pass"}])
    result, events = run(
        repo, script(plan(s), {"tool": "edit_file", "input": break_scale}, FINISH), max_revisions=0
    )
    base = next(e for e in events if e["type"] == "baseline")
    assert base["incomplete"] == "pytest was stopping after 1 failures"
    check = checks(events)[0]
    assert check["status"] == "failed" and "stopped early" in check["evidence"]
    assert "no evidence that they pass" in check["evidence"]


def test_a_stop_in_the_repository_config_is_overridden(tmp_path, script):
    pyproject = PYPROJECT.replace('addopts = "', 'addopts = "-x ')
    repo = repo_with(tmp_path, {"tests/test_env.py": ENV_TEST}, pyproject=pyproject)
    result, events = run(repo, script({"tool": "stop", "input": {"reason": "look only"}}))
    base = next(e for e in events if e["type"] == "baseline")
    assert base["incomplete"] is None and base["removed_flags"] == []
    assert base["failing"] == [ADD_ID, "tests/test_env.py"] and base["passed"] == 1


def test_the_final_check_reuses_the_last_steps_run_of_the_same_command(tmp_path, script):
    repo = repo_with(tmp_path)
    s = step("fix-add", ["calc.py"], [{"kind": "tests_pass"}])
    result, events = run(repo, script(plan(s), {"tool": "edit_file", "input": FIX_ADD}, FINISH))
    final = checks(events, "final_check")[0]
    assert result.status == "verified" and final["reused"] is True
    assert "the last step's run of it on this same tree" in final["evidence"]


def test_the_final_check_runs_again_when_the_tree_changed_since(tmp_path, script):
    repo = repo_with(tmp_path)
    first = step("fix-add", ["calc.py"], [{"kind": "tests_pass"}])
    second = step("readme", ["README.md"], [], deps=["fix-add"])
    result, events = run(
        repo,
        script(
            plan(first, second),
            {"tool": "edit_file", "input": FIX_ADD},
            FINISH,
            {"tool": "write_file", "input": {"path": "README.md", "content": "calc\n"}},
            FINISH,
        ),
    )
    assert result.status == "verified"
    assert checks(events, "final_check")[0]["reused"] is False


def test_a_narrowed_step_run_is_not_reused(tmp_path, script):
    repo = repo_with(tmp_path)
    s = step("fix-add", ["calc.py"], [{"kind": "tests_pass", "paths": ["tests/test_calc.py"]}])
    result, events = run(repo, script(plan(s), {"tool": "edit_file", "input": FIX_ADD}, FINISH))
    assert result.status == "verified"
    assert checks(events, "final_check")[0]["reused"] is False


JS_REPO = {
    "index.js": "const isNumber = require('is-number');\n"
    "exports.double = (x) => (isNumber(x) ? 2 * x : NaN);\n",
    "math.js": "exports.add = (a, b) => a - b;\n",
    "test/double.test.js": "const test = require('node:test');\nconst assert = require('node:assert');\n"
    "const { double } = require('../index.js');\n"
    "test('doubles', () => { assert.strictEqual(double(2), 4); });\n",
    "test/math.test.js": "const test = require('node:test');\nconst assert = require('node:assert');\n"
    "const { add } = require('../math.js');\n"
    "test('adds', () => { assert.strictEqual(add(2, 3), 5); });\n",
    ".coder.toml": 'test_cmd = "node --test test/"\ncmd_timeout = 30\n',
}
FIX_JS_ADD = {"path": "math.js", "old_text": "a - b", "new_text": "a + b"}


def test_node_dependency_missing_is_named_and_kept_in_the_evidence(tmp_path, script):
    """Issue 11: `Error: Cannot find module 'is-number'`, and the evidence said only
    `ERR_TEST_FAILURE: test failed`."""
    repo = make_repo(tmp_path / "repo", JS_REPO)
    double = step(
        "double", ["index.js"], [{"kind": "tests_pass", "paths": ["test/double.test.js"]}]
    )
    add = step("add", ["math.js"], [{"kind": "tests_pass"}])
    result, events = run(
        repo,
        script(
            plan(double, add),
            FINISH,
            {"tool": "edit_file", "input": FIX_JS_ADD},
            FINISH,
        ),
        max_revisions=0,
    )
    base = next(e for e in events if e["type"] == "baseline")
    assert [m.split(" ")[0] for m in base["missing_environment"]] == ["`is-number`"]
    assert len(base["failing"]) == 2
    first = checks(events)[0]
    assert first["status"] == "failed" and "Cannot find module 'is-number'" in first["evidence"]
    assert "ERR_TEST_FAILURE: test failed" not in first["evidence"]
    assert result.stop_reason == "revisions_exhausted"


def test_node_step_passes_when_only_the_missing_dependency_fails(tmp_path, script):
    repo = make_repo(tmp_path / "repo", JS_REPO)
    add = step("add", ["math.js"], [{"kind": "tests_pass"}])
    result, events = run(
        repo, script(plan(add), {"tool": "edit_file", "input": FIX_JS_ADD}, FINISH)
    )
    check = checks(events)[0]
    assert check["status"] == "passed" and "already failing at the base" in check["evidence"]
    assert "double.test.js" in check["evidence"]
    assert result.status == "verified"
