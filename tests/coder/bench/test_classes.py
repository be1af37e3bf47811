"""The failure-class rules, one case per class and per precedence that matters; the classes
of real runs on the fixtures are in test_failure_classes.py."""

from __future__ import annotations

import pytest

from coder.bench.classes import FAILURE_CLASSES, caught_by, check_class, failure_class
from coder.bench.evidence import FailedCheck, RunEvidence

TIMED_OUT = FailedCheck("tests_pass", "s", timed_out=True)
REGRESSED = FailedCheck("tests_pass", "s", regressed=["t::a"])


def ev(stop_reason: str = "completed", mode: str = "react", **kw) -> RunEvidence:
    return RunEvidence(mode=mode, stop_reason=stop_reason, **kw)


CASES = [
    ("acceptance_only", ev(final_passed=True)),
    ("regression", ev("final_check_failed", final_passed=False, new_failures=["t::a"])),
    ("signature_break", ev(breaking=["m.py: parse_date"])),
    ("signature_break", ev(breaking=["m.py: f"], drifted=["r.py"])),
    ("scope_drift", ev(drifted=["report.py"])),
    ("hang", ev("final_check_failed", final_passed=False, final_timed_out=True)),
    ("hang", ev("revisions_exhausted", mode="contract", failed_checks=[REGRESSED, TIMED_OUT])),
    ("hang", ev("timeout", command_timeouts=2)),
    ("loop", ev("no_progress")),
    ("loop", ev("turn_budget", refusals=1)),
    ("budget", ev("turn_budget")),
    ("budget", ev("token_budget")),
    ("budget", ev("timeout")),
    ("no_tool_call", ev("model_error", ended_on_parse_errors=True)),
    ("other", ev("model_error")),  # the model's API failed, or a script ran out of turns
    ("environment", ev("final_check_failed", missing_environment=["`x` cannot be imported"])),
    ("environment", ev("model_error", ended_on_parse_errors=True, missing_environment=["y"])),
    ("other", ev("final_check_failed", final_passed=False)),  # e.g. an incomplete run
    ("other", ev("stopped_by_model")),
    ("other", ev("needs_input")),
    ("other", ev("revisions_exhausted", mode="contract")),
]


@pytest.mark.parametrize(("expected", "evidence"), CASES)
def test_failure_class_rules(expected: str, evidence: RunEvidence) -> None:
    assert failure_class(evidence) == expected


def test_every_class_has_a_rule_that_gives_it() -> None:
    assert {expected for expected, _ in CASES} == set(FAILURE_CLASSES)


def test_a_run_that_never_started() -> None:
    unrunnable = "the test command `.venv/bin/python -m pytest` cannot run: not found (exit 127)"
    assert failure_class(None, unrunnable) == "environment"
    assert failure_class(None, "RuntimeError: boom") == "other"


@pytest.mark.parametrize(
    ("check", "expected"),
    [
        (FailedCheck("files_within_scope", "s"), "scope_drift"),
        (FailedCheck("signature_unchanged", "s"), "signature_break"),
        (FailedCheck("public_api_compatible", "s"), "signature_break"),
        (TIMED_OUT, "hang"),
        (FailedCheck("command_succeeds", "s", timed_out=True), "hang"),
        (REGRESSED, "regression"),
        (FailedCheck("tests_pass", "s"), "other"),  # the task's own test still red
        (FailedCheck("text_absent", "s"), "other"),
    ],
)
def test_what_a_failed_check_says(check: FailedCheck, expected: str) -> None:
    assert check_class(check) == expected


def test_caught_by_is_contract_modes_first_failed_check() -> None:
    first = FailedCheck("signature_unchanged", "a")
    assert caught_by(ev(mode="contract", failed_checks=[first, REGRESSED])) == "signature_unchanged"
    assert caught_by(ev("final_check_failed", mode="contract", final_passed=False)) == "final_check"
    assert caught_by(ev(mode="contract", final_passed=True)) is None
    assert caught_by(ev(mode="react", failed_checks=[first])) is None
    assert caught_by(None) is None
