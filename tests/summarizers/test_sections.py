"""A log is a sequence of sections, each compacted with its own format under one shared budget.
The logs are real runs (tests/summarizers/data/runners/README.md says how each was made)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from summarizers.logformats.prep import prepare
from summarizers.logs import compact_log
from summarizers.logsections import compact_sections
from summarizers.runners.model import BUILD, HOOK, LINT, SECTION_MARK, TESTS, TYPECHECK
from summarizers.runners.sections import Span, split_sections
from summarizers.tokens import estimate_tokens

DATA = Path(__file__).parent / "data" / "runners"


def spans(log: str) -> list[Span]:
    return split_sections(prepare((DATA / log).read_text()).lines)


def test_npm_banners_with_pre_and_post_hooks():
    got = [(s.name, s.kind, s.exit_code) for s in spans("npm_tap_posttest_lint.log")]
    assert got == [
        ("pretest: node -e \"console.log('checking fixtures')\"", HOOK, None),
        ("test: tap test/*.js", TESTS, None),
        ("posttest: eslint .", LINT, None),
    ]


def test_pnpm_banners_and_the_failed_section_exit_code():
    got = [(s.name, s.kind, s.exit_code) for s in spans("pnpm_tap_posttest_lint.log")]
    assert got[1:] == [("test: tap test/*.js", TESTS, None), ("posttest: eslint .", LINT, 1)]


def test_npm_banners_of_a_package_with_no_version():
    """npm 11 names no `pkg@version` for a package without a version: `> posttest` alone."""
    got = spans("npm11_noversion_mocha_posttest_lint.log")
    assert [(s.name, s.kind, s.command, s.script) for s in got] == [
        ("test: mocha", TESTS, "mocha", True),
        ("posttest: node lint.cjs", HOOK, "node lint.cjs", True),
    ]


def test_a_quoted_word_is_not_a_banner_of_a_package_with_no_version():
    lines = ["  1 passing", "", "> note", "> quoted reply", "still quoted", "", "> end"]
    assert [s.name for s in split_sections(lines)] == [""]


def test_two_pytest_sessions_in_a_row_are_two_sections():
    got = spans("pytest_two_sessions.log")
    assert [(s.name, s.kind) for s in got] == [("pytest", TESTS), ("pytest", TESTS)]
    assert got[0].start == 0 and got[0].end == got[1].start and got[1].end > got[1].start


def test_ci_log_commands_tox_environments_and_harness_marks():
    ci = spans("ci_dollar_two_pytest.log")
    assert [s.name for s in ci] == [
        "cd backend && python -m pytest",
        "cd worker && python -m pytest",
    ]
    tox = spans("tox_two_envs.log")
    assert [(s.name.split(":")[0], s.kind, s.exit_code) for s in tox] == [
        ("lint", LINT, 1),
        ("unit", TESTS, 1),
    ]
    marks = spans("marks_ruff_pytest.log")
    assert [(s.name, s.kind) for s in marks] == [
        ("python3 -m ruff check lib.py", LINT),
        ("python3 -m pytest -q -p no:randomly tests", TESTS),
    ]


def test_sections_cover_every_line_once():
    for log in DATA.glob("*.log"):
        lines = prepare(log.read_text()).lines
        got = split_sections(lines)
        assert got[0].start == 0 and got[-1].end == len(lines), log.name
        assert all(a.end == b.start for a, b in zip(got, got[1:], strict=False)), log.name


@pytest.mark.parametrize(
    ("lines", "kinds"),
    [
        (
            [f"{SECTION_MARK}npm run build", "ok", f"{SECTION_MARK}tsc --noEmit", "x"],
            [BUILD, TYPECHECK],
        ),
        (["> a@1.0.0 lint", "> eslint .", "", "> a@1.0.0 test", "> jest"], [LINT, TESTS]),
        (["> quoted text", "> more quoted text", "plain"], None),
        (
            ["##[group]Run npm ci", "added 3", "##[endgroup]", "##[group]Run npx vitest run"],
            [BUILD, TESTS],
        ),
    ],
)
def test_kinds_and_what_does_not_split(lines, kinds):
    got = split_sections(lines)
    if kinds is None:
        assert len(got) == 1
    else:
        assert [s.kind for s in got] == kinds


def test_ci_step_exit_code():
    lines = ["##[group]Run pytest", "1 failed", "##[error]Process completed with exit code 1."]
    assert split_sections(lines)[0].exit_code == 1


# --- compaction under one shared budget -----------------------------------------------------

_CASE = re.compile(r"test_(?:backend|worker)_case_\d\d")


@pytest.mark.parametrize("log", ["pytest_two_sessions.log", "ci_dollar_two_pytest.log"])
def test_every_failing_test_of_both_sessions_is_named_at_2000_tokens(log):
    text = (DATA / log).read_text()
    failing = set(_CASE.findall(text))
    assert len(failing) == 34
    compact = compact_log(text, budget=2000, exit_code=1)
    assert compact.tokens <= 2000 and estimate_tokens(compact.text) <= 2000
    assert {f for f in failing if f in compact.text} == failing
    assert len(compact.failing) == 34
    assert "left out:" in compact.text  # each section counts what it left out
    assert compact.text.count("[section ") == 2


@pytest.mark.parametrize("log", ["npm_tap_posttest_lint.log", "pnpm_tap_posttest_lint.log"])
def test_passing_tap_is_not_a_failure_and_the_red_lint_section_is_shown(log):
    text = (DATA / log).read_text()
    compact = compact_log(text, budget=500, exit_code=1)
    assert "ok 1 - throws TypeError" not in compact.text
    assert "(tests) passed" in compact.text and "151 passed" in compact.text
    assert "posttest: eslint . (lint) failed" in compact.text
    assert "'unusedHelper' is assigned a value but never used" in compact.text
    assert "✖ 1 problem (1 error, 0 warnings)" in compact.text
    assert compact.failing == []


def test_tox_log_shows_the_lint_error_and_every_failing_test():
    text = (DATA / "tox_two_envs.log").read_text()
    compact = compact_log(text, budget=1200, exit_code=1)
    assert "F401" in compact.text
    assert len(set(_CASE.findall(compact.text))) == 17


@pytest.mark.parametrize("budget", [150, 400, 2000])
def test_the_shared_budget_is_never_exceeded(budget):
    for log in DATA.glob("*.log"):
        compact = compact_log(log.read_text(), budget=budget, exit_code=1)
        assert estimate_tokens(compact.text) <= budget, log.name


@pytest.mark.parametrize(
    ("log", "failing"),
    [
        ("tap16.log", ["test/parse.js > parse nested > inner bad", "test/throws.js > explodes"]),
        ("tap21.log", ["test/parse.js > parse nested > inner bad", "test/throws.js > explodes"]),
        ("mocha_spec.log", ["add > adds negatives", "add > nested group > deep fail"]),
        ("vitest_default.log", ["test/math.test.js > top-level throws"]),
    ],
)
def test_one_runner_log_is_compacted_by_its_runner_module(log, failing):
    """node-tap's ids without `# time=`; vitest, jest and mocha, which have no format parser,
    with their failing ids and messages, not their error-looking lines."""
    compact = compact_log((DATA / log).read_text() * 3, budget=400, exit_code=1)
    assert set(failing) <= set(compact.failing)
    assert all("time=" not in f for f in compact.failing)
    assert all(f"FAILED {f}" in compact.text for f in failing)


def test_a_sections_count_is_the_runners_own_where_two_tests_share_a_title():
    """yargs-parser's suite has two tests of one full title: mocha says 291 passing and the
    model was told 289 (ids are unique); the header says what the runner counted."""
    lines = prepare((DATA / "mocha_duplicate_titles.log").read_text()).lines
    text = compact_sections(lines, split_sections(lines), 200, 0).text
    assert "(tests) passed; 3 passed]" in text, text
