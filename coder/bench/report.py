"""The bench report: one row per fixture × mode, one summary per mode, as a table and as JSON."""

from __future__ import annotations

from statistics import mean
from typing import Any

from rich.table import Table

from coder.display import markup_safe


def summarize(rows: list[dict[str, Any]], modes: tuple[str, ...]) -> dict[str, Any]:
    summary: dict[str, Any] = {}
    for mode in modes:
        mine = [r for r in rows if r["mode"] == mode]
        if not mine:
            continue
        resolved = sum(r["resolved"] for r in mine)
        summary[mode] = {
            "runs": len(mine),
            "resolved": resolved,
            "resolve_rate": round(resolved / len(mine), 3),
            "shipped_broken": sum(r["shipped_broken"] for r in mine),
            "claimed_success": sum(r["claimed_success"] for r in mine),
            "mean_tokens": round(
                mean(r["tokens"]["input"] + r["tokens"]["output"] for r in mine), 1
            ),
            "mean_harness_s": round(mean(r["harness_s"] for r in mine), 3),
            "mean_wall_s": round(mean(r["wall_s"] for r in mine), 3),
        }
        if any("evaluation" in r or "model_patch" in r for r in mine):
            summary[mode]["not_evaluated"] = sum(_not_evaluated(r) for r in mine)
            summary[mode]["errors"] = sum(bool(r.get("error")) for r in mine)
    return summary


def outcome(row: dict[str, Any]) -> str:
    """One word or two for the progress line."""
    if row["shipped_broken"]:
        return "shipped broken"
    if row["resolved"]:
        return "resolved"
    if _not_evaluated(row):
        return "not evaluated"
    return str(row["stop_reason"])


def runs_table(rows: list[dict[str, Any]]) -> Table:
    table = Table(title="coder bench: runs", title_justify="left")
    for column in (
        "fixture",
        "mode",
        "resolved",
        "claimed",
        "shipped broken",
        "stop reason",
        "steps",
        "rollbacks",
        "revisions",
        "turns",
        "tokens",
        "wall s",
    ):
        table.add_column(
            column,
            justify="right"
            if column in ("steps", "rollbacks", "revisions", "turns", "tokens", "wall s")
            else "left",
        )
    for r in rows:
        table.add_row(
            markup_safe(r["fixture"]),
            markup_safe(r["mode"]),
            "not evaluated" if _not_evaluated(r) else _yes(r["resolved"]),
            _yes(r["claimed_success"]),
            "[red]YES[/]" if r["shipped_broken"] else "no",
            markup_safe(r["stop_reason"]),
            str(r["steps"]),
            str(r["rollbacks"]),
            str(r["revisions"]),
            str(r["turns"]),
            f"{r['tokens']['input'] + r['tokens']['output']:,}",
            f"{r['wall_s']:.1f}",
        )
    return table


def summary_table(summary: dict[str, Any]) -> Table:
    table = Table(title="coder bench: per mode", title_justify="left")
    for column in (
        "mode",
        "runs",
        "resolved",
        "resolve rate",
        "claimed",
        "shipped broken",
        "mean tokens",
        "mean harness s",
    ):
        table.add_column(column, justify="left" if column == "mode" else "right")
    for mode, s in summary.items():
        table.add_row(
            markup_safe(mode),
            str(s["runs"]),
            str(s["resolved"]),
            f"{s['resolve_rate']:.0%}",
            str(s["claimed_success"]),
            str(s["shipped_broken"]),
            f"{s['mean_tokens']:,.0f}",
            f"{s['mean_harness_s']:.2f}",
        )
    return table


def _not_evaluated(row: dict[str, Any]) -> bool:
    """A SWE-bench run whose tests could not run here: neither resolved nor unresolved."""
    return bool(row.get("evaluation", {}).get("status") == "not_evaluated")


def _yes(value: bool) -> str:
    return "[green]yes[/]" if value else "no"
