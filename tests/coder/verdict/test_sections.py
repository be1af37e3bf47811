"""Exit != 0 with no failing test: the verdict names what failed and its first error lines;
a failure red at the base the same way does not count. Environment failures are data, and
the revision prompt then does not tell the model to fix correct code."""

from __future__ import annotations

from pathlib import Path

from calcrepo import CALC, FIX_ADD

from coder.loop.conversation.prompts import ENVIRONMENTAL_FAILURE, revision_briefing
from coder.verdict.evidence import environmental, final_detail, step_head
from coder.verdict.judge import Facts, SectionFailure, final_policy, judge, step_policy
from coder.verdict.run import environment_failures, read_run, run_tests
from sandbox.confine import make_sandbox
from sandbox.running import CommandResult

RUNNER_LOGS = Path(__file__).parents[2] / "summarizers" / "data" / "runners"

MARK = "printf '%s\\n' '[coder] section: {}'; "
LINT = "python -m pytest -q; s=$?; echo 'calc.py:1: error: lint says no'; exit 1"
MARKED = (
    MARK.format("python -m pytest -q")
    + "python -m pytest -q; "
    + MARK.format("lint")
    + "echo 'calc.py:1: error: lint says no'; exit 1"
)
"""What `mark_sections` makes of `pytest; lint` (the `commands` helper's transform)."""


def fixed(repo: Path) -> Path:
    (repo / "calc.py").write_text(CALC.replace(FIX_ADD["old_text"], FIX_ADD["new_text"]))
    return repo


def test_exit_1_without_a_failing_test_names_its_first_error_lines(calc_repo) -> None:
    box = make_sandbox("bwrap", calc_repo)
    base = run_tests(box, calc_repo, "python -m pytest -q", 60)
    now = run_tests(box, fixed(calc_repo), LINT, 60)
    assert now.failing == [] and now.result.exit_code == 1
    for policy, words in ((step_policy(), step_head), (final_policy(), final_detail)):
        verdict = judge(now.facts(), base.facts(), policy)
        said = words(verdict)
        assert not verdict.passed
        assert "failed without naming a failing test" in said
        assert "calc.py:1: error: lint says no" in said


def test_a_failure_red_at_the_base_the_same_way_does_not_count(calc_repo) -> None:
    box = make_sandbox("bwrap", calc_repo)
    base = run_tests(box, calc_repo, MARKED, 60)
    now = run_tests(box, fixed(calc_repo), MARKED, 60)
    assert base.failing == ["tests/test_calc.py::test_add"] and now.failing == []
    for policy, words in ((step_policy(), step_head), (final_policy(), final_detail)):
        verdict = judge(now.facts(), base.facts(), policy)
        assert verdict.passed, words(verdict)
        assert "red at the base the same way" in words(verdict)


def test_a_posttest_hook_red_at_the_base_is_named_not_the_runner_before_it() -> None:
    """npm 11, a package with no version: `> posttest` alone heads the hook's lines, and npm
    says nothing more when it fails. The red part is the hook, with its own command (what a
    probe of the base runs), not the test runner's section before it."""
    log = (RUNNER_LOGS / "npm11_noversion_mocha_posttest_lint.log").read_text()
    base, now = (read_run("npm test", "npm test", CommandResult("npm test", 1, 1.0, log)),) * 2
    assert now.facts().section_failures == (
        SectionFailure("posttest: node lint.cjs", (), 1, "node lint.cjs", script=True),
    )
    verdict = judge(now.facts(), base.facts(), final_policy())
    assert verdict.passed
    assert "`posttest: node lint.cjs` was red at the base the same way" in final_detail(verdict)


def test_environment_failures_are_data_and_the_revision_says_so() -> None:
    verdict = judge(
        Facts(
            command="vitest run",
            exit_code=1,
            outcomes={"a": "passed"},
            all_listed=True,
            environment=("read_only node_modules/.pnpm/x.tsbuildinfo: EROFS",),
        ),
        Facts(command="vitest run", outcomes={"a": "passed"}, all_listed=True),
        final_policy(),
    )
    assert not verdict.passed and environmental(verdict)
    assert "the sandbox's doing" in final_detail(verdict)
    briefing = _briefing(environmental=True)
    assert ENVIRONMENTAL_FAILURE in briefing and "Fix the cause" not in briefing
    assert "Fix the cause" in _briefing(environmental=False)


def test_environment_failures_are_read_where_the_reader_exists() -> None:
    """A no-op until `summarizers.sandbox_failures` lands; then one line per failure."""
    lines = ["error TS5033: Could not write file 'x': EROFS: read-only file system"]
    try:
        import summarizers.sandbox_failures  # noqa: F401
    except ImportError:
        assert environment_failures(lines) == []
    else:
        assert environment_failures(lines)


def _briefing(*, environmental: bool) -> str:
    from calcrepo import FIX_STEP, plan

    from contracts.validation import validate_plan

    check = validate_plan(plan(FIX_STEP)["input"])
    assert check.plan is not None
    return revision_briefing("t", check.plan, [], "failure", "lots", environmental=environmental)
