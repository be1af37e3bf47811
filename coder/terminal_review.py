"""The person at the terminal who approves plans under --approve (coder.loop.plan.approval's
Reviewer): the plan as a table, one answer a prompt, and their editor on the plan's JSON."""

from __future__ import annotations

import os
import shlex
import subprocess
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path

from rich.console import Console

from coder.loop.plan.approval import EditorUnavailable
from coder.plan_table import plan_table, plan_title
from contracts.result import PlanSource
from contracts.validation import ValidPlan

Pause = Callable[[], AbstractContextManager[None]]
"""Holds a live status display still while the person reads and types."""


class TerminalReviewer:
    def __init__(self, console: Console, pause: Pause | None = None) -> None:
        self.console = console
        self.pause = pause or nullcontext

    def show(self, plan: ValidPlan, version: int, source: PlanSource) -> None:
        with self.pause():
            self.console.print(plan_table(plan, plan_title(plan, version, source)))

    def choose(self, question: str) -> str:
        with self.pause():
            self.console.print(question, markup=False, highlight=False, end=" ")
            return input()

    def edit(self, path: Path) -> int:
        command = os.environ.get("EDITOR") or os.environ.get("VISUAL") or "vi"
        try:
            argv = shlex.split(command)
        except ValueError as exc:
            raise EditorUnavailable(f"$EDITOR ({command!r}) cannot be parsed: {exc}") from None
        if not argv:
            raise EditorUnavailable("$EDITOR is empty; set it to your editor's command")
        with self.pause():
            try:
                return subprocess.run([*argv, str(path)]).returncode
            except OSError as exc:
                raise EditorUnavailable(
                    f"cannot start the editor `{command}` ({exc.strerror or exc}); set $EDITOR"
                ) from None

    def say(self, line: str) -> None:
        with self.pause():
            self.console.print(line, markup=False, highlight=False, soft_wrap=True)
