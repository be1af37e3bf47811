"""The bench report: one row per fixture × mode, one summary per mode, as a table and as JSON."""

from __future__ import annotations

from collections import Counter
from statistics import mean
from typing import Any

from rich.table import Table

from coder.bench.classes import FAILURE_CLASSES
from coder.bench.verdicts import accuracy, mark_false_failures
from coder.display import markup_safe

TIME_PARTS = (
    "setup_s",
    "baseline_s",
    "model_s",
    "tool_commands_s",
    "verification_s",
    "final_check_s",
    "harness_s",
)


def checks_s(timing: dict[str, float]) -> float:
    """Seconds of the harness's own test runs: the baseline, step verification, final check."""
    return timing["baseline_s"] + timing["verification_s"] + timing["final_check_s"]


def summarize(rows: list[dict[str, Any]], modes: tuple[str, ...]) -> dict[str, Any]:
    """Per mode: what was resolved, claimed, shipped broken and falsely failed, and the cost.
    Marks each row's `false_failure` on the way."""
    mark_false_failures(rows)
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
            **accuracy(mine),
            "mean_tokens": round(
                mean(r["tokens"]["input"] + r["tokens"]["output"] for r in mine), 1
            ),
            "mean_model_calls": _mean_of(model_calls(r) for r in mine),
            "mean_input_tokens": _mean_of(input_tokens(r) for r in mine),
            "mean_billed_input": _mean_of(billed_in(r) for r in mine),
            "mean_harness_s": round(mean(r["harness_s"] for r in mine), 3),
            "mean_wall_s": round(mean(r["wall_s"] for r in mine), 3),
            "mean_timing": {
                part: round(mean(r["timing"][part] for r in mine), 3) for part in TIME_PARTS
            },
            "cost_per_resolved": cost_per_resolved(mine),
            "failure_classes": dict(
                Counter(r["failure_class"] for r in mine if r["failure_class"])
            ),
        }
        if mode == "contract":
            summary[mode]["caught_by"] = dict(
                Counter(r["caught_by"] for r in mine if r["caught_by"])
            )
        if any("evaluation" in r or "model_patch" in r for r in mine):
            summary[mode]["not_evaluated"] = sum(_not_evaluated(r) for r in mine)
            summary[mode]["errors"] = sum(bool(r.get("error")) for r in mine)
    return summary


def model_calls(row: dict[str, Any]) -> int | None:
    """A run's model calls: coder's turns, or what a peer's prediction said (None: nothing)."""
    return row.get("model_calls") if row.get("peer") else row["turns"]


def input_tokens(row: dict[str, Any]) -> int | None:
    return row.get("input_tokens") if row.get("peer") else row["tokens"]["input"]


def billed_in(row: dict[str, Any]) -> float | None:
    """A run's input as billed: cache reads and writes at their price, where the provider
    reported them (result.json `tokens.billed_input`); otherwise its raw input, since
    nothing was read from a cache."""
    billed = row.get("tokens", {}).get("billed_input")
    return float(billed) if billed is not None else input_tokens(row)


def _mean_of(values: Any) -> float | None:
    known = [v for v in values if v is not None]
    return round(mean(known), 1) if known else None


def cost_per_resolved(rows: list[dict[str, Any]]) -> dict[str, float] | None:
    """What a mode spent, over all its runs, per task it resolved: billed input (cache reads
    and writes at their price: coder/models/pricing.py), output tokens, model seconds. None
    when it resolved none."""
    resolved = sum(r["resolved"] for r in rows)
    if not resolved:
        return None
    return {
        "billed_input": round(sum(billed_in(r) or 0.0 for r in rows) / resolved, 1),
        "output_tokens": round(sum(r["tokens"]["output"] for r in rows) / resolved, 1),
        "model_s": round(sum(r["model_s"] for r in rows) / resolved, 3),
    }


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
    """Every run, every figure (`--runs`): long names fold whole onto a next line."""
    table = Table(title="coder bench: runs", title_justify="left")
    longest = max((len(r["fixture"]) for r in rows), default=7)
    for column in (
        "fixture",
        "mode",
        "resolved",
        "claimed",
        "shipped broken",
        "false failure",
        "stop reason",
        "steps",
        "rollbacks",
        "revisions",
        "turns",
        *RUN_TOKEN_COLUMNS,
        *RUN_TIME_COLUMNS,
        "failure class",
    ):
        table.add_column(
            column,
            justify="right"
            if column
            in ("steps", "rollbacks", "revisions", "turns", *RUN_TOKEN_COLUMNS, *RUN_TIME_COLUMNS)
            else "left",
            overflow="fold",
            min_width=min(longest, 24) if column == "fixture" else None,
        )
    for r in rows:
        table.add_row(
            markup_safe(r["fixture"]),
            markup_safe(r["mode"]),
            "not evaluated" if _not_evaluated(r) else _yes(r["resolved"]),
            _yes(r["claimed_success"]),
            "[red]YES[/]" if r["shipped_broken"] else "no",
            "[yellow]YES[/]" if r.get("false_failure") else "no",
            markup_safe(r["stop_reason"]),
            str(r["steps"]),
            str(r["rollbacks"]),
            str(r["revisions"]),
            str(r["turns"]),
            f"{r['tokens']['input']:,}",
            _tokens(billed_in(r)),
            f"{r['tokens']['output']:,}",
            *_time_cells(r["wall_s"], r["timing"]),
            _class_cell(r),
        )
    return table


def summary_table(summary: dict[str, Any]) -> Table:
    table = Table(title="coder bench: per mode", title_justify="left")
    for column in (
        "mode",
        "runs",
        "resolved",
        "resolve rate",
        *COST_COLUMNS,
        "claimed",
        "shipped broken",
        "mean tokens",
        "mean in",
        "mean billed in",
        *(f"mean {c}" for c in MODE_TIME_COLUMNS),
    ):
        table.add_column(column, justify="left" if column == "mode" else "right", overflow="fold")
    for mode, s in summary.items():
        table.add_row(
            markup_safe(mode),
            str(s["runs"]),
            str(s["resolved"]),
            f"{s['resolve_rate']:.0%}",
            *_cost_cells(s["cost_per_resolved"]),
            str(s["claimed_success"]),
            str(s["shipped_broken"]),
            f"{s['mean_tokens']:,.0f}",
            _tokens(s["mean_input_tokens"]),
            _tokens(s["mean_billed_input"]),
            *_time_cells(s["mean_wall_s"], s["mean_timing"], every=True),
        )
    return table


RUN_TOKEN_COLUMNS = ("tokens in", "billed in", "out")
"""Raw input (every prompt token), input as billed (cache reads and writes at their price),
output."""
RUN_TIME_COLUMNS = ("wall s", "model s", "checks s", "harness s")
"""checks: the baseline, step verification and final check commands; harness: the harness's
own work after setup. The per-mode table adds the model's `run` commands and setup."""
MODE_TIME_COLUMNS = ("wall s", "model s", "checks s", "run s", "setup s", "harness s")


def _time_cells(wall: float, timing: dict[str, float], *, every: bool = False) -> list[str]:
    cells = [f"{wall:.1f}", f"{timing['model_s']:.1f}", f"{checks_s(timing):.1f}"]
    if every:
        cells += [f"{timing['tool_commands_s']:.1f}", f"{timing['setup_s']:.2f}"]
    return [*cells, f"{timing['harness_s']:.2f}"]


COST_COLUMNS = ("billed in / resolved", "out / resolved", "model s / resolved")


def _tokens(value: float | None) -> str:
    return "—" if value is None else f"{value:,.0f}"


def _cost_cells(cost: dict[str, float] | None) -> list[str]:
    if cost is None:
        return ["—"] * len(COST_COLUMNS)
    return [
        f"{cost['billed_input']:,.0f}",
        f"{cost['output_tokens']:,.0f}",
        f"{cost['model_s']:.1f}",
    ]


def _class_cell(row: dict[str, Any]) -> str:
    cells = [row["failure_class"]] if row["failure_class"] else []
    if row["caught_by"]:
        cells.append(f"caught by {row['caught_by']}")
    return markup_safe("; ".join(cells))


def classes_table(rows: list[dict[str, Any]], modes: tuple[str, ...]) -> Table:
    """Failure classes × modes: how many runs of each mode failed for each reason; and, for
    contract mode, how many runs each check caught (rolled back or stopped)."""
    table = Table(title="coder bench: why runs failed", title_justify="left")
    table.add_column("failure class")
    for mode in modes:
        table.add_column(markup_safe(mode), justify="right")
    counts = Counter((r["failure_class"], r["mode"]) for r in rows if r["failure_class"])
    for name in FAILURE_CLASSES:
        if any(counts[(name, m)] for m in modes):
            table.add_row(name, *(str(counts[(name, m)] or "·") for m in modes))
    failed = Counter(r["mode"] for r in rows if r["failure_class"])
    table.add_row("[bold]all failed[/]", *(str(failed[m]) for m in modes))
    caught = Counter(r["caught_by"] for r in rows if r["caught_by"])
    if "contract" in modes:
        for kind, n in sorted(caught.items()):
            cells = [str(n) if m == "contract" else "" for m in modes]
            table.add_row(markup_safe(f"contract caught: {kind}"), *cells)
    return table


def _not_evaluated(row: dict[str, Any]) -> bool:
    """A SWE-bench run whose tests could not run here: neither resolved nor unresolved."""
    return bool(row.get("evaluation", {}).get("status") == "not_evaluated")


def _yes(value: bool) -> str:
    return "[green]yes[/]" if value else "no"
