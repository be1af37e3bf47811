"""Why a bench run failed, sorted into classes from what the harness saw (coder/bench/evidence.py).

Every run that did not resolve gets one class; the first rule that applies wins, most telling
first: an environment that was never there explains everything after it; a run that never
got to the end says how it stopped; a check that failed says what it caught; a change that
passed every check and still failed acceptance is looked at once more for a broken signature
or a file outside its scope before it counts as one no check could see (`acceptance_only`).

`caught_by` says, for contract mode, which check stopped the run or rolled back a step, also
when a later attempt resolved it: what the contracts caught.
"""

from __future__ import annotations

from typing import Any

from coder.bench.evidence import FailedCheck, RunEvidence

FAILURE_CLASSES = (
    "acceptance_only",
    "regression",
    "signature_break",
    "scope_drift",
    "hang",
    "loop",
    "budget",
    "no_tool_call",
    "environment",
    "other",
)
BUDGET_STOPS = frozenset({"turn_budget", "token_budget", "timeout"})
SIGNATURE_KINDS = frozenset(
    {"signature_unchanged", "signature_compatible", "public_api_unchanged", "public_api_compatible"}
)
UNRUNNABLE = "the test command `"
"""How a run that could not start begins its one-line reason (coder/verdict/baseline.py)."""


def failure_class(evidence: RunEvidence | None, error: str | None = None) -> str:
    """The class of a run that did not resolve. `evidence` is None when the run never produced
    a result (`error` says why)."""
    if evidence is None:
        return "environment" if error and error.startswith(UNRUNNABLE) else "other"
    ev, reason = evidence, evidence.stop_reason
    if ev.missing_environment:
        return "environment"
    if reason == "model_error" and ev.ended_on_parse_errors:
        return "no_tool_call"
    if reason == "no_progress":
        return "loop"
    if reason in BUDGET_STOPS:
        if ev.refusals:
            return "loop"
        return "hang" if reason == "timeout" and ev.command_timeouts else "budget"
    if reason == "revisions_exhausted":
        return check_class(ev.failed_checks[-1]) if ev.failed_checks else "other"
    if reason == "final_check_failed":
        if ev.final_timed_out:
            return "hang"
        return "regression" if ev.new_failures else "other"
    if reason == "completed":
        if ev.breaking:
            return "signature_break"
        if ev.drifted:
            return "scope_drift"
        return "acceptance_only"
    return "other"


def check_class(check: FailedCheck) -> str:
    """What a failed step check says went wrong."""
    if check.kind == "files_within_scope":
        return "scope_drift"
    if check.kind in SIGNATURE_KINDS:
        return "signature_break"
    if check.timed_out:
        return "hang"
    return "regression" if check.regressed else "other"


def caught_by(evidence: RunEvidence | None) -> str | None:
    """Contract mode: the first check that failed (a step invariant, or the final check)."""
    if evidence is None or evidence.mode != "contract":
        return None
    if evidence.failed_checks:
        return evidence.failed_checks[0].kind
    if evidence.final_passed is False:
        return "final_check"
    return None


def judged(evidence: RunEvidence, resolved: bool) -> dict[str, Any]:
    """The row's failure class (runs that did not resolve), what contract mode caught (and
    each failed check's first line of evidence: why a step was rolled back), and what the run
    cost."""
    return {
        "failure_class": None if resolved else failure_class(evidence),
        "caught_by": caught_by(evidence),
        "failed_checks": [c.said() for c in evidence.failed_checks],
        "billed_input": evidence.billed_input,
        "model_s": evidence.model_s,
    }
