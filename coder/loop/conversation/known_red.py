"""What a conversation is told of the base: the tests red there and the parts of the test
command red there, in a step's briefing; and a model's `run` whose failures are all of those,
said in one line instead of their tracebacks.

A step's conversation is new: without this, a model that runs the suite sees tests fail that
failed before anyone touched the code, spends a turn working out they are not its doing, and
carries their tracebacks in every later request. The run is read with the harness's own reader
(`coder.verdict.run.read_run`), the baseline's facts from `coder.verdict.baseline`; this module is
the one place that reaches into either for the model's view.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from coder.verdict.judge import SectionFailure
from coder.verdict.run import read_run
from sandbox.confine import CommandResult

if TYPE_CHECKING:
    from coder.verdict.baseline import Baseline

SHOWN_IDS = 20
"""Ids a briefing or a one-line answer names; the count says how many there are."""


@dataclass(frozen=True)
class KnownRed:
    """The base's failures: failing test ids with their messages, and the parts of the
    command that failed without naming a test (a lint, a type check, a hook)."""

    command: str
    failing: dict[str, str]
    sections: tuple[SectionFailure, ...]

    def briefing(self) -> str:
        """The lines a step's briefing carries; "" when nothing was red at the base."""
        lines = []
        if self.failing:
            lines.append(
                f"Before any change, {_tests(len(self.failing))} already fail under "
                f"`{self.command}`: {_ids(sorted(self.failing))}. They are not this step's "
                "doing; a `run` whose failures are all of these says so in one line."
            )
        for part in self.sections:
            first = f": {part.errors[0]}" if part.errors else ""
            code = f" (exit {part.exit_code})" if part.exit_code is not None else ""
            lines.append(f"Before any change, `{part.name or self.command}` fails{code}{first}")
        return "\n".join(lines)

    def known(self, result: CommandResult) -> str | None:
        """One line when every failure of a finished command was already there at the base
        (the same tests failing the same way, the same parts red); None when anything else
        failed, nothing did, or the command timed out."""
        if result.timed_out or result.exit_code == 0:
            return None
        facts = read_run(result.command, result.command, result).facts()
        failing, sections = facts.failing, facts.section_failures
        if not failing and not sections:
            return None
        if any(not self._same(t, facts.messages.get(t, "")) for t in failing):
            return None
        if any(s not in self.sections for s in sections):
            return None
        said = []
        if failing:
            said.append(f"{_tests(len(failing))} failing ({_ids(failing)})")
        if sections:
            said.append(", ".join(f"`{s.name or self.command}`" for s in sections))
        return (
            f"Every failure here was already there before any change, the same way: "
            f"{' and '.join(said)}; not this change's doing, so their output is left out."
        )

    def _same(self, test: str, message: str) -> bool:
        if test not in self.failing:
            return False
        before = self.failing[test]
        return not before or not message or before == message


def known_red(base: Baseline | None) -> KnownRed | None:
    """The base's failures, or None when the baseline knows nothing per test, ran nothing,
    timed out, or passed."""
    if base is None or base.command is None or base.run is None or base.timed_out:
        return None
    facts = base.facts()
    if facts is None or facts.exit_code in (0, None):
        return None
    failing = {t: facts.messages.get(t, "") for t in facts.failing}
    if not failing and not facts.section_failures:
        return None
    return KnownRed(base.command, failing, tuple(facts.section_failures))


def _tests(n: int) -> str:
    return f"{n} test" if n == 1 else f"{n} tests"


def _ids(ids: list[str]) -> str:
    shown = ", ".join(ids[:SHOWN_IDS])
    return shown + (f" (+{len(ids) - SHOWN_IDS} more)" if len(ids) > SHOWN_IDS else "")
