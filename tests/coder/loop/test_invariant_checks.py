"""Each invariant checker end to end: a step that holds it verifies, one that breaks it fails."""

from __future__ import annotations

import pytest
from calcrepo import FIX_ADD, plan, step
from gitrepo import git

from coder.loop.runner import RunOptions, run_task
from coder.loop.state.trace import read_trace


def checks_of(repo, model, **kw) -> tuple:
    outcome = run_task(RunOptions(repo=repo, task="t", model=model, max_revisions=0, **kw))
    events = read_trace(outcome.run_dir / "trace.jsonl")
    return outcome.result, {
        e["kind"]: e for e in events if e["type"] == "verification" and e.get("step")
    }


FINISH = {"tool": "finish_step", "input": {"summary": "done"}}
ADD_KWARG = {"path": "calc.py", "old_text": "def add(a, b):", "new_text": "def add(a, b, c=0):"}
RENAME_FACTOR = {
    "path": "calc.py",
    "old_text": "def scale(value, factor=2):\n    return value * factor",
    "new_text": "def scale(value, times=2):\n    return value * times",
}
DROP_DEFAULT = {"path": "calc.py", "old_text": "factor=2", "new_text": "factor"}


@pytest.mark.parametrize(
    ("invariant", "edit", "status"),
    [
        ({"kind": "max_changed_lines", "n": 2}, FIX_ADD, "passed"),
        ({"kind": "max_changed_lines", "n": 1}, FIX_ADD, "failed"),
        ({"kind": "text_present", "pattern": r"return a \+ b"}, FIX_ADD, "passed"),
        ({"kind": "text_absent", "pattern": r"a - b"}, FIX_ADD, "passed"),
        ({"kind": "text_absent", "pattern": r"return"}, FIX_ADD, "failed"),
        ({"kind": "public_api_unchanged", "file": "calc.py"}, FIX_ADD, "passed"),
        ({"kind": "public_api_unchanged", "file": "calc.py"}, ADD_KWARG, "failed"),
        ({"kind": "signature_unchanged", "symbol": "add"}, ADD_KWARG, "failed"),
        ({"kind": "signature_compatible", "symbol": "add"}, ADD_KWARG, "passed"),
        ({"kind": "signature_compatible", "symbol": "add"}, FIX_ADD, "passed"),
        ({"kind": "signature_compatible", "symbol": "scale"}, RENAME_FACTOR, "failed"),
        ({"kind": "public_api_compatible", "file": "calc.py"}, ADD_KWARG, "passed"),
        ({"kind": "public_api_compatible", "file": "calc.py"}, DROP_DEFAULT, "failed"),
        ({"kind": "command_succeeds", "command": "grep -q 'a + b' calc.py"}, FIX_ADD, "passed"),
        ({"kind": "command_succeeds", "command": "grep -q 'a * b' calc.py"}, FIX_ADD, "failed"),
        # a failure inside a pipeline is a failure; a reader that stops early is not
        (
            {"kind": "command_succeeds", "command": "grep 'a * b' calc.py | tail -1"},
            FIX_ADD,
            "failed",
        ),
        ({"kind": "command_succeeds", "command": "seq 100000 | head -1"}, FIX_ADD, "passed"),
    ],
)
def test_checker(calc_repo, script, invariant, edit, status):
    result, checks = checks_of(
        calc_repo,
        script(
            plan(step("s", ["calc.py"], [invariant])), {"tool": "edit_file", "input": edit}, FINISH
        ),
    )
    assert checks[invariant["kind"]]["status"] == status
    assert result.steps[0].status == ("verified" if status == "passed" else "rolled_back")


def test_public_api_failure_names_the_changed_signature(calc_repo, script):
    _, checks = checks_of(
        calc_repo,
        script(
            plan(step("s", ["calc.py"], [{"kind": "public_api_unchanged", "file": "calc.py"}])),
            {"tool": "edit_file", "input": ADD_KWARG},
            FINISH,
        ),
    )
    assert "add" in checks["public_api_unchanged"]["evidence"]


@pytest.mark.parametrize(
    ("text", "kind", "status"),
    [
        ("Zero breaking changes to add signature in calc.py", "signature_compatible", "passed"),
        ("add stays backward compatible", "signature_compatible", "passed"),
        ("no breaking changes to the public API of calc.py", "public_api_compatible", "passed"),
        ("The signature of add must not change in calc.py", "signature_unchanged", "failed"),
        ("calc.py's public API is unchanged", "public_api_unchanged", "failed"),
    ],
)
def test_breaking_phrasings_allow_a_new_optional_parameter_and_strict_ones_do_not(
    calc_repo, script, text, kind, status
):
    _, checks = checks_of(
        calc_repo,
        script(
            plan(step("s", ["calc.py"], [text])), {"tool": "edit_file", "input": ADD_KWARG}, FINISH
        ),
    )
    assert checks[kind]["status"] == status


@pytest.mark.parametrize(
    ("invariant", "edit", "words"),
    [
        (
            {"kind": "signature_compatible", "symbol": "scale"},
            RENAME_FACTOR,
            "`factor` renamed `times`",
        ),
        (
            {"kind": "public_api_compatible", "file": "calc.py"},
            DROP_DEFAULT,
            "`scale`: `factor` lost its default",
        ),
        (
            {"kind": "signature_compatible", "symbol": "add"},
            ADD_KWARG,
            "added optional parameter `c`",
        ),
    ],
)
def test_compatibility_evidence_says_why(calc_repo, script, invariant, edit, words):
    _, checks = checks_of(
        calc_repo,
        script(
            plan(step("s", ["calc.py"], [invariant])), {"tool": "edit_file", "input": edit}, FINISH
        ),
    )
    assert words in checks[invariant["kind"]]["evidence"]


def test_a_compatible_check_of_a_removed_symbol_fails(calc_repo, script):
    remove = {
        "path": "calc.py",
        "old_text": "def scale(value, factor=2):\n    return value * factor\n",
        "new_text": "",
    }
    _, checks = checks_of(
        calc_repo,
        script(
            plan(
                step(
                    "s",
                    ["calc.py"],
                    [{"kind": "signature_compatible", "symbol": "scale", "file": "calc.py"}],
                )
            ),
            {"tool": "edit_file", "input": remove},
            FINISH,
        ),
    )
    assert checks["signature_compatible"]["status"] == "failed"
    assert "function `scale` removed" in checks["signature_compatible"]["evidence"]


def test_tests_failing_at_the_base_do_not_fail_the_final_check(calc_repo, script):
    """The base suite fails (add is broken); a step that only touches scale() keeps it failing."""
    edit = {
        "path": "calc.py",
        "old_text": "return value * factor",
        "new_text": "return factor * value",
    }
    result, _ = checks_of(
        calc_repo,
        script(plan(step("s", ["calc.py"], [])), {"tool": "edit_file", "input": edit}, FINISH),
    )
    assert result.status == "verified" and result.final_check.passed
    assert "already failed at the base" in result.final_check.detail


def test_rollback_past_the_checkpoint_unverifies_the_earlier_step(calc_repo, script):
    first = step("first", ["calc.py"], [])
    second = {
        **step(
            "second", ["README.md"], [{"kind": "text_present", "pattern": "never"}], deps=["first"]
        ),
        "rollbackPlan": {"gitCheckout": "HEAD~2"},
    }
    result, _ = checks_of(
        calc_repo,
        script(
            plan(first, second),
            {"tool": "edit_file", "input": FIX_ADD},
            FINISH,
            {"tool": "write_file", "input": {"path": "README.md", "content": "x\n"}},
            FINISH,
        ),
    )
    outcomes = {s.stepId: s.status for s in result.steps}
    assert outcomes == {"first": "rolled_back", "second": "rolled_back"}
    assert git(calc_repo, "rev-parse", result.branch).strip() == result.base_commit


def test_a_revision_keeps_verified_steps_and_reopens_changed_ones(calc_repo, script):
    first = step("first", ["calc.py"], [])
    bad = step(
        "second", ["README.md"], [{"kind": "text_present", "pattern": "never"}], deps=["first"]
    )
    good = step("second", ["README.md"], [], deps=["first"])
    outcome = run_task(
        RunOptions(
            repo=calc_repo,
            task="t",
            model=script(
                plan(first, bad),
                {"tool": "edit_file", "input": FIX_ADD},
                FINISH,
                {"tool": "write_file", "input": {"path": "README.md", "content": "x\n"}},
                FINISH,
                plan(first, good),
                {"tool": "write_file", "input": {"path": "README.md", "content": "y\n"}},
                FINISH,
            ),
        )
    )
    events = read_trace(outcome.run_dir / "trace.jsonl")
    revised = next(e for e in events if e["type"] == "plan_revised")
    assert revised["kept_verified"] == ["first"] and revised["reopened"] == []
    assert outcome.result.status == "verified"
    assert [s.attempts for s in outcome.result.steps] == [1, 2]


def test_a_failing_call_may_run_again_after_an_edit(calc_repo, script):
    pytest_run = {
        "tool": "run",
        "input": {"command": "python -m pytest -q tests/test_calc.py::test_add"},
    }
    outcome = run_task(
        RunOptions(
            repo=calc_repo,
            task="t",
            model=script(
                plan(step("s", ["calc.py"], [])),
                pytest_run,
                pytest_run,
                {"tool": "edit_file", "input": FIX_ADD},
                pytest_run,
                FINISH,
            ),
        )
    )
    runs = [
        e
        for e in read_trace(outcome.run_dir / "trace.jsonl")
        if e["type"] == "observation" and e["tool"] == "run"
    ]
    assert [e["status"] for e in runs] == ["error", "error", "ok"]


def test_text_checks_do_not_follow_links_out_of_the_worktree(calc_repo, script, tmp_path):
    outside = tmp_path / "host-secret.txt"
    outside.write_text("TOKEN=hunter2hunter2\n")
    link = {"tool": "run", "input": {"command": f"ln -s {outside} leak.txt"}}
    probe = {"kind": "text_present", "pattern": "TOKEN=", "paths": ["leak.txt"]}
    _, checks = checks_of(
        calc_repo, script(plan(step("s", ["leak.txt"], [probe])), link, FINISH), sandbox="none"
    )
    assert checks["text_present"]["status"] == "failed"
    assert "hunter2" not in checks["text_present"]["evidence"]
