"""Verdict accuracy: when a run says it succeeded, is its change right; when its change is
right, did it say so?

Judged against what the bench knows independently of the run (a fixture's acceptance tests,
an instance's FAIL_TO_PASS/PASS_TO_PASS). A run that claims success and does not resolve
shipped broken; a run that does not claim success although its patch resolves is a **false
failure** (the user was told to throw away a right change). Per mode: precision (claimed
runs that resolve / claimed runs) and recall (claimed resolving runs / resolving runs), null
when there is nothing to divide by. A SWE-bench run that could not be evaluated here is
neither resolved nor unresolved and counts in none of them.
"""

from __future__ import annotations

from typing import Any


def judged_here(row: dict[str, Any]) -> bool:
    """Whether the bench could tell if this run's patch resolves (not an unevaluated instance,
    not a job that never ran)."""
    if row.get("error"):
        return False
    return row.get("evaluation", {}).get("status") != "not_evaluated"


def mark_false_failures(rows: list[dict[str, Any]]) -> None:
    """Each row gets `false_failure`: not claimed, yet its patch resolves."""
    for row in rows:
        row["false_failure"] = bool(
            judged_here(row) and row["resolved"] and not row["claimed_success"]
        )


def accuracy(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """`false_failures`, `precision` and `recall` of one mode's runs."""
    judged = [r for r in rows if judged_here(r)]
    claimed = [r for r in judged if r["claimed_success"]]
    resolving = [r for r in judged if r["resolved"]]
    both = sum(1 for r in claimed if r["resolved"])
    return {
        "false_failures": sum(1 for r in judged if r["resolved"] and not r["claimed_success"]),
        "precision": round(both / len(claimed), 3) if claimed else None,
        "recall": round(both / len(resolving), 3) if resolving else None,
    }
