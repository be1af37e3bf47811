"""What `coder run --attempts N` keeps as its attempts end: each one's record and facts, said
in one line, and the proofs exchanged between the verified ones; when two of them agree, the
rest may stop (`EnoughAgree`, raised out of the executor's callback)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from coder.attempts.crossproofs import CrossProofs
from coder.attempts.facts import attempt_facts
from coder.attempts.job import label
from coder.attempts.own_proofs import with_own_proofs
from coder.attempts.selection import Attempted, Exchange, agreed
from coder.bench.jobs import Row
from coder.loop.state.trace import TraceWriter


class EnoughAgree(Exception):
    """Raised out of the executor's callback: two candidates agree, the rest may stop."""


@dataclass
class Watch:
    """What the executor's callback keeps as attempts end: their records, facts and the
    proofs exchanged between verified ones."""

    repo: Path
    run_dir: Path
    models: list[str]
    trace: TraceWriter
    say: Callable[[str], None]
    proofs: CrossProofs
    rows: list[Row] = field(default_factory=list)
    facts: dict[int, Attempted] = field(default_factory=dict)
    exchanges: dict[tuple[int, int], Exchange] = field(default_factory=dict)

    def facts_of(self, attempt: int) -> Attempted:
        if attempt not in self.facts:
            facts = attempt_facts(
                attempt, self.models[attempt - 1], self.run_dir / label(attempt), self.repo
            )
            self.facts[attempt] = with_own_proofs(facts, self.proofs)
            if self.facts[attempt].proof_note:
                self.trace.emit(
                    "own_proofs",
                    attempt=attempt,
                    proven=list(self.facts[attempt].proven),
                    note=self.facts[attempt].proof_note,
                )
        return self.facts[attempt]

    def done(self, row: Row) -> None:
        self.rows.append(row)
        attempt = int(row["attempt"])
        facts = self.facts_of(attempt)
        self.trace.emit(
            "attempt_finished",
            attempt=attempt,
            model=facts.model,
            status=facts.status,
            stop_reason=facts.stop_reason,
            tokens={"input": facts.tokens.input, "output": facts.tokens.output},
            wall_s=facts.wall_s,
            proven=list(facts.proven),
            run_dir=label(attempt),
            error=row.get("error") or row.get("usage"),
        )
        self.say(attempt_line(facts, row))
        ended = [self.facts[i] for i in sorted(self.facts)]
        for proving in ended:
            for other in ended:
                self.exchange(proving, other)
        pair = agreed(ended, self.exchanges)
        if pair is not None and len(ended) < len(self.models):
            self.trace.emit("attempts_agreed", attempts=list(pair))
            self.say(
                f"attempts {pair[0]} and {pair[1]} agree (each passes the other verified "
                "attempts' proven tests): the remaining attempts stop"
            )
            raise EnoughAgree

    def exchange(self, proving: Attempted, other: Attempted) -> None:
        key = (proving.attempt, other.attempt)
        if proving is other or key in self.exchanges or not (proving.verified and other.verified):
            return
        got = self.proofs.exchange(proving, other)
        self.exchanges[key] = got
        self.trace.emit(
            "cross_proof",
            proofs_of=proving.attempt,
            tree_of=other.attempt,
            passed=got.passed,
            total=got.total,
            failing=list(got.failing),
            note=got.note,
        )


def attempt_line(facts: Attempted, row: Row) -> str:
    said = f"attempt {facts.attempt} ({facts.model}): "
    if row.get("usage") or row.get("error"):
        return said + f"did not run: {row.get('usage') or row.get('error')}"
    tokens = facts.tokens.input + facts.tokens.output
    return (
        said
        + f"{facts.status} ({facts.stop_reason}), {tokens:,} tokens, {facts.wall_s:.1f} s"
        + (f", {len(facts.proven)} proven test(s)" if facts.proven else "")
    )
