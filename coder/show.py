"""`coder show`: a run directory rendered for a person reading it after the fact.

A run directory may be damaged (a crash mid-write, a file edited by hand, bytes that are not
UTF-8): everything that can be read is shown, and what could not be is said in one line each,
never as a traceback. Every value came from a model or a repository, so each one goes through
`markup_safe` where it is placed into markup, and nothing is escaped twice.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from rich.columns import Columns
from rich.console import Console
from rich.panel import Panel
from rich.table import Table

from coder.attempts.show import render_candidates
from coder.display import markup_lines
from coder.display import markup_safe as m
from coder.loop.state.trace import read_trace


def render_run(
    run_dir: Path, console: Console, *, diff: bool = False, transcript: bool = False
) -> None:
    """The run for a person; `transcript` adds the conversation, `diff` the whole change."""
    from coder.transcript import print_diff, print_transcript

    problems: list[str] = []
    result = _load_json(run_dir / "result.json", problems)
    trace = run_dir / "trace.jsonl"
    events = read_trace(trace) if trace.is_file() else []
    if result is not None:
        _headline(console, result, problems)
    elif any(e.get("type") == "run_started" and e.get("session") == "plan" for e in events):
        finished: dict[str, Any] = next(
            (e for e in reversed(events) if e.get("type") == "run_finished"), {}
        )
        console.print(
            f"[bold]coder plan[/] session, {m(finished.get('status', '?'))}: "
            f"{m(finished.get('message', ''))} (a plan session changes nothing and writes no "
            "result.json)",
            highlight=False,
        )
    elif not problems:
        console.print(
            "[yellow]no result.json: the run did not finish writing; showing the trace[/]"
        )
    plans = sorted(run_dir.glob("plan.v*.json"), key=_plan_version)
    if plans:
        panels = [_plan_panel(p, problems) for p in plans]
        console.print(Columns(panels, equal=True, expand=True))
    _steps(console, events, problems)
    if result is not None:
        _totals(console, result)
        render_candidates(console, result, events)
    if transcript:
        print_transcript(console, events)
    if diff:
        print_diff(console, run_dir, result)
    for problem in problems:
        console.print(f"[yellow]note:[/] {m(problem)}", highlight=False)


def _headline(console: Console, result: dict[str, Any], problems: list[str]) -> None:
    missing = [k for k in ("status", "stop_reason", "run_id") if k not in result]
    if missing:
        problems.append(f"result.json has no {', '.join(missing)}")
    status = str(result.get("status", "unknown"))
    color = "green" if status == "verified" else "red"
    console.print(
        f"[bold]{m(result.get('run_id', '?'))}[/] [{color}]{m(status)}[/] "
        f"({m(result.get('stop_reason', '?'))}) · mode {m(result.get('mode', '?'))} · "
        f"model {m(result.get('model', '?'))}",
        highlight=False,
    )
    console.print(f"task: {m(result.get('task', ''))}", highlight=False)
    if result.get("message"):
        console.print(f"why: {m(result['message'])}", highlight=False)
    if isinstance(result.get("baseline"), dict):
        console.print(_baseline(result["baseline"]), highlight=False)


def _baseline(base: dict[str, Any]) -> str:
    failing = _list(base, "failing")
    ids = ", ".join(map(str, failing[:5])) + (
        f" (+{len(failing) - 5} more)" if len(failing) > 5 else ""
    )
    return m(
        f"baseline: `{base.get('command')}` exit {base.get('exit_code')} · "
        f"{base.get('passed')} passed · {len(failing)} already failing"
        + (f": {ids}" if failing else "")
    )


def _totals(console: Console, result: dict[str, Any]) -> None:
    tokens = _dict(result, "tokens")
    branch = m(result.get("branch", "?"))
    pr = _dict(result, "pr")
    if pr.get("pushed_branch"):  # coder ci fix drops the run's branch once the fix is pushed
        number = f" for PR #{m(pr['number'])}" if pr.get("number") is not None else ""
        branch = (
            f"{m(pr['pushed_branch'])} (pushed{number} at {m(str(pr.get('pushed_commit'))[:10])})"
        )
    console.print(
        f"turns {m(result.get('model_turns', '?'))} · tokens in {_count(tokens.get('input'))}"
        f"{billed_note(tokens)} out {_count(tokens.get('output'))} · "
        f"rollbacks {m(result.get('rollbacks', '?'))} · "
        f"revisions {m(result.get('revisions', '?'))} · branch {branch}",
        highlight=False,
    )
    console.print(time_line(result), highlight=False)


TIME_NAMES = (
    ("model_s", "model"),
    ("setup_s", "setup"),
    ("baseline_s", "baseline tests"),
    ("tool_commands_s", "model's commands"),
    ("verification_s", "step verification"),
    ("final_check_s", "final check"),
    ("harness_s", "harness"),
)


def time_line(result: dict[str, Any]) -> str:
    """Where the wall time went, each part named for what it is (older results: harness only)."""
    wall = _seconds(result.get("wall_s"))
    timing = _dict(result, "timing")
    if not timing:
        return f"wall {wall} (harness {_seconds(result.get('harness_s', 0), 2)})"
    return f"wall {wall}: " + " · ".join(
        f"{name} {_seconds(timing.get(key))}" for key, name in TIME_NAMES
    )


def _plan_panel(path: Path, problems: list[str]) -> Panel:
    plan = _load_json(path, problems) or {}
    lines = [f"[italic]{m(plan.get('goal', ''))}[/]"]
    for step in _list(plan, "steps"):
        if not isinstance(step, dict):
            continue
        deps = _list(step, "dependencies")
        after = f" ← {m(', '.join(map(str, deps)))}" if deps else ""
        change = _dict(step, "intendedModification")
        files = ", ".join(map(str, _list(change, "files")))
        lines.append(f"• [bold]{m(step.get('stepId'))}[/]{after}\n  files: {m(files)}")
        for inv in _list(change, "invariants"):
            text = inv if isinstance(inv, str) else json.dumps(inv, ensure_ascii=False)
            lines.append(f"  - {m(text)}")
    return Panel("\n".join(lines), title=m(path.stem))


def _steps(console: Console, events: list[dict[str, Any]], problems: list[str]) -> None:
    table = Table("step", "attempt", "check", "status", "evidence", show_lines=True, expand=True)
    attempt: dict[str, int] = {}
    for e in events:
        try:
            _row(table, e, attempt)
        except (KeyError, TypeError, AttributeError):
            problems.append(f"trace event {e.get('seq', '?')} ({e.get('type', '?')}) is malformed")
    if table.row_count:
        console.print(table)


def _row(table: Table, e: dict[str, Any], attempt: dict[str, int]) -> None:
    kind = e.get("type")
    if kind == "step_started":
        attempt[e["step"]] = e["attempt"]
    elif kind == "verification":
        step = e.get("step") or "(final)"
        status = str(e["status"])
        style = {"passed": "green", "failed": "red"}.get(status, "yellow")
        table.add_row(
            m(step),
            str(attempt.get(step, "")),
            m(e["kind"]),
            f"[{style}]{m(status)}[/]",
            markup_lines(_clip(str(e.get("evidence", "")))),
        )
    elif kind == "rollback":
        note = (
            "complete"
            if e["complete"]
            else f"incomplete: harness restored {e.get('restored_by_harness')}"
        )
        table.add_row(
            m(e["step"] or f"({e.get('phase', 'plan')})"),
            str(attempt.get(e["step"], "")),
            "rollback",
            f"[yellow]to {m(e['to'])}[/]",
            m(f"{note}; paths: {', '.join(map(str, e.get('paths', [])))}"),
        )
    elif kind == "critique":
        tests = _dict(e, "tests")
        ran = "no tests"
        if tests:
            ran = f"tests: exit {tests.get('exit_code')}"
            ran += " (timed out)" if tests.get("timed_out") else ""
        table.add_row(
            m(f"critique:{e['round']}"),
            "",
            "critique",
            "[green]ok[/]" if e["verdict"] == "ok" else "[yellow]problem[/]",
            m(_clip(f"{ran}; {e.get('problem') or 'no problem found'}")),
        )
    elif kind == "plan_rejected":
        table.add_row(
            "(plan)", "", "validation", "[red]rejected[/]", m(_clip("; ".join(e["problems"])))
        )


def _list(data: dict[str, Any], key: str) -> list[Any]:
    value = data.get(key)
    return value if isinstance(value, list) else []


def _dict(data: dict[str, Any], key: str) -> dict[str, Any]:
    value = data.get(key)
    return value if isinstance(value, dict) else {}


def _clip(text: str, limit: int = 600) -> str:
    return text if len(text) <= limit else text[:limit] + " …"


def billed_note(tokens: dict[str, Any]) -> str:
    """Billed input beside raw input, where the provider reported its prompt cache:
    " (billed 41,220: 380,100 read from the cache, 22,400 written)"; "" otherwise."""
    billed = tokens.get("billed_input")
    if not isinstance(billed, int | float):
        return ""
    read, write = tokens.get("cache_read"), tokens.get("cache_write")
    return f" (billed {billed:,.0f}: {_count(read)} read from the cache, {_count(write)} written)"


def _count(value: object) -> str:
    return f"{value:,}" if isinstance(value, int) else "?"


def _seconds(value: object, digits: int = 1) -> str:
    return f"{value:.{digits}f}s" if isinstance(value, int | float) else "?"


def _plan_version(path: Path) -> int:
    version = path.stem.split(".v")[-1]
    return int(version) if version.isdigit() else 0


def _load_json(path: Path, problems: list[str]) -> dict[str, Any] | None:
    """The file's object, or None with a note saying why it could not be read."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        problems.append(f"{path.name}: {exc.strerror or exc}")
        return None
    text = raw.decode("utf-8", errors="replace")
    if "\ufffd" in text and "\ufffd".encode() not in raw:
        problems.append(f"{path.name} is not valid UTF-8; undecodable bytes are shown as \ufffd")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        problems.append(f"{path.name} is not valid JSON ({exc.msg} at line {exc.lineno})")
        return None
    if not isinstance(data, dict):
        problems.append(f"{path.name} does not hold a JSON object")
        return None
    return data
