"""Choosing among attempts by what the verifier measured: a pure function of the attempts'
facts and of the exchange of their proofs, tested without git, a sandbox or a model.

A verified candidate is scored by the other verified candidates' proven regression tests run
on its tree: one that breaks another's proof is suspect (a test proven to catch the bug fails
on its fix), one that passes them all agrees with them. Fewer broken proofs wins; then no
weakened check (a test removed on purpose, an invariant kept only as advice); then the smaller
change; then the earlier attempt. With no verified attempt nothing is selected, and the
attempt that came closest (most verified steps, then fewest new failures in the final check)
is named.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from contracts.result import Candidate, Tokens


@dataclass(frozen=True)
class Attempted:
    """What one attempt left behind, read from its run directory (`coder.attempts.facts`)."""

    attempt: int
    model: str
    status: str
    """verified | failed | stopped | not_run"""
    stop_reason: str
    tokens: Tokens = field(default_factory=Tokens)
    wall_s: float = 0.0
    changed_lines: int = 0
    proven: tuple[str, ...] = ()
    """The test ids its verified steps' `tests_fail_before` proved; for a candidate whose run
    proved none (react, reflect), the tests it added or changed that fail on the base and pass
    on its tree (`coder.attempts.own_proofs`)."""
    proof_note: str = ""
    """Where its proofs came from, when they are not its steps' (or why it has none), one line."""
    base_commit: str | None = None
    weakened: tuple[str, ...] = ()
    """Checks it weakened, one phrase each ("removed tests/test_x.py::test_y on purpose")."""
    final_commit: str | None = None
    verified_steps: int = 0
    final_failures: int | None = None
    """New failures the final check found; None when it did not run."""
    message: str = ""
    turns: int = 0
    """Model calls it made."""

    @property
    def verified(self) -> bool:
        return self.status == "verified"


@dataclass(frozen=True)
class Exchange:
    """One candidate's proven tests run on another candidate's tree."""

    passed: int
    total: int
    failing: tuple[str, ...] = ()
    """The proven tests that did not pass there."""
    note: str = ""
    """Why they could not be run, when they could not (then they count neither way)."""
    breaks: int = 0
    """Added up for one tree: how many other candidates' proofs fail on it. A candidate that
    adds many cases to a parameterized test proves many ids; it is one candidate."""


Exchanges = Mapping[tuple[int, int], Exchange]
"""(the attempt whose proofs ran, the attempt whose tree they ran on) -> how they did."""


@dataclass(frozen=True)
class Selection:
    selected: int | None
    """The winning attempt; None when no attempt verified."""
    closest: int | None
    """With none verified: the attempt that came closest."""
    candidates: list[Candidate]
    reasons: list[str]
    """Why the winner won (or why nothing was selected), one line each, for `coder show`."""


def received(attempt: int, verified: Sequence[Attempted], exchanges: Exchanges) -> Exchange:
    """The other verified candidates' proofs, run on `attempt`'s tree, added up."""
    passed = total = breaks = 0
    failing: list[str] = []
    notes: list[str] = []
    for other in verified:
        if other.attempt == attempt:
            continue
        got = exchanges.get((other.attempt, attempt))
        if got is None:
            continue
        if got.note:
            notes.append(f"attempt {other.attempt}'s proofs could not run on it: {got.note}")
            continue
        passed, total = passed + got.passed, total + got.total
        failing += got.failing
        breaks += bool(got.failing)
    return Exchange(passed, total, tuple(failing), "; ".join(notes), breaks)


def _rank(attempted: Attempted, got: Exchange) -> tuple[int, float, int, int, int]:
    return (
        got.breaks,
        (got.total - got.passed) / got.total if got.total else 0.0,
        len(attempted.weakened),
        attempted.changed_lines,
        attempted.attempt,
    )


def select(attempts: Sequence[Attempted], exchanges: Exchanges) -> Selection:
    verified = [a for a in attempts if a.verified]
    scores = {a.attempt: received(a.attempt, verified, exchanges) for a in verified}
    ranked = sorted(verified, key=lambda a: _rank(a, scores[a.attempt]))
    winner = ranked[0].attempt if ranked else None
    closest = None if ranked else _closest(attempts)
    candidates = [
        Candidate(
            attempt=a.attempt,
            model=a.model,
            status=a.status,  # type: ignore[arg-type]
            stop_reason=a.stop_reason,
            tokens=a.tokens,
            wall_s=a.wall_s,
            proofs_passed=scores[a.attempt].passed if a.attempt in scores else 0,
            proofs_total=scores[a.attempt].total if a.attempt in scores else 0,
            changed_lines=a.changed_lines,
            proven=len(a.proven) if a.verified else 0,
            selected=a.attempt == winner,
        )
        for a in attempts
    ]
    if winner is None:
        return Selection(None, closest, candidates, _none_verified(attempts, closest))
    return Selection(winner, None, candidates, _why(ranked, scores))


def _closest(attempts: Sequence[Attempted]) -> int | None:
    ran = [a for a in attempts if a.status != "not_run"]
    if not ran:
        return None

    def distance(a: Attempted) -> tuple[int, int, int]:
        failures = a.final_failures if a.final_failures is not None else 1 << 30
        return (-a.verified_steps, failures, a.attempt)

    return min(ran, key=distance).attempt


def _none_verified(attempts: Sequence[Attempted], closest: int | None) -> list[str]:
    if closest is None:
        return ["no attempt ran"]
    near = next(a for a in attempts if a.attempt == closest)
    how = f"{near.verified_steps} step(s) verified"
    if near.final_failures is not None:
        how += f", {near.final_failures} new failure(s) in the final check"
    said = f": {near.message}" if near.message else ""
    return [
        "no attempt verified, so none is selected",
        f"attempt {closest} came closest ({how}; {near.stop_reason}){said}",
    ]


SHOWN = 5
"""Failing ids named per candidate in the reasons; the rest are counted."""


def _why(ranked: list[Attempted], scores: Mapping[int, Exchange]) -> list[str]:
    """One line per verified candidate on the proofs, then the line that decided."""
    lines = [a.proof_note for a in ranked if a.proof_note]
    for a in ranked:
        got = scores[a.attempt]
        if got.note:
            lines.append(got.note)
        if got.total == 0:
            lines.append(f"attempt {a.attempt}: no other candidate's proven test ran on it")
            continue
        line = f"attempt {a.attempt} passes {got.passed}/{got.total} of the others' proven tests"
        if got.failing:
            more = f" (+{len(got.failing) - SHOWN} more)" if len(got.failing) > SHOWN else ""
            line += f"; fails {', '.join(got.failing[:SHOWN])}{more}"
        lines.append(line)
    winner = ranked[0]
    if len(ranked) == 1:
        lines.append(f"attempt {winner.attempt} won: the only verified attempt")
        return lines
    runner_up = ranked[1]
    w, r = scores[winner.attempt], scores[runner_up.attempt]
    if w.breaks != r.breaks:
        decided = (
            f"it breaks fewer other candidates' proofs ({w.breaks} against {r.breaks} "
            f"for attempt {runner_up.attempt})"
        )
    elif _rank(winner, w)[1] != _rank(runner_up, r)[1]:
        decided = (
            f"it fails a smaller share of the others' proven tests ({w.total - w.passed}/"
            f"{w.total} against {r.total - r.passed}/{r.total} for attempt {runner_up.attempt})"
        )
    elif len(winner.weakened) != len(runner_up.weakened):
        decided = (
            f"it weakens no check, and attempt {runner_up.attempt} {'; '.join(runner_up.weakened)}"
        )
    elif winner.changed_lines != runner_up.changed_lines:
        decided = (
            f"the proofs tie and its change is smaller ({winner.changed_lines} changed lines "
            f"against {runner_up.changed_lines} for attempt {runner_up.attempt})"
        )
    else:
        decided = f"it ties with attempt {runner_up.attempt} on every measure and came first"
    lines.append(f"attempt {winner.attempt} won: {decided}")
    return lines


def agreed(attempts: Sequence[Attempted], exchanges: Exchanges) -> tuple[int, int] | None:
    """Two verified candidates that each pass every other verified candidate's proven tests,
    having run at least one of each other's: enough agree, and the rest can stop. The pair,
    or None."""
    verified = [a for a in attempts if a.verified]
    clean = [
        a.attempt
        for a in verified
        if (got := received(a.attempt, verified, exchanges)).passed == got.total
        and all((o.attempt, a.attempt) in exchanges for o in verified if o is not a)
    ]
    for i, first in enumerate(clean):
        for second in clean[i + 1 :]:
            swapped = exchanges[(first, second)].total + exchanges[(second, first)].total
            if swapped > 0:
                return (first, second)
    return None
