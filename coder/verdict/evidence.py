"""A Verdict in words, made only at the end: the step check's evidence (trace, the planner's
account, the commit trailer), the final check (result.json `final_check`), the critic's view.
Nothing here decides anything; nothing downstream parses these words back."""

from __future__ import annotations

from coder.verdict.judge import SectionFailure, Verdict
from coder.verdict.run import TestRun
from contracts.result import FinalCheck
from summarizers.logs import compact_log
from summarizers.tokens import clip_chars

IDS_SHOWN = 8
ERROR_LINES = 3
ENVIRONMENT_HEAD = (
    "the sandbox's doing, not the change's (the test command hit a limit of the sandbox)"
)


def ids(found: list[str], limit: int = IDS_SHOWN) -> str:
    more = f" (+{len(found) - limit} more)" if len(found) > limit else ""
    return ", ".join(found[:limit]) + more


def exited_0(passed: int) -> str:
    """How a passing run ended, with how many tests it saw pass, so a pass says how much it
    covered; no timings, so a replay reads the same."""
    return f"exited 0 ({passed} tests passed)" if passed else "exited 0"


def step_head(verdict: Verdict) -> str:
    """The step check's evidence, first lines: what ran and why it passed or failed."""
    now = verdict.now
    shown = f"`{now.command}`"
    if now.timed_out:
        return f"{shown} timed out after {now.duration_s:.0f}s and was killed"
    head = f"{shown} exited {now.exit_code}" if now.red else f"{shown} {exited_0(now.passed)}"
    if verdict.incomplete:
        return (
            f"{head} and stopped early: {verdict.incomplete}; the tests after the stop never "
            "ran, so this run is no evidence that they pass"
        )
    lines = [head]
    if verdict.counted:
        lines[0] += (
            f": {len(verdict.counted)} failing test(s) count against the step: "
            f"{ids(verdict.counted)}"
        )
    if verdict.missing:
        lines.append(_missing_line(verdict))
    if verdict.not_run:
        lines.append(_not_run_line(verdict))
    if verdict.fewer:
        lines.append(_fewer_line(verdict))
    lines += _changed_lines(verdict)
    if (verdict.counted or verdict.missing or verdict.fewer) and verdict.already_failing:
        lines.append(
            f"already failing at the base the same way (not counted): {ids(verdict.already_failing)}"
        )
    if not (verdict.counted or verdict.missing or verdict.not_run or verdict.fewer):
        if verdict.no_pass:
            lines[0] += (
                ": no test passed, and every failing test was already failing at the base "
                f"({ids(verdict.already_failing)}); nothing here shows the step works"
            )
        elif verdict.section_failures:
            lines[0] += _section_words(verdict)
        elif now.red and verdict.already_failing:
            lines[0] += (
                ", but every failing test was already failing at the base, the same way: "
                f"{ids(verdict.already_failing)} ({now.passed} passed)"
            )
    lines += _base_red_lines(verdict)
    if verdict.removed:
        lines.append(f"removed on purpose (not counted): {ids(verdict.removed)}")
    lines += _flaky_lines(verdict) + _environment_lines(verdict) + _unread_lines(verdict)
    return "\n".join(lines)


def _flaky_lines(verdict: Verdict) -> list[str]:
    if not verdict.flaky:
        return []
    return [
        "flaky (failed, then passed when run again on a fresh checkout of the same tree; "
        f"not counted): {ids(verdict.flaky)}"
    ]


def _unread_lines(verdict: Verdict) -> list[str]:
    """Said when no runner coder reads printed the results: the exit status judged."""
    now = verdict.now
    if now.readers or now.outcomes or now.timed_out:
        return []
    said = "no test runner coder reads printed these results: judged by the exit status"
    if now.passed_count:
        said += f" and its counts line ({now.passed_count} passed)"
    return [said]


def final_detail(verdict: Verdict, reused: str = "") -> str:
    """The final check's first line(s)."""
    now = verdict.now
    if now.timed_out:
        return f"the test command timed out after {now.duration_s:.0f}s"
    if verdict.incomplete:
        return (
            f"exit {now.exit_code}, and the run was incomplete: {verdict.incomplete}; "
            f"the tests after the stop never ran{reused}"
        )
    parts = _counted_parts(verdict)
    if parts:
        lines = ["; ".join(parts) + reused, *_changed_lines(verdict)]
        if verdict.missing:
            lines.append(_missing_line(verdict))
        if verdict.fewer:
            lines.append(_fewer_line(verdict))
    elif not now.red:
        lines = [f"the test command {exited_0(now.passed)}{reused}"]
    elif verdict.section_failures:
        lines = [f"exit {now.exit_code}{_section_words(verdict)}{reused}"]
    elif verdict.already_failing:
        lines = [f"exit {now.exit_code}, but every failing test already failed at the base{reused}"]
    elif verdict.flaky:
        lines = [f"exit {now.exit_code}, and every failing test was flaky{reused}"]
    elif verdict.base_red_sections:
        lines = [f"exit {now.exit_code}, only from parts of the command red at the base{reused}"]
    elif verdict.base_exit == now.exit_code:
        lines = [f"exit {now.exit_code}, as at the base{reused}"]
    else:
        lines = [f"exit {now.exit_code} without naming a failing test{reused}"]
    lines += _base_red_lines(verdict)
    if verdict.removed:
        lines.append(f"removed on purpose (not counted): {ids(verdict.removed)}")
    lines += _flaky_lines(verdict)
    if verdict.passed and now.nothing_ran:
        lines.append("nothing was tested: the test command ran no test")
    lines += _environment_lines(verdict) + _unread_lines(verdict)
    return "\n".join(lines)


def final_check(verdict: Verdict, run: TestRun, reused: str = "") -> FinalCheck:
    """result.json's `final_check` for a verdict on the base's test command."""
    detail = final_detail(verdict, reused)
    result = run.result
    if not verdict.passed and not verdict.timed_out and result.output.strip():
        summary = compact_log(result.output, budget=800, exit_code=result.exit_code).text
        detail += f"\n{summary}"
    return FinalCheck(
        command=run.requested,
        passed=verdict.passed,
        new_failures=list(verdict.regressed) if not verdict.passed else [],
        detail=detail,
        timed_out=verdict.timed_out,
    )


def environmental(verdict: Verdict) -> bool:
    """The failure is the sandbox's doing: the revision should not tell the model to change
    correct code."""
    return (
        bool(verdict.environment)
        and not verdict.counted
        and not verdict.missing
        and not verdict.fewer
    )


def _counted_parts(verdict: Verdict) -> list[str]:
    parts = []
    regressed = [t for t in verdict.regressed if t in verdict.counted]
    others = [t for t in verdict.counted if t not in regressed and t not in verdict.changed_message]
    if regressed:
        parts.append(f"{len(regressed)} test(s) that passed at the base now fail")
    if others:
        parts.append(f"{len(others)} failing test(s) that did not fail at the base: {ids(others)}")
    if verdict.changed_message:
        parts.append(
            f"{len(verdict.changed_message)} test(s) failing at the base now fail differently"
        )
    if verdict.missing:
        parts.append(f"{len(verdict.missing)} test(s) that ran at the base did not run now")
    if verdict.fewer:
        parts.append(f"{verdict.fewer} test(s) fewer passed than at the base")
    return parts


def _missing_line(verdict: Verdict) -> str:
    return (
        f"{len(verdict.missing)} test(s) that ran at the base are now missing, skipped or "
        f"xfailed: {ids(verdict.missing)} (a test removed on purpose is named by a "
        "tests_removed invariant, or in final_answer's tests_removed)"
    )


def _not_run_line(verdict: Verdict) -> str:
    return (
        f"the named test(s) did not run: {ids(verdict.not_run)} (no test the run selected "
        "by that name ran, so nothing shows it passes; name a test as the runner or coder "
        "prints it)"
    )


def _fewer_line(verdict: Verdict) -> str:
    return (
        f"{verdict.now.passed} test(s) passed, {verdict.fewer} fewer than before the change, and "
        "its reporter names no passing test to say which: a test that ran before is missing "
        "(a test removed on purpose is named by a tests_removed invariant, or in "
        "final_answer's tests_removed)"
    )


def _changed_lines(verdict: Verdict) -> list[str]:
    return [
        f"{t} failed at the base, but differently (was: {clip_chars(was or '(no message)', 120)}; "
        f"now: {clip_chars(now or '(no message)', 120)})"
        for t, (was, now) in list(verdict.changed_message.items())[:3]
    ]


def _section_words(verdict: Verdict) -> str:
    first = verdict.section_failures[0]
    words = f": {_section_name(first)} failed without naming a failing test"
    if first.errors:
        words += ": " + " | ".join(clip_chars(e, 160) for e in first.errors[:ERROR_LINES])
    if verdict.base_exit == 0:
        words += " (it passed at the base)"
    more = len(verdict.section_failures) - 1
    if more:
        others = ", ".join(_section_name(s) for s in verdict.section_failures[1:4])
        words += f"; also failed: {others}"
    return words


def _section_name(section: SectionFailure) -> str:
    return f"`{section.name}`" if section.name else "the command"


def _base_red_lines(verdict: Verdict) -> list[str]:
    return [
        f"{_section_name(s)} was red at the base the same way (not counted)"
        for s in verdict.base_red_sections
    ]


def _environment_lines(verdict: Verdict) -> list[str]:
    if not verdict.environment:
        return []
    return [f"{ENVIRONMENT_HEAD}:", *(f"  - {e}" for e in verdict.environment[:5])]
