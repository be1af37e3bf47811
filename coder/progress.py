"""Progress for a person: a live status line on a terminal, plain lines otherwise.

Fed by trace events, so what a person sees is exactly what the trace records, plus the
sandbox's notes of a command starting and ending (never traced), so that the status line can
say which command is running and for how long, ticking while it runs. Every tool call the
model makes is one line as it happens. `quiet` keeps only the run's last line.

A listener sees the event as it was made, before the trace's redaction, so every string shown
here is redacted the same way (a secret the harness holds, in a model's reply or a command,
never reaches the terminal: its exact forms replaced, a string holding another form withheld).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from rich.console import Console
from rich.status import Status
from rich.text import Text

from coder.display import map_strings, markup_safe
from coder.models.pricing import cost_usd
from coder.verdict.baseline import ENVIRONMENT_FIX
from sandbox.redact import Redactor

MARK = {"passed": "[green]✓[/]", "failed": "[red]✗[/]", "unverified": "[yellow]?[/]"}


TOOL_ARG = ("path", "command", "pattern", "glob", "question", "reason", "summary", "goal")
"""The argument that says what a tool call is about, in the order looked for."""
SHOWN_ARG = 100
"""A tool call's line shows this much of its argument."""


def shown_command(command: str) -> str:
    """A command as the person or the model wrote it: the harness's exit-status trap that
    wraps its own test runs is left out."""
    if command.startswith("trap ") and "' EXIT; " in command:
        return command.split("' EXIT; ", 1)[1]
    return command


def tool_line(tool: str, args: object) -> str:
    """One line for one tool call: the tool and what it is about."""
    about = ""
    if isinstance(args, dict):
        about = next((str(args[k]) for k in TOOL_ARG if isinstance(args.get(k), str)), "")
        if tool == "read_file" and args.get("start_line"):
            about += f":{args['start_line']}-{args.get('end_line') or ''}"
    about = " ".join(about.split())
    if len(about) > SHOWN_ARG:
        about = about[: SHOWN_ARG - 1] + "…"
    return f"  · {tool} {about}".rstrip()


class _Status:
    """The live line's text, made again at every refresh so the elapsed time ticks."""

    def __init__(self, printer: ProgressPrinter) -> None:
        self.printer = printer

    def __rich__(self) -> Text:
        p = self.printer
        parts = [p.phase]
        if p.command is not None:
            elapsed = time.monotonic() - p.command_started
            parts.append(f"running `{p.command}` {elapsed:.0f}s")
        parts.append(p._spend())
        return Text(" · ".join(parts))


class ProgressPrinter:
    def __init__(self, console: Console, *, quiet: bool = False) -> None:
        self.console = console
        self.quiet = quiet
        self.tokens = 0
        self.tokens_in = 0
        self.tokens_out = 0
        self.model = ""
        self.steps: list[str] = []
        self.phase = "starting"
        self.test_cmd = ""
        self.mode = ""
        self.command: str | None = None
        self.command_started = 0.0
        self.redact = Redactor()
        live = console.is_terminal and not quiet
        self.live: Status | None = console.status(_Status(self)) if live else None
        if self.live:
            self.live.start()

    @contextmanager
    def paused(self) -> Iterator[None]:
        """The live status line held still while a person reads and types (--approve)."""
        if self.live is None:
            yield
            return
        self.live.stop()
        try:
            yield
        finally:
            self.live.start()

    def __call__(self, event: dict[str, Any]) -> None:
        kind = event["type"]
        if kind in ("command_started", "command_finished"):
            self._command(event)
            return
        line: str | None
        if kind == "action":
            args = map_strings(event.get("args"), self.redact.whole)
            line = markup_safe(tool_line(self.redact.whole(str(event.get("tool") or "?")), args))
        else:
            line = self._line(kind, map_strings(event, lambda s: markup_safe(self.redact.whole(s))))
        if line and (not self.quiet or kind == "run_finished"):
            self.console.print(line, highlight=False, soft_wrap=True)

    def _command(self, note: dict[str, Any]) -> None:
        """The sandbox started or ended a command (the status line shows it while it runs)."""
        if note["type"] == "command_finished":
            self.command = None
            return
        command = " ".join(self.redact.whole(shown_command(str(note["command"]))).split())
        if self.phase in ("starting", "setup") and self.test_cmd and command == self.test_cmd:
            self.phase = "baseline"
        self.command = command if len(command) <= SHOWN_ARG else command[: SHOWN_ARG - 1] + "…"
        self.command_started = float(note.get("started") or time.monotonic())

    def _line(self, kind: str, e: dict[str, Any]) -> str | None:
        if kind == "run_started":
            dirty = (
                " (your uncommitted changes are not included)" if e.get("user_tree_dirty") else ""
            )
            notes = "".join(f"\n  note: {note}" for note in e.get("notes", []))
            limits = e.get("limits") or {}
            if limits.get("token_source", "defaults") != "defaults":
                notes += (
                    f"\n  note: model calls hold {limits['context_tokens']:,} tokens of context "
                    f"and {limits['max_reply_tokens']:,} of reply ({limits['token_source']})"
                )
            self.model = str(e["model"])
            self.phase = "setup"
            self.mode = str(e.get("mode") or "")
            self.test_cmd = " ".join(str(e.get("test_cmd") or "").split())
            # a plan session's branch is thrown away: not worth naming
            what = "plan" if e.get("session") == "plan" else f"{e['mode']} run on {e['branch']}"
            return (
                f"[bold]coder[/] {what} from {e['base_commit'][:10]}{dirty}; "
                f"model {e['model']}, sandbox {e['sandbox']}, tests `{e.get('test_cmd')}`{notes}"
            )
        if kind == "baseline":
            self.phase = "plan" if self.mode in ("contract", "plan") else self.mode
            return baseline_line(e)

        if kind == "model_call":
            self.tokens_in += int(e.get("tokens_in", 0))
            self.tokens_out += int(e.get("tokens_out", 0))
            self.tokens = self.tokens_in + self.tokens_out
            self.phase = str(e.get("phase", self.phase))
            return None
        if kind in ("plan_submitted", "plan_edited"):
            self.steps = list(e["steps"])
            by = " (yours)" if e.get("source") == "user" else ""
            return f"plan v{e['version']}{by}: {len(self.steps)} step(s): {', '.join(self.steps)}"
        if kind == "plan_approved":
            return f"plan v{e['version']} approved" + (
                " (given with --plan)" if e.get("by") == "plan_file" else ""
            )
        if kind == "plan_declined":
            return f"[yellow]plan v{e['version']} declined[/]"
        if kind == "run_resumed":
            self.steps = list(e["steps"])
            verified = ", ".join(e["verified"]) or "none"
            again = f"; {e['in_progress']} starts again" if e.get("in_progress") else ""
            plan = f"plan v{e['plan_version']}" if e.get("plan_version") else "no plan yet"
            return (
                f"resuming run {e['from_run']} ({e['stopped']}): {plan}, "
                f"verified: {verified}{again}; budget left: {e['left']}"
            )
        if kind == "plan_rejected":
            return f"[yellow]plan rejected[/]: {len(e['problems'])} problem(s)"
        if kind == "step_started":
            self.phase = f"execute:{e['step']}"
            index = self.steps.index(e["step"]) + 1 if e["step"] in self.steps else "?"
            return f"step {index}/{len(self.steps)} [bold]{e['step']}[/] (attempt {e['attempt']})"
        if kind == "verification":
            label = e["kind"] if e.get("step") else "final check"
            return (
                f"  {MARK.get(e['status'], e['status'])} {label} {e.get('detail') or ''}".rstrip()
            )
        if kind == "rollback":
            complete = (
                "" if e["complete"] else " [yellow](harness restored paths the plan missed)[/]"
            )
            if e["step"] is None and e["to"] == "HEAD":
                paths = list(e.get("paths") or [])
                shown = ", ".join(paths[:3]) + (
                    f" (+{len(paths) - 3} more)" if len(paths) > 3 else ""
                )
                note = e.get("note") or "reset what the phase's commands changed"
                return f"  {note}: {shown}" if shown else f"  {note}"
            what = e["step"] or e.get("phase") or "the change"
            return f"  [yellow]rolled back[/] {what} to {e['to']}{complete}"
        if kind == "critique":
            said = f": {e['problem']}" if e.get("problem") else ""
            mark = "[green]ok[/]" if e["verdict"] == "ok" else "[yellow]problem[/]"
            return f"critique {e['round']}: {mark}{said}"
        if kind == "step_verified":
            return f"  [green]verified[/] {e['step']} → {e['commit'][:10]}"
        if kind == "plan_revised":
            return f"revision {e['revision']} → plan v{e['version']}"
        if kind == "run_finished":
            if self.live:
                self.live.stop()
            color = "green" if e["status"] in ("verified", "planned") else "red"
            return f"[{color}]{e['status']}[/] ({e['stop_reason']}): {e['message']} · {self._spend()} · {e['wall_s']:.1f}s"
        return None

    def _spend(self) -> str:
        cost = cost_usd(self.model, self.tokens_in, self.tokens_out)
        return f"{self.tokens:,} tokens" + (f" (~${cost:.2f})" if cost is not None else "")


BASELINE_IDS = 3


def baseline_line(e: dict[str, Any]) -> str | None:
    """What already fails before any change: one line, a few ids, and the likely cause."""
    if not e.get("command"):
        return None
    head = f"baseline `{e['command']}` in {e.get('duration_s', 0):.1f}s"
    if e.get("timed_out"):
        line = f"{head}: [yellow]timed out[/]"
    elif e.get("exit_code") == 0:
        line = f"{head}: passed ({e.get('passed', 0)} tests)"
    elif e.get("failed"):
        ids = list(e.get("failing", []))[:BASELINE_IDS]
        more = f" (+{e['failed'] - len(ids)} more)" if e["failed"] > len(ids) else ""
        line = (
            f"{head}: {e.get('passed', 0)} passed, [yellow]{e['failed']} already failing[/]: "
            f"{', '.join(ids)}{more}"
        )
    else:
        line = f"{head}: [yellow]exit {e.get('exit_code')}[/], no failing test named"
    if e.get("cmd_timeout_raised_from"):
        line += (
            f"\n  note: commands may now take {e['cmd_timeout_s']:.0f}s (the limit was "
            f"{e['cmd_timeout_raised_from']:.0f}s; the test command needs more on this machine)"
        )
    if e.get("removed_flags"):
        line += f"\n  ran without {', '.join(e['removed_flags'])} (a stopped run is no evidence)"
    if e.get("incomplete"):
        line += f"\n  [yellow]incomplete[/]: {e['incomplete']}"
    for missing in e.get("missing_environment", []):
        line += f"\n  [yellow]likely missing environment[/]: {missing}"
    if e.get("missing_environment"):
        line += f"\n  fix: {ENVIRONMENT_FIX}"
    return line
