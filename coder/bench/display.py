"""The bench report as a person reads it at 80 columns: a summary per mode and a fixture ×
mode grid of marks. The full runs table (`--runs`) and the JSON carry everything else.

Nothing is cut to an ellipsis: a long fixture or mode name (a peer's `model_name_or_path`)
folds onto the next line of its cell whole.
"""

from __future__ import annotations

from typing import Any

from rich import box
from rich.table import Table

from coder.bench.verdicts import judged_here
from coder.display import markup_safe

MARKS = {
    "right": ("✓", "green", "resolved, and the run said so"),
    "false_failure": ("✓?", "yellow", "resolved, but the run said it failed (false failure)"),
    "broken": ("✗!", "red", "the run said it succeeded, but it does not resolve (shipped broken)"),
    "failed": ("✗", "default", "not resolved, and the run said so"),
    "unjudged": ("?", "default", "not evaluated here, or the job did not run"),
}


def mark(row: dict[str, Any]) -> str:
    """The grid's mark for one run: which of the five verdict cases it is."""
    if not judged_here(row):
        return "unjudged"
    if row["resolved"]:
        return "right" if row["claimed_success"] else "false_failure"
    return "broken" if row["claimed_success"] else "failed"


def _ratio(value: float | None) -> str:
    return "—" if value is None else f"{value:.0%}"


FIT = 80
"""The summary keeps to this many columns (a longer mode name folds within its cell)."""
SUMMARY_COLUMNS = (
    "resolved",
    "shipped broken",
    "false failures",
    "precision",
    "recall",
    "mean tokens",
    "mean time",
)


def summary_view(summary: dict[str, Any]) -> Table:
    """Per mode: resolved, shipped broken, false failures, precision/recall, tokens, time.

    Each column is exactly as wide as its longest word or figure (headers wrap between their
    words), so the table keeps to about 75 columns and nothing in it is ever cut."""
    rows = [
        [
            f"{s['resolved']}/{s['runs']}",
            str(s["shipped_broken"]),
            str(s["false_failures"]),
            _ratio(s["precision"]),
            _ratio(s["recall"]),
            f"{s['mean_tokens']:,.0f}",
            f"{s['mean_wall_s']:.1f}s",
        ]
        for s in summary.values()
    ]
    table = Table(
        title="coder bench: per mode",
        title_justify="left",
        box=box.SIMPLE_HEAD,
        padding=(0, 0, 0, 1),
    )
    widths = [
        max([len(word) for word in name.split()] + [len(r[index]) for r in rows])
        for index, name in enumerate(SUMMARY_COLUMNS)
    ]
    room = FIT - sum(widths) - 3 * len(widths) - 3  # padding, separators, edges
    table.add_column("mode", overflow="fold", width=max(8, min(_longest(summary), room)))
    for name, width in zip(SUMMARY_COLUMNS, widths, strict=True):
        table.add_column(name, justify="right", width=width)
    colours = {1: "red", 2: "yellow"}  # shipped broken, false failures: when not zero
    for mode, cells in zip(summary, rows, strict=True):
        shown = [
            f"[{colours[i]}]{cell}[/]" if i in colours and cell != "0" else cell
            for i, cell in enumerate(cells)
        ]
        table.add_row(markup_safe(mode), *shown)
    return table


def cost_view(summary: dict[str, Any]) -> Table:
    """Per mode, coder's and a peer's alike: resolved, mean model calls, mean input tokens
    (a peer's own figures, from its predictions; "—" when it gave none)."""
    table = Table(
        title="coder bench: model calls and input tokens per mode",
        title_justify="left",
        box=box.SIMPLE_HEAD,
    )
    table.add_column("mode", overflow="fold")
    for name in ("resolved", "mean model calls", "mean input tokens"):
        table.add_column(name, justify="right")
    for mode, s in summary.items():
        calls, tokens = s.get("mean_model_calls"), s.get("mean_input_tokens")
        table.add_row(
            markup_safe(mode),
            f"{s['resolved']}/{s['runs']}",
            "—" if calls is None else f"{calls:,.1f}",
            "—" if tokens is None else f"{tokens:,.0f}",
        )
    return table


def grid(rows: list[dict[str, Any]], modes: tuple[str, ...]) -> Table:
    """Fixture (or instance) × mode: one mark per run."""
    names = list(dict.fromkeys(r["fixture"] for r in rows))
    cells = {(r["fixture"], r["mode"]): mark(r) for r in rows}
    table = Table(title="coder bench: each run", title_justify="left", box=box.SIMPLE_HEAD)
    table.add_column("fixture", overflow="fold", min_width=min(max(map(len, names or [""])), 28))
    for mode in modes:
        table.add_column(markup_safe(mode), justify="center", overflow="fold")
    for name in names:
        marks = []
        for mode in modes:
            case = cells.get((name, mode))
            if case is None:
                marks.append("")
                continue
            symbol, colour, _ = MARKS[case]
            marks.append(f"[{colour}]{symbol}[/]")
        table.add_row(markup_safe(name), *marks)
    return table


def legend() -> str:
    return "  ".join(f"{symbol} {words}" for symbol, _, words in MARKS.values())


def _longest(summary: dict[str, Any]) -> int:
    return max((len(mode) for mode in summary), default=4)
