"""What a failed step's verification is told as: to the revision whole, to the step's next
attempt only as far as its plan still has those checks.

A revision may drop an invariant or change it into another kind; the retried step would
otherwise be shown the last failure of a check it no longer faces, and chase it. The account
keeps each check apart (its kind beside its text), so the attempt's view is a choice of
entries, never a parse of the text.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Protocol

from contracts.validation import CompiledStep
from summarizers.tokens import estimate_tokens

FAILURE_BUDGET = 1500
IMPLICIT_KINDS = frozenset({"files_within_scope", "files_changed", "change_size"})
"""Checks every step faces whatever its invariants: its scope, a change at all, its size."""


class CheckLike(Protocol):
    @property
    def kind(self) -> str: ...
    @property
    def status(self) -> str: ...
    @property
    def evidence(self) -> str: ...


@dataclass(frozen=True)
class CheckEntry:
    kind: str
    status: str
    evidence: str
    """As told: failure lines an earlier check already gave are said once."""


@dataclass(frozen=True)
class FailureAccount:
    step_id: str
    checks: tuple[CheckEntry, ...]
    attempt: str
    """What the failed attempt did (its summary and rolled-back change)."""

    def text(self) -> str:
        """The whole account: what the revision is told, and what state.json keeps."""
        return self._render(self.checks, left_out=0)

    def for_step(self, step: CompiledStep) -> str:
        """What the step's next attempt is told: the checks its plan still has (every step
        has the implicit ones), and the attempt."""
        kinds = IMPLICIT_KINDS | {invariant.kind for invariant in step.invariants}
        kept = tuple(c for c in self.checks if c.kind in kinds)
        return self._render(kept, left_out=len(self.checks) - len(kept))

    def _render(self, checks: tuple[CheckEntry, ...], left_out: int) -> str:
        lines = [f"Step {self.step_id} failed verification and was rolled back."]
        lines += [f"[{c.status}] {c.kind}: {c.evidence}" for c in checks]
        if left_out:
            lines.append(
                f"({left_out} check(s) of invariants the revised plan no longer has are left out)"
            )
        text = "\n".join(lines)
        while estimate_tokens(text) > FAILURE_BUDGET and len(lines) > 2:
            lines.pop()
            text = "\n".join(lines) + "\n(further checks omitted)"
        return f"{text[: FAILURE_BUDGET * 4]}\n\n{self.attempt}"


def failure_account(
    step_id: str,
    checks: Iterable[CheckLike],
    attempt: str,
    redact: Callable[[str], str] = lambda text: text,
) -> FailureAccount:
    """The failed checks' evidence first. One failure, one line: two checks that ran the same
    tests report the same failing ids, and a repeated line says nothing the first one did not."""
    said: set[str] = set()
    entries = tuple(
        CheckEntry(c.kind, c.status, redact(_unsaid(c.evidence, said)))
        for c in sorted(checks, key=lambda c: c.status != "failed")
    )
    return FailureAccount(step_id, entries, redact(attempt))


def _unsaid(evidence: str, said: set[str]) -> str:
    """`evidence` without the failure lines an earlier check's evidence already gave."""
    kept, repeated = [], 0
    for line in evidence.splitlines():
        if line.startswith(("FAILED ", "ERROR ")) and line in said:
            repeated += 1
            continue
        said.add(line)
        kept.append(line)
    if repeated:
        kept.append(f"({repeated} failure line(s) as listed above)")
    return "\n".join(kept)
