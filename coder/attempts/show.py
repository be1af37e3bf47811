"""The candidates of a run of several attempts, for `coder show`: one row per attempt (its own
proven tests, how many of the others' passed on its tree), the winner marked, then why it won
(the trace's `selection` event).

Everything shown came from run files a model or a repository shaped, so each value goes
through `markup_safe`, and a damaged row is shown with `?` rather than dropped.
"""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.table import Table

from coder.display import markup_safe as m


def render_candidates(
    console: Console, result: dict[str, Any], events: list[dict[str, Any]]
) -> None:
    rows = [c for c in result.get("candidates") or [] if isinstance(c, dict)]
    if not rows:
        return
    table = Table(title="attempts", title_justify="left")
    for name in (
        "#",
        "model",
        "status",
        "tokens",
        "wall",
        "own proofs",
        "others' passed",
        "lines",
        "",
    ):
        table.add_column(name, overflow="fold")
    for row in rows:
        tokens = row.get("tokens")
        spent = (
            sum(v for v in tokens.values() if isinstance(v, int)) if isinstance(tokens, dict) else 0
        )
        wall = row.get("wall_s")
        table.add_row(
            m(row.get("attempt", "?")),
            m(row.get("model", "?")),
            f"{m(row.get('status', '?'))} ({m(row.get('stop_reason', '?'))})",
            f"{spent:,}",
            f"{wall:.1f}s" if isinstance(wall, int | float) else "?",
            m(row.get("proven", "?")),
            f"{m(row.get('proofs_passed', '?'))}/{m(row.get('proofs_total', '?'))}",
            m(row.get("changed_lines", "?")),
            "[green]selected[/]" if row.get("selected") else "",
        )
    console.print(table)
    selection: dict[str, Any] = next(
        (e for e in reversed(events) if e.get("type") == "selection"), {}
    )
    reasons = selection.get("reasons")
    for line in reasons if isinstance(reasons, list) else []:
        console.print(f"  {m(line)}", highlight=False)
