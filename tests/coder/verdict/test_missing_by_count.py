"""A test gone where no id can say which: a reporter that names no passing test (jest's and
vitest's default over several files), ids without their file (mocha, node --test), a name
selection that matched nothing. The judge on typed inputs; the reader on real output."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from coder.verdict.evidence import final_detail, step_head
from coder.verdict.judge import Facts, final_policy, judge, step_policy, with_missing_before
from summarizers.runners.model import Target
from summarizers.runners.reader import read_log

P, F = "passed", "failed"


def counted(passed: int, outcomes: dict[str, str] | None = None, exit_code: int = 0) -> Facts:
    """A run whose reporter printed counts, and per-test lines only for failures."""
    return Facts(
        command="npm test",
        exit_code=exit_code,
        outcomes=outcomes or {},
        passed_count=passed,
        all_listed=False,
        readers=("jest",),
    )


ZERO = Target("test/a.test.js > a > zero", "test", frozenset({"test/a.test.js > a > zero"}))


def test_the_final_check_counts_a_passing_test_gone_when_no_id_says_which() -> None:
    verdict = judge(counted(3), counted(4), final_policy())
    assert not verdict.passed and verdict.fewer == 1
    assert "1 test(s) fewer passed than at the base" in final_detail(verdict)


def test_a_test_removed_on_purpose_is_not_owed() -> None:
    assert judge(counted(3), counted(4), final_policy(removed=(ZERO,))).passed
    gone_file = Target("test/a.test.js", "file", frozenset(), ("test/a.test.js > ",))
    assert judge(counted(1), counted(4), final_policy(removed=(gone_file,))).passed


def test_a_test_that_fails_now_is_a_failure_not_a_missing_one() -> None:
    verdict = judge(counted(3, {"test/a.test.js > a > x": F}, 1), counted(4), final_policy())
    assert not verdict.passed and verdict.fewer == 0 and verdict.counted


def test_counts_of_a_narrower_selection_are_not_compared_with_the_base() -> None:
    scope = (Target("test/a.test.js", "file", frozenset(), ("test/a.test.js > ",)),)
    assert judge(counted(1), counted(4), step_policy(scope=scope)).passed


def test_a_selection_run_before_the_step_says_which_test_is_gone() -> None:
    """mocha's ids do not name their file: the baseline cannot say which of its tests a file
    holds, the same selection run before the step can."""
    anywhere = (Target("test/a.test.js", "file", frozenset(), ("",)),)
    listed = {"a > one": P}
    now = Facts(command="mocha test/a.test.js", outcomes=listed, passed_count=1, all_listed=True)
    base = Facts(outcomes={"a > one": P, "a > zero": P, "b > two": P}, all_listed=True)
    policy = step_policy(scope=anywhere)
    verdict = judge(now, base, policy)
    assert verdict.passed and verdict.missing_unjudged
    before = Facts(outcomes={"a > one": P, "a > zero": P}, passed_count=2, all_listed=True)
    after = with_missing_before(verdict, before, policy)
    assert not after.passed and after.missing == ["a > zero"]
    assert "a > zero" in step_head(after)
    mocha_zero = Target("a > zero", "test", frozenset({"a > zero"}))
    kept = with_missing_before(verdict, before, step_policy(removed=(mocha_zero,), scope=anywhere))
    assert kept.passed and kept.removed == ["a > zero"]


def test_a_name_selection_that_matched_nothing_lists_all_of_none(tmp_path: Path) -> None:
    """`python -m unittest -k` naming a deleted test runs none and exits 0: its log lists every
    test it ran (none), so the named test counts as missing."""
    (tmp_path / "test_a.py").write_text(
        "import unittest\n\n\nclass TestA(unittest.TestCase):\n"
        "    def test_one(self):\n        pass\n"
    )
    done = subprocess.run(
        [sys.executable, "-m", "unittest", "-v", "-k", "test_a.TestA.test_zero*"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    log = read_log(done.stdout + done.stderr)
    assert log.outcomes == {} and log.all_listed
    base = Facts(
        outcomes={"test_a.TestA.test_one": P, "test_a.TestA.test_zero": P}, all_listed=True
    )
    zero = Target("test_a.TestA.test_zero", "test", frozenset({"test_a.TestA.test_zero"}))
    now = Facts(command="python -m unittest -v -k x", all_listed=log.all_listed, passed_count=0)
    verdict = judge(now, base, step_policy(named=(zero,), scope=(zero,)))
    assert not verdict.passed and verdict.missing == ["test_a.TestA.test_zero"]
