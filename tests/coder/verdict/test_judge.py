"""The one judge as a table: each row a run, its base, the policy, and what the step's check
and the final check decide. No repository, no sandbox: microseconds a row."""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from coder.verdict.evidence import final_detail, step_head
from coder.verdict.judge import (
    Facts,
    Policy,
    SectionFailure,
    final_policy,
    judge,
    step_policy,
)
from summarizers.runners.model import covered, spelled_target


def T(*names: str) -> tuple:
    """Names as coder's own spelling of ids covers them (what a runner module would give)."""
    return tuple(spelled_target(n) for n in names)


P, F, E, S, X = "passed", "failed", "error", "skipped", "xfailed"


def run(
    exit_code: int | None = 0,
    outcomes: dict[str, str] | None = None,
    messages: dict[str, str] | None = None,
    **kw: object,
) -> Facts:
    return Facts(
        command="pytest",
        exit_code=exit_code,
        outcomes=outcomes or {},
        messages=messages or {},
        all_listed=kw.pop("all_listed", True),  # type: ignore[arg-type]
        **kw,  # type: ignore[arg-type]
    )


BASE = run(1, {"t::a": P, "t::b": P, "t::old": F}, {"t::old": "ValueError: x"})


@dataclass(frozen=True)
class Row:
    name: str
    now: Facts
    base: Facts | None
    step: bool
    final: bool
    step_policy: Policy = field(default_factory=step_policy)
    final_policy: Policy = field(default_factory=final_policy)
    said: str = ""
    """Words the step's evidence and the final check's detail both hold."""


ROWS = [
    Row("all green", run(0, {"t::a": P, "t::b": P, "t::old": P}), BASE, True, True),
    Row(
        "old failure, same message",
        run(1, {"t::a": P, "t::b": P, "t::old": F}, {"t::old": "ValueError: x"}),
        BASE,
        True,
        True,
    ),
    Row(
        # the disagreement 1: the final check used to pass it
        "a new failing test fails both",
        run(1, {"t::a": P, "t::b": P, "t::old": F, "t::new": F}, {"t::old": "ValueError: x"}),
        BASE,
        False,
        False,
        said="t::new",
    ),
    Row(
        "a new failing test fails both even on exit 0",
        run(0, {"t::a": P, "t::b": P, "t::new": F}),
        BASE,
        False,
        False,
        said="t::new",
    ),
    Row(
        # disagreement 2: the step used to pass it
        "a test that passed at the base and is now missing fails both",
        run(0, {"t::a": P, "t::old": P}),
        BASE,
        False,
        False,
        said="t::b",
    ),
    Row(
        # disagreement 3: one rule, it counts
        "an old failure with a changed message fails both",
        run(1, {"t::a": P, "t::b": P, "t::old": F}, {"t::old": "TypeError: y"}),
        BASE,
        False,
        False,
        said="failed at the base, but differently",
    ),
    Row(
        "a red-at-base test now missing fails both",
        run(0, {"t::a": P, "t::b": P}),
        BASE,
        False,
        False,
        said="t::old",
    ),
    Row(
        "a test now skipped fails both",
        run(0, {"t::a": P, "t::b": S, "t::old": P}),
        BASE,
        False,
        False,
        said="t::b",
    ),
    Row(
        "a test now xfailed fails both",
        run(0, {"t::a": P, "t::b": X, "t::old": P}),
        BASE,
        False,
        False,
        said="t::b",
    ),
    Row(
        "a test removed on purpose is not missing",
        run(0, {"t::a": P, "t::old": P}),
        BASE,
        True,
        True,
        step_policy=step_policy(removed=T("t::b")),
        final_policy=final_policy(removed=T("t::b")),
        said="removed on purpose",
    ),
    Row(
        "a file removed on purpose removes its tests",
        run(0, {"u::c": P}),
        run(0, {"t::a": P, "u::c": P}),
        True,
        True,
        step_policy=step_policy(removed=T("t")),
        final_policy=final_policy(removed=T("t")),
    ),
    Row(
        "a path-scoped run misses only tests it could have selected",
        run(0, {"t::a": P, "t::b": P}),
        run(0, {"t::a": P, "t::b": P, "u::c": P}),
        True,
        False,
        step_policy=step_policy(scope=T("t")),
    ),
    Row(
        "a path-scoped run still misses a test of its own file",
        run(0, {"t::a": P}),
        run(0, {"t::a": P, "t::b": P, "u::c": P}),
        False,
        False,
        step_policy=step_policy(scope=T("t")),
        said="t::b",
    ),
    Row(
        "an invariant's own command is not judged for missing tests",
        run(0, {"t::a": P}),
        BASE,
        True,
        False,
        step_policy=step_policy(scope=()),
    ),
    Row(
        "a run that does not list every test is not judged for missing ones",
        run(0, {"t::a": P}, all_listed=False),
        BASE,
        True,
        True,
    ),
    Row(
        "a named old failure counts for the step only",
        run(1, {"t::a": P, "t::b": P, "t::old": F}, {"t::old": "ValueError: x"}),
        BASE,
        False,
        True,
        step_policy=step_policy(named=T("t::old")),
    ),
    Row(
        "all-old failures and no pass: nothing shows the step works",
        run(1, {"t::old": F}, {"t::old": "ValueError: x"}, all_listed=False),
        BASE,
        False,
        True,
        said="",
    ),
    Row(
        "timed out fails both",
        run(None, {}, timed_out=True, duration_s=120),
        BASE,
        False,
        False,
        said="timed out after 120s",
    ),
    Row(
        "stopped early fails both",
        run(1, {"t::a": P}, incomplete="pytest was stopping after 1 failures"),
        BASE,
        False,
        False,
        said="stopping after 1 failures",
    ),
    Row(
        "exit 1, no failing test: the section and its first error lines",
        run(
            1,
            {"t::a": P, "t::b": P, "t::old": P},
            section_failures=(SectionFailure("posttest: eslint .", ("error  'x' is unused",)),),
        ),
        run(0, {"t::a": P, "t::b": P, "t::old": P}),
        False,
        False,
        said="`posttest: eslint .` failed without naming a failing test: error  'x' is unused",
    ),
    Row(
        "a section red at the base the same way does not count",
        run(
            1,
            {"t::a": P, "t::b": P, "t::old": P},
            section_failures=(SectionFailure("posttest: eslint .", ("error  'x' is unused",)),),
        ),
        run(
            1,
            {"t::a": P, "t::b": P, "t::old": P},
            section_failures=(SectionFailure("posttest: eslint .", ("error  'x' is unused",)),),
        ),
        True,
        True,
        said="was red at the base the same way",
    ),
    Row(
        "a section red at the base differently counts",
        run(1, {"t::a": P}, section_failures=(SectionFailure("lint", ("error B",)),)),
        run(1, {"t::a": P}, section_failures=(SectionFailure("lint", ("error A",)),)),
        False,
        False,
        said="error B",
    ),
    Row(
        "no baseline: every failing test counts",
        run(1, {"t::a": F}),
        None,
        False,
        False,
    ),
    Row(
        "a base that timed out is no base",
        run(1, {"t::old": F, "t::a": P}),
        run(None, {"t::old": F}, timed_out=True),
        False,
        False,
    ),
    Row(
        "nothing ran, exit 0: passes, and the final check says nothing was tested",
        run(0, {}, all_listed=False),
        run(0, {}, all_listed=False),
        True,
        True,
    ),
    Row(
        # issue 30: a selection by name that runs nothing must never pass
        "a named test the run aimed at did not run: the step fails",
        run(0, {"t::a": P, "t::new": S}),
        run(0, {"t::a": P}),
        False,
        True,
        step_policy=step_policy(T("t::new"), (), T("t::new")),
    ),
    Row(
        "a selection by name that ran no test at all: the step fails",
        run(0, {}, all_listed=False),
        run(0, {}, all_listed=False),
        False,
        True,
        step_policy=step_policy(T("t::new"), (), T("t::new")),
    ),
    Row(
        "a named test a run that lists only failures does not list: not judged absent",
        run(0, {}, all_listed=False, passed_count=3),
        run(0, {}, all_listed=False, passed_count=2),
        True,
        True,
        step_policy=step_policy(T("t::new"), (), T("t::new")),
    ),
    Row(
        "the sandbox's doing is data, and said",
        run(
            1,
            {"t::a": P},
            section_failures=(SectionFailure("vitest", ("error TS5033: EROFS",)),),
            environment=("read_only node_modules/x: EROFS: read-only file system",),
        ),
        run(0, {"t::a": P}),
        False,
        False,
        said="the sandbox's doing",
    ),
]


@pytest.mark.parametrize("row", ROWS, ids=[r.name for r in ROWS])
def test_the_judge_table(row: Row) -> None:
    step = judge(row.now, row.base, row.step_policy)
    final = judge(row.now, row.base, row.final_policy)
    assert (step.passed, final.passed) == (row.step, row.final)
    if row.said:
        if row.step_policy.scope is None:
            assert row.said in step_head(step)
        assert row.said in final_detail(final)


def test_the_three_disagreements_agree_now() -> None:
    """The issue's three cases, where the two old judges disagreed: one decision for both."""
    for name in (
        "a new failing test fails both",
        "a test that passed at the base and is now missing fails both",
        "an old failure with a changed message fails both",
    ):
        row = next(r for r in ROWS if r.name == name)
        assert judge(row.now, row.base, step_policy()).passed is False
        assert judge(row.now, row.base, final_policy()).passed is False


def test_evidence_is_data() -> None:
    verdict = judge(
        run(1, {"t::a": P, "t::old": F, "t::new": F}, {"t::old": "TypeError: y"}),
        BASE,
        final_policy(),
    )
    assert verdict.counted == ["t::new", "t::old"]
    assert verdict.changed_message == {"t::old": ("ValueError: x", "TypeError: y")}
    assert verdict.missing == ["t::b"]
    assert verdict.regressed == ["t::b"]
    assert verdict.already_failing == []


def test_a_named_test_that_did_not_run_is_said() -> None:
    verdict = judge(
        run(0, {"t::a": P, "t::new": S}),
        run(0, {"t::a": P}),
        step_policy(T("t::new"), (), T("t::new")),
    )
    assert verdict.not_run == ["t::new"]
    assert "the named test(s) did not run: t::new" in step_head(verdict)


def test_nothing_tested_is_said() -> None:
    verdict = judge(run(0, {}, all_listed=False), run(0, {}, all_listed=False), final_policy())
    assert "nothing was tested" in final_detail(verdict)


def test_names_and_scopes() -> None:
    assert covered("t.py::C::test", T("t.py::C"))
    assert covered("t.py::test[1-2]", T("t.py::test"))
    assert covered("tests/a/t.py::x", T("tests/a/"))
    assert not covered("t.py::test_b", T("t.py::test"))
    assert covered("tests/t.py::x", T("tests/t.py"))
    assert not covered("tests/u.py::x", T("tests/t.py"))
    assert covered("test/a.test.js > adds > one", T("test/a.test.js > adds"))
