"""Proven steps end to end: a regression test must fail before the fix and pass after it,
a step that changed nothing is not verified, and tests removed on purpose are checked gone."""

from __future__ import annotations

from pathlib import Path

from calcrepo import FIX_ADD, plan, step
from gitrepo import git, snapshot

from coder.loop.runner import RunOptions, run_task
from coder.loop.state.trace import read_trace

NEW_TEST = "\n\ndef test_add_negative():\n    assert add(-1, -2) == -3\n"
VACUOUS_TEST = "\n\ndef test_scale_three():\n    assert scale(1, 3) == 3\n"


def run(repo: Path, model: str, task: str = "make add() add", **kw) -> tuple:
    outcome = run_task(RunOptions(repo=repo, task=task, model=model, **kw))
    return outcome.result, outcome.run_dir, read_trace(outcome.run_dir / "trace.jsonl")


def append_test(text: str) -> dict:
    return {
        "tool": "edit_file",
        "input": {
            "path": "tests/test_calc.py",
            "old_text": "    assert scale(value=2, factor=3) == 6\n",
            "new_text": "    assert scale(value=2, factor=3) == 6\n" + text,
        },
    }


PROVEN = step(
    "fix-add",
    ["calc.py", "tests/test_calc.py"],
    ["the new tests in tests/test_calc.py fail before this step and pass after"],
)


def verifications(events: list[dict], kind: str) -> list[dict]:
    return [e for e in events if e["type"] == "verification" and e.get("kind") == kind]


def test_a_test_that_fails_before_the_fix_proves_the_step(calc_repo, script):
    before = snapshot(calc_repo)
    result, _, events = run(
        calc_repo,
        script(
            plan(PROVEN),
            append_test(NEW_TEST),
            {"tool": "edit_file", "input": FIX_ADD},
            {"tool": "finish_step", "input": {"summary": "fixed add, with a test"}},
        ),
    )
    assert result.status == "verified", result.message
    [check] = verifications(events, "tests_fail_before")
    assert check["status"] == "passed"
    assert (
        "tests/test_calc.py: 1 test(s) failed before the change, pass after it: "
        "tests/test_calc.py::test_add_negative" in check["evidence"]
    )
    [verified] = [e for e in events if e["type"] == "step_verified"]
    assert verified["proven"] == ["tests/test_calc.py::test_add_negative"]  # for coder.attempts
    assert snapshot(calc_repo) == before
    assert "coder-proof" not in git(calc_repo, "worktree", "list")


def test_a_vacuous_test_is_caught_and_the_revision_proves_a_real_one(calc_repo, script):
    result, _, events = run(
        calc_repo,
        script(
            plan(PROVEN),
            append_test(VACUOUS_TEST),
            {"tool": "edit_file", "input": FIX_ADD},
            {"tool": "finish_step", "input": {"summary": "fixed add"}},
            plan(PROVEN),
            append_test(NEW_TEST),
            {"tool": "edit_file", "input": FIX_ADD},
            {"tool": "finish_step", "input": {"summary": "fixed add, real test"}},
        ),
    )
    first, second = verifications(events, "tests_fail_before")
    assert first["status"] == "failed"
    assert (
        "tests/test_calc.py::test_scale_three: passed before the change too: it would not have "
        "caught the bug" in first["evidence"]
    )
    assert second["status"] == "passed"
    assert (result.status, result.rollbacks) == ("verified", 1)


def test_a_named_test_id_must_also_pass_after_the_step(calc_repo, script):
    """`test_add` fails at the checkpoint; a step that leaves add() broken does not prove it."""
    broken = {**FIX_ADD, "new_text": "return b - a"}
    result, _, events = run(
        calc_repo,
        script(
            plan(
                step(
                    "fix-add",
                    ["calc.py"],
                    ["`tests/test_calc.py::test_add` fails before this step and passes after"],
                )
            ),
            {"tool": "edit_file", "input": broken},
            {"tool": "finish_step", "input": {"summary": "tried"}},
        ),
        max_revisions=0,
    )
    [check] = verifications(events, "tests_fail_before")
    assert check["status"] == "failed"
    assert "failed before the change as it should, but failed after it" in check["evidence"]
    assert result.status != "verified"


def test_a_step_that_changed_no_file_is_not_verified(calc_repo, script):
    head = git(calc_repo, "rev-parse", "HEAD").strip()
    result, _, events = run(
        calc_repo,
        script(
            plan(step("check-only", ["calc.py"], ["tests in tests/test_calc.py pass"])),
            {"tool": "finish_step", "input": {"summary": "nothing to do"}},
        ),
        max_revisions=0,
    )
    [check] = verifications(events, "files_changed")
    assert check["status"] == "failed"
    assert check["evidence"].startswith("this step changed no file")
    assert result.status != "verified"
    assert not [e for e in events if e["type"] == "step_verified"]
    assert git(calc_repo, "rev-parse", result.branch).strip() == head  # no empty commit


def test_a_retry_restores_the_rolled_back_attempt_in_one_call(calc_repo, script):
    """The vacuous attempt's fix was right: the retry takes calc.py back from it, whole, and
    writes only the real test; the attempt was kept outside the repository (no ref)."""
    result, _, events = run(
        calc_repo,
        script(
            plan(PROVEN),
            append_test(VACUOUS_TEST),
            {"tool": "edit_file", "input": FIX_ADD},
            {"tool": "finish_step", "input": {"summary": "fixed add"}},
            plan(PROVEN),
            {"tool": "restore_attempt", "input": {"paths": ["calc.py"]}},
            append_test(NEW_TEST),
            {"tool": "finish_step", "input": {"summary": "fixed add, real test"}},
        ),
    )
    assert result.status == "verified", result.message
    restored = next(
        e for e in events if e["type"] == "observation" and e["tool"] == "restore_attempt"
    )
    assert restored["status"] == "ok"
    assert restored["text"].startswith("restored from the attempt of fix-add: calc.py (modified)")
    revise = next(e for e in events if e["type"] == "plan_revised")
    assert revise
    refs = git(calc_repo, "for-each-ref", "--format=%(refname)", "refs/coder")
    assert refs.strip() == ""
    assert "return a + b" in result.patch and "test_scale_three" not in result.patch


def test_the_revision_is_told_it_can_restore_the_attempt():
    from coder.loop.modes import _attempt_account

    account = _attempt_account("did it", "")
    assert "restore_attempt {}" in account


SKIP_AND_DELETE = {
    "path": "tests/test_calc.py",
    "old_text": (
        "def test_add():\n    assert add(2, 3) == 5\n\n\n"
        "def test_scale():\n    assert scale(2) == 4\n    assert scale(value=2, factor=3) == 6\n"
    ),
    "new_text": "import pytest\n\n\n@pytest.mark.skip\ndef test_add():\n    assert add(2, 3) == 5\n",
}


def test_a_step_that_skips_the_failing_test_and_deletes_a_passing_one_is_not_verified(
    calc_repo, script
):
    result, _, _ = run(
        calc_repo,
        script(
            plan(step("fix-add", ["tests/test_calc.py"], ["tests in tests/test_calc.py pass"])),
            {"tool": "edit_file", "input": SKIP_AND_DELETE},
            {"tool": "finish_step", "input": {"summary": "made the tests green"}},
        ),
        max_revisions=0,
    )
    assert result.status != "verified"


REMOVAL_TASK = "make add() add; the scale test is obsolete: remove it, and skip the add test"


def test_tests_removed_on_purpose_are_checked_gone_and_named_for_the_judge(calc_repo, script):
    from contracts import invariants as inv
    from contracts.validation import validate_plan

    removal = step(
        "drop-scale-test",
        ["tests/test_calc.py"],
        [
            "`tests/test_calc.py::test_scale` is removed on purpose",
            {"kind": "tests_removed", "paths": ["tests/test_calc.py::test_add"]},
        ],
    )
    compiled = validate_plan(plan(removal)["input"]).plan
    assert compiled is not None
    said = compiled.steps["drop-scale-test"].invariants
    assert [p for i in said if isinstance(i, inv.TestsRemoved) for p in i.paths] == [
        "tests/test_calc.py::test_scale",
        "tests/test_calc.py::test_add",
    ]
    result, _, events = run(
        calc_repo,
        script(
            plan(removal),
            {"tool": "edit_file", "input": SKIP_AND_DELETE},
            {"tool": "finish_step", "input": {"summary": "skip add, drop scale"}},
        ),
        task=REMOVAL_TASK,
        max_revisions=0,
    )
    scale, add = verifications(events, "tests_removed")
    assert (scale["status"], add["status"]) == ("passed", "passed"), add["evidence"]
    assert "tests/test_calc.py::test_scale (gone)" in scale["evidence"]
    assert "tests/test_calc.py::test_add (skipped)" in add["evidence"]


def test_a_test_said_removed_that_still_runs_fails_the_check(calc_repo, script):
    keep = {**FIX_ADD}
    _, _, events = run(
        calc_repo,
        script(
            plan(step("fix", ["calc.py"], ["`tests/test_calc.py::test_scale` is removed"])),
            {"tool": "edit_file", "input": keep},
            {"tool": "finish_step", "input": {"summary": "fixed"}},
        ),
        task=REMOVAL_TASK,
        max_revisions=0,
    )
    [check] = verifications(events, "tests_removed")
    assert check["status"] == "failed"
    assert "tests/test_calc.py::test_scale still runs (passed)" in check["evidence"]


def test_a_model_cannot_waive_a_test_that_ran_at_the_base_by_declaring_it_removed(
    calc_repo, script
):
    """Issue 32: a step deleted the task's own failing test and named it in `tests_removed`;
    with nothing in the task asking for a removal it verified. Now the removal is refused,
    and a plan the user wrote may still remove it."""
    drop_add = step(
        "drop-add-test",
        ["tests/test_calc.py"],
        [{"kind": "tests_removed", "paths": ["tests/test_calc.py::test_add"]}],
    )
    delete_add = {
        "path": "tests/test_calc.py",
        "old_text": "def test_add():\n    assert add(2, 3) == 5\n",
        "new_text": "",
    }
    result, _, events = run(
        calc_repo,
        script(
            plan(drop_add),
            {"tool": "edit_file", "input": delete_add},
            {"tool": "finish_step", "input": {"summary": "removed the failing test"}},
        ),
        max_revisions=0,
    )
    [check] = verifications(events, "tests_removed")
    assert check["status"] == "failed"
    assert "the task does not ask to remove them: tests/test_calc.py::test_add" in check["evidence"]
    assert result.status != "verified"


def test_a_js_test_file_stands_for_the_tests_in_it() -> None:
    """vitest and jest ids are `file > describe > test`: a file named by a proof holds them
    (the pathe live trial: a correct step was "missing after it" for want of this)."""
    from coder.verdict.proof import outcome_of
    from coder.verdict.run import TestRun
    from sandbox.running import CommandResult
    from summarizers.runners.reader import read_log

    data = Path(__file__).parents[2] / "summarizers" / "data" / "runners"
    log = (data / "vitest_verbose.log").read_text()
    run = TestRun("vitest", "vitest", CommandResult("vitest", 1, 1.0, log), read_log(log))
    files = ["test/math.test.js", "test/ok.test.js", "test/gone.test.js"]
    facts = run.facts()
    assert outcome_of(target("vitest", "test/math.test.js", files), facts) == "failed"
    assert outcome_of(target("vitest", "test/ok.test.js", files), facts) == "passed"
    assert outcome_of(target("vitest", "test/ok.test.js > also good", files), facts) == "passed"
    assert outcome_of(target("vitest", "test/gone.test.js", files), facts) == "missing"


def target(runner: str, name: str, files: list[str]):
    """What the runner module makes of one name in a project holding `files`."""
    from summarizers.runners.names import Project, read_names
    from summarizers.runners.table import runner_named

    project = Project(frozenset(files))
    names = read_names([name], project)
    assert isinstance(names, list)
    selected = runner_named(runner).select([], names, project)
    [found] = selected.targets  # type: ignore[union-attr]
    return found


def test_cases_added_to_a_parametrize_decorator_change_the_test() -> None:
    """The dateparser live trial: new `param(...)` entries in an existing decorator list are
    a changed test, found without the planner naming generated ids."""
    from summarizers.ast_scope import extract_symbols

    before = "@parameterized.expand([param('a')])\ndef test_parse(self, s):\n    assert parse(s)\n"
    after = before.replace("[param('a')]", "[param('a'), param('b')]")
    old = {s.name: s.body_hash for s in extract_symbols(before, "python").symbols}
    new = {s.name: s.body_hash for s in extract_symbols(after, "python").symbols}
    assert old["test_parse"] != new["test_parse"]


def test_a_parameterized_test_is_each_of_its_generated_cases() -> None:
    from coder.verdict.proof import outcome_of
    from coder.verdict.run import TestRun
    from sandbox.running import CommandResult
    from summarizers.runners.reader import read_log

    log = (
        "t.py::T::test_date_0 PASSED\nt.py::T::test_date_1_2023_100 FAILED\n"
        "t.py::T::test_date_other PASSED\n"
        "=========================== short test summary info ============================\n"
        "FAILED t.py::T::test_date_1_2023_100 - AssertionError\n"
    )
    run = TestRun("pytest", "pytest", CommandResult("pytest", 1, 1.0, log), read_log(log))
    assert outcome_of(target("pytest", "t.py::T::test_date", ["t.py"]), run.facts()) == "failed"
    other = target("pytest", "t.py::T::test_date_other", ["t.py"])
    assert outcome_of(other, run.facts()) == "passed"


DROP_SCALE_TEST = {
    "path": "tests/test_calc.py",
    "old_text": (
        "def test_scale():\n    assert scale(2) == 4\n    assert scale(value=2, factor=3) == 6\n"
    ),
    "new_text": "",
}


def react_dropping_scale(script, said: list[str] | None) -> str:
    answer: dict = {"summary": "fixed add; dropped the scale test as asked"}
    if said is not None:
        answer["tests_removed"] = said
    return script(
        {"tool": "edit_file", "input": FIX_ADD},
        {"tool": "edit_file", "input": DROP_SCALE_TEST},
        {"tool": "final_answer", "input": answer},
    )


def test_react_names_the_tests_the_task_asked_it_to_delete(calc_repo, script):
    """React mode has no invariants: its final_answer says which tests the task asked it to
    delete, the final check leaves those out and names them (py-migrate-storage)."""
    result, _, events = run(
        calc_repo,
        react_dropping_scale(script, ["tests/test_calc.py"]),
        task="make add() add, and delete the scale test",
        mode="react",
    )
    [final] = verifications(events, "final_check")
    assert result.status == "verified", final["evidence"]
    assert "removed on purpose (not counted): tests/test_calc.py::test_scale" in final["evidence"]


def test_react_deleting_a_test_without_saying_so_is_not_verified(calc_repo, script):
    result, _, events = run(calc_repo, react_dropping_scale(script, None), mode="react")
    [final] = verifications(events, "final_check")
    assert result.status != "verified"
    assert "tests/test_calc.py::test_scale" in final["evidence"]
    assert "final_answer's tests_removed" in final["evidence"]


def test_rows_added_to_a_table_driven_test_prove_the_file_by_outcome() -> None:
    """ufo-313 (recorded live session): the step added rows to `const tests = [...]` and the
    ids are made from the rows, so no test definition changed; the file's tests that failed
    before and pass after are the proof. A row that passed before too proves nothing."""
    from coder.verdict.judge import Facts, Policy, judge
    from coder.verdict.proof import judge_proof

    old = 'test/base.test.ts > withBase > "/" + "/"'
    new = 'test/base.test.ts > withBase > "/admin" + "/admin-dashboard"'
    proof = target("vitest", "test/base.test.ts", ["test/base.test.ts"])
    read = {"all_listed": True, "readers": ("vitest",)}
    before = Facts(exit_code=1, outcomes={old: "passed", new: "failed"}, **read)
    after = Facts(exit_code=0, outcomes={old: "passed", new: "passed"}, **read)
    verdict = judge(after, before, Policy("step", named=(proof,)))
    ruled = judge_proof(before, verdict, [proof], {"test/base.test.ts": []})
    assert ruled.proven, ruled.lines
    assert new in ruled.lines[0]
    vacuous = Facts(exit_code=0, outcomes={old: "passed", new: "passed"}, **read)
    ruled = judge_proof(vacuous, verdict, [proof], {"test/base.test.ts": []})
    assert not ruled.proven and "would not have caught the bug" in ruled.lines[0]


def test_a_runner_that_lists_only_failures_proves_by_a_whole_green_run_after() -> None:
    """cookie (live trial, vitest behind `ts-scripts test`, default reporter): the new test is
    named as it failed before, and the run after passes whole with one more test counted; it
    was "missing after it" three times, a right change rolled back each time. A run after
    that counts fewer tests than ran before (the new test deleted) proves nothing."""
    from coder.verdict.judge import Facts, Policy, judge
    from coder.verdict.proof import judge_proof

    new = "src/parse.spec.ts > parse > ignores the value of boolean attributes"
    files = ["src/parse.spec.ts"]
    vitest = ("vitest",)
    before = Facts(exit_code=1, outcomes={new: "failed"}, passed_count=143, readers=vitest)
    for name in (new, "src/parse.spec.ts"):
        proof = target("vitest", name, files)
        for after, proven in (
            (Facts(exit_code=0, passed_count=144, readers=vitest), True),
            (Facts(exit_code=0, passed_count=143, readers=vitest), False),
            (Facts(exit_code=1, passed_count=144, readers=vitest), False),
        ):
            named = (proof,) if proof.kind == "test" else ()
            verdict = judge(after, before, Policy("step", named=named, scope=(proof,)))
            ruled = judge_proof(before, verdict, [proof], {"src/parse.spec.ts": None})
            assert ruled.proven == proven, (name, after, ruled.lines)


def test_a_runner_coder_does_not_read_proves_by_its_exits() -> None:
    """camelcase (live trial, `xo && ava && tsd`): no runner module reads ava, and what the
    generic reading takes for ids (a failure's `test.js` location, a title) is no test id;
    the proof is the runs' exits, red before and green after, and says so (the session
    replayed on a first fix still failed: the location was taken for the file's id). Green
    before too proves nothing."""
    from coder.verdict.judge import Facts, Policy, judge
    from coder.verdict.proof import judge_proof
    from summarizers.runners.model import spelled_target

    for name in ("test.js", "test.js > camelCase"):
        proof = spelled_target(name)
        red = Facts(exit_code=1, outcomes={"camelCase": "failed", "test.js": "failed"})
        green = Facts(exit_code=0, outcomes={"camelCase": "passed"}, passed_count=7)
        verdict = judge(green, red, Policy("step"))
        ruled = judge_proof(red, verdict, [proof], {})
        assert ruled.proven and "judged by exit status" in ruled.lines[0], ruled.lines
        ruled = judge_proof(green, verdict, [proof], {})
        assert not ruled.proven, ruled.lines


def test_the_proof_tree_brings_in_what_worktreeinclude_names(calc_repo, script):
    """humanize (live trial): the package's `_version.py` is ignored and named in
    `.worktreeinclude`; the tree the proof runs the old code in did not bring it in, every
    test failed there on the import, and a test that passes on the old code "proved" the fix.
    The proof's tree has what the run's worktree has, so a vacuous test is caught."""
    (calc_repo / ".gitignore").write_text("_version.py\n")
    (calc_repo / ".worktreeinclude").write_text("_version.py\n")
    (calc_repo / "calc.py").write_text("import _version\n" + (calc_repo / "calc.py").read_text())
    git(calc_repo, "add", "-A")
    git(calc_repo, "commit", "-qm", "version from the build")
    (calc_repo / "_version.py").write_text("VERSION = '1.0'\n")
    result, _, events = run(
        calc_repo,
        script(
            plan(PROVEN),
            append_test(VACUOUS_TEST),
            {"tool": "edit_file", "input": FIX_ADD},
            {"tool": "finish_step", "input": {"summary": "fixed add"}},
        ),
        max_revisions=0,
    )
    [check] = verifications(events, "tests_fail_before")
    assert check["status"] == "failed", check["evidence"]
    assert "test_scale_three: passed before the change too" in check["evidence"]
    assert result.status != "verified"
