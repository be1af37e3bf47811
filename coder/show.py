"""`coder show`: a run directory rendered for a person reading it after the fact."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from rich.columns import Columns
from rich.console import Console
from rich.markup import escape
from rich.panel import Panel
from rich.table import Table

from coder.loop.trace import read_trace


def render_run(run_dir: Path, console: Console) -> None:
    result = _load_json(run_dir / "result.json")
    trace = run_dir / "trace.jsonl"
    events = [escape_markup(e) for e in read_trace(trace)] if trace.is_file() else []
    if result:
        color = "green" if result["status"] == "verified" else "red"
        console.print(
            f"[bold]{result['run_id']}[/] [{color}]{result['status']}[/] ({result['stop_reason']}) "
            f"· mode {result['mode']} · model {result['model']}",
            highlight=False,
        )
        console.print(f"task: {result['task']}", highlight=False)
        if result.get("message"):
            console.print(f"why: {result['message']}", highlight=False)
        if result.get("baseline"):
            console.print(_baseline(result["baseline"]), highlight=False)
    else:
        console.print(
            "[yellow]no result.json: the run did not finish writing; showing the trace[/]"
        )
    plans = sorted(run_dir.glob("plan.v*.json"), key=lambda p: int(p.stem.split(".v")[-1]))
    if plans:
        console.print(Columns([_plan_panel(p) for p in plans], equal=True, expand=True))
    _steps(console, events)
    if result:
        tokens = result["tokens"]
        console.print(
            f"turns {result['model_turns']} · tokens in {tokens['input']:,} out {tokens['output']:,} · "
            f"rollbacks {result['rollbacks']} · revisions {result['revisions']} · wall {result['wall_s']:.1f}s "
            f"(harness {result.get('harness_s', 0):.2f}s) · branch {result['branch']}",
            highlight=False,
        )


def _baseline(base: dict[str, Any]) -> str:
    failing = base.get("failing", [])
    ids = f": {', '.join(failing[:5])}" + (
        f" (+{len(failing) - 5} more)" if len(failing) > 5 else ""
    )
    return (
        f"baseline: `{base['command']}` exit {base['exit_code']} · {base['passed']} passed · "
        f"{len(failing)} already failing{ids if failing else ''}"
    )


def _plan_panel(path: Path) -> Panel:
    plan = _load_json(path) or {}
    lines = [f"[italic]{plan.get('goal', '')}[/]"]
    for step in plan.get("steps", []):
        deps = f" ← {', '.join(step.get('dependencies', []))}" if step.get("dependencies") else ""
        files = ", ".join(step.get("intendedModification", {}).get("files", []))
        lines.append(f"• [bold]{step.get('stepId')}[/]{deps}\n  files: {files}")
        for inv in step.get("intendedModification", {}).get("invariants", []):
            lines.append(f"  - {inv if isinstance(inv, str) else json.dumps(inv)}")
    return Panel("\n".join(lines), title=path.stem)


def _steps(console: Console, events: list[dict[str, Any]]) -> None:
    table = Table("step", "attempt", "check", "status", "evidence", show_lines=True, expand=True)
    attempt: dict[str, int] = {}
    for e in events:
        if e["type"] == "step_started":
            attempt[e["step"]] = e["attempt"]
        elif e["type"] == "verification":
            step = e.get("step") or "(final)"
            status = e["status"]
            style = {"passed": "green", "failed": "red"}.get(status, "yellow")
            table.add_row(
                step,
                str(attempt.get(step, "")),
                e["kind"],
                f"[{style}]{status}[/]",
                _clip(str(e.get("evidence", ""))),
            )
        elif e["type"] == "rollback":
            note = (
                "complete"
                if e["complete"]
                else f"incomplete: harness restored {e.get('restored_by_harness')}"
            )
            table.add_row(
                e["step"],
                str(attempt.get(e["step"], "")),
                "rollback",
                f"[yellow]to {e['to']}[/]",
                f"{note}; paths: {', '.join(e.get('paths', []))}",
            )
        elif e["type"] == "plan_rejected":
            table.add_row(
                "(plan)", "", "validation", "[red]rejected[/]", _clip("\n".join(e["problems"]))
            )
    if table.row_count:
        console.print(table)


def _clip(text: str, limit: int = 600) -> str:
    return text if len(text) <= limit else text[:limit] + " …"


def _load_json(path: Path) -> dict[str, Any] | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError):
        return None
    return escape_markup(data) if isinstance(data, dict) else None


def escape_markup(value: Any) -> Any:
    """Run text is data, never rich markup: a `[/]` in a model's message must print as is."""
    if isinstance(value, str):
        return escape(value)
    if isinstance(value, list):
        return [escape_markup(v) for v in value]
    if isinstance(value, dict):
        return {k: escape_markup(v) for k, v in value.items()}
    return value
