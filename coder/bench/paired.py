"""Contract mode against each baseline on the same fixtures: who resolved what the other did not.

A paired comparison, because the fixtures differ far more from each other than the modes do:
only the discordant fixtures (one mode resolved, the other did not) carry information, and the
two-sided exact sign test says how surprising their split would be if the modes were equally
good. With fewer than MIN_DISCORDANT of them no split can reach p < 0.05, and the report says
that instead of a number that looks like evidence.
"""

from __future__ import annotations

from math import comb
from typing import Any

ALPHA = 0.05
REFERENCE = "contract"


def sign_test(wins: int, losses: int) -> float:
    """Two-sided exact sign test (binomial, p = 1/2, ties already dropped): the probability of
    a split at least as uneven as `wins` : `losses`."""
    n = wins + losses
    if n == 0:
        return 1.0
    tail = sum(comb(n, i) for i in range(min(wins, losses) + 1))
    return min(1.0, 2 * tail / 2**n)


def smallest_p(n: int) -> float:
    """The smallest p-value n discordant pairs can give (all n one way)."""
    return sign_test(n, 0)


MIN_DISCORDANT = next(n for n in range(1, 64) if smallest_p(n) < ALPHA)
"""6: with five discordant pairs even a 5 : 0 split has p = 0.0625."""


def paired(rows: list[dict[str, Any]], modes: tuple[str, ...]) -> dict[str, dict[str, Any]]:
    """For each baseline mode: fixtures only contract resolved, only the baseline resolved, how
    many both or neither did, and the sign test on the discordant ones."""
    if REFERENCE not in modes:
        return {}
    resolved = {(r["fixture"], r["mode"]): bool(r["resolved"]) for r in rows}
    out: dict[str, dict[str, Any]] = {}
    for mode in modes:
        if mode == REFERENCE:
            continue
        both_ran = sorted(f for f, m in resolved if m == mode and (f, REFERENCE) in resolved)
        ours = [f for f in both_ran if resolved[(f, REFERENCE)] and not resolved[(f, mode)]]
        theirs = [f for f in both_ran if resolved[(f, mode)] and not resolved[(f, REFERENCE)]]
        same = [f for f in both_ran if resolved[(f, mode)] == resolved[(f, REFERENCE)]]
        n = len(ours) + len(theirs)
        p = sign_test(len(ours), len(theirs))
        out[mode] = {
            "fixtures": len(both_ran),
            "only_contract": ours,
            "only_baseline": theirs,
            "both": sum(resolved[(f, mode)] for f in same),
            "neither": sum(not resolved[(f, mode)] for f in same),
            "discordant": n,
            "p_value": round(p, 4),
            "conclusive": n >= MIN_DISCORDANT and p < ALPHA,
            "verdict": verdict(len(ours), len(theirs), mode),
        }
    return out


def verdict(ours: int, theirs: int, mode: str) -> str:
    """One plain sentence on what the split does and does not show."""
    n = ours + theirs
    if n < MIN_DISCORDANT:
        return (
            f"{n} discordant fixture(s): too few to conclude anything; with fewer than "
            f"{MIN_DISCORDANT}, no split can reach p < {ALPHA}"
        )
    p = sign_test(ours, theirs)
    if p >= ALPHA:
        return f"no difference shown at p < {ALPHA} (p = {p:.3f})"
    better = REFERENCE if ours > theirs else mode
    return f"{better} resolved more of the same fixtures (p = {p:.3f})"


def paired_lines(result: dict[str, dict[str, Any]]) -> list[str]:
    """The comparison as the terminal prints it, under the per-mode table."""
    lines = []
    for mode, r in result.items():
        only_ours = ", ".join(r["only_contract"]) or "none"
        only_theirs = ", ".join(r["only_baseline"]) or "none"
        lines.append(
            f"contract vs {mode} on {r['fixtures']} fixtures: only contract resolved "
            f"{len(r['only_contract'])} ({only_ours}); only {mode} resolved "
            f"{len(r['only_baseline'])} ({only_theirs}); both {r['both']}, neither "
            f"{r['neither']}; sign test p = {r['p_value']:.3f}: {r['verdict']}"
        )
    return lines
