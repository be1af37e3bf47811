"""Test runs the harness counts as evidence, and how one is judged against the baseline.

Every test command the harness runs for itself (the baseline, a `tests_pass` check, the final
check) goes through `run_tests`: the runner is asked to name every test with its outcome, stop
flags are taken out where that is safe, and a run that still stopped early says so. A run that
stopped early is never evidence that tests pass.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path

from coder.loop.stopflags import split_words, without_stop_flags
from sandbox.confine import CommandResult, Sandbox
from sandbox.pipestatus import with_pipeline_status
from summarizers.completeness import stopped_early
from summarizers.logs import failure_messages
from summarizers.outcomes import parse_outcomes
from summarizers.tokens import clip_chars

OUTCOME_ENV = {
    "PYTEST_ADDOPTS": "-rA -p no:cacheprovider --continue-on-collection-errors --maxfail=0"
}
"""Makes pytest list every test id with its outcome, whatever test command the repo uses, and
run every test even when a file fails to import or the repo's own config says `-x` (a later
`--maxfail` wins; `-x` on the command line itself is taken out by `without_stop_flags`)."""
FAILING = ("failed", "error")


@dataclass(frozen=True)
class TestRun:
    requested: str
    """The command as asked for (the repository's test command, or an invariant's)."""
    command: str
    """The command that ran: `requested` without the stop flags that could be taken out."""
    result: CommandResult
    outcomes: dict[str, str]
    incomplete: str | None = None
    """Why this run did not run every test it selected, or None."""
    removed: list[str] = field(default_factory=list)
    messages: dict[str, str] = field(default_factory=dict)
    """Failing id -> how it failed ("ExcType: message"), where the log says."""

    @property
    def failing(self) -> list[str]:
        return sorted(t for t, o in self.outcomes.items() if o in FAILING)

    @property
    def passed(self) -> int:
        return sum(1 for o in self.outcomes.values() if o == "passed")

    def note(self) -> str:
        """One line on what was run differently from what was asked, or ""."""
        if not self.removed:
            return ""
        return (
            f"ran without {', '.join(self.removed)}: a run that stops at the first failure "
            "is not evidence about the tests after it"
        )


def run_tests(sandbox: Sandbox, root: Path, command: str, timeout_s: float) -> TestRun:
    rewrite = without_stop_flags(command, root)
    result = sandbox.run(
        with_pipeline_status(rewrite.command), cwd=root, timeout_s=timeout_s, env=OUTCOME_ENV
    )
    result = replace(result, command=rewrite.command)
    incomplete = None
    if result.exit_code != 0 and not result.timed_out:
        incomplete = stopped_early(result.output)
        if incomplete is None and rewrite.kept:
            incomplete = (
                f"it stops at the first failure ({', '.join(rewrite.kept)}) and the flag "
                "could not be taken out of the command"
            )
    return TestRun(
        requested=command,
        command=rewrite.command,
        result=result,
        outcomes=parse_outcomes(result.output),
        incomplete=incomplete,
        removed=rewrite.removed,
        messages=failure_messages(result.output) if result.exit_code != 0 else {},
    )


@dataclass(frozen=True)
class Verdict:
    passed: bool
    head: str
    """The evidence's first line(s): what was run and why it passed or failed."""
    already_failing: list[str] = field(default_factory=list)
    """Failing now and already at the base, not named by the invariant: not counted."""
    counted: list[str] = field(default_factory=list)
    """Failing now and counted against the step."""


def named_by(paths: Iterable[str], command: str | None) -> set[str]:
    """The test ids an invariant names: paths that are test ids (`file.py::test`) and id
    arguments of its own command. Naming a file or directory names no test by id."""
    named = {p for p in paths if "::" in p}
    if command:
        named |= {w.text for w in split_words(command) or [] if "::" in w.text}
    return named


def is_named(test_id: str, named: set[str]) -> bool:
    """A node id names itself and what is inside it (a class names its methods)."""
    return any(test_id == n or test_id.startswith((f"{n}::", f"{n}[")) for n in named)


def judge(run: TestRun, base: Mapping[str, str] | None, named: set[str]) -> Verdict:
    """A run passes on exit 0, or when it ran to the end, at least one test passed, and every
    test failing in it failed the same way at the base (`base`: failing id -> how) without
    being named by id in the invariant."""
    shown = f"`{run.command}`"
    if run.result.timed_out:
        return Verdict(
            False, f"{shown} timed out after {run.result.duration_s:.0f}s and was killed"
        )
    if run.result.exit_code == 0:
        return Verdict(True, f"{shown} {exited_0(run)}")
    head = f"{shown} exited {run.result.exit_code}"
    if run.incomplete:
        return Verdict(
            False,
            f"{head} and stopped early: {run.incomplete}; the tests after the stop never ran, "
            "so this run is no evidence that they pass",
        )
    failing = run.failing
    if base is None or not failing:
        return Verdict(False, head, counted=failing)
    old = [t for t in failing if t in base and not is_named(t, named)]
    changed = [t for t in old if base[t] != run.messages.get(t, "")]
    old = [t for t in old if t not in changed]
    counted = [t for t in failing if t not in old]
    if counted:
        why = f"{head}: {len(counted)} failing test(s) count against the step: {_ids(counted)}"
        for t in changed[:3]:
            why += f"\n{t} failed at the base, but differently (was: {clip_chars(base[t], 120)})"
        if old:
            why += f"\nalready failing at the base the same way (not counted): {_ids(old)}"
        return Verdict(False, why, old, counted)
    if run.passed == 0:
        return Verdict(
            False,
            f"{head}: no test passed, and every failing test was already failing at the base "
            f"({_ids(old)}); nothing here shows the step works",
            old,
        )
    return Verdict(
        True,
        f"{head}, but every failing test was already failing at the base, the same way: "
        f"{_ids(old)} ({run.passed} passed)",
        old,
    )


def exited_0(run: TestRun) -> str:
    """How a passing run ended, with how many tests it saw pass ("exited 0 (476 tests
    passed)"), so a pass says how much it covered; no timings, so a replay reads the same."""
    return f"exited 0 ({run.passed} tests passed)" if run.passed else "exited 0"


def _ids(ids: list[str], limit: int = 8) -> str:
    more = f" (+{len(ids) - limit} more)" if len(ids) > limit else ""
    return ", ".join(ids[:limit]) + more
