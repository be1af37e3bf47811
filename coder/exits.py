"""How every command ends on bad input: one line on stderr, exit 2 (or the code given)."""

from __future__ import annotations

from typing import NoReturn

import typer
from rich.console import Console

from coder.display import markup_safe

INTERRUPTED = 130
"""Exit status of a run stopped by Ctrl-C or SIGTERM (DESIGN): the run directory is complete."""

_stderr = Console(stderr=True)


def fail(message: str, code: int = 2) -> NoReturn:
    _stderr.print(f"[red]error:[/] {markup_safe(message)}", highlight=False, soft_wrap=True)
    raise typer.Exit(code)


def choice(flag: str, value: str, allowed: tuple[str, ...]) -> None:
    """A flag that takes one of a few words: anything else is bad input, said as the others are."""
    if value not in allowed:
        fail(f"{flag} must be one of {', '.join(allowed)}, not {value!r}")


def check_sandbox(value: str | None) -> None:
    """`--sandbox` of every command (None: not given). The sandbox package is imported only
    here, when a command runs, so that `coder --help` stays quick."""
    from sandbox.confine import SANDBOX_MODES

    if value is not None:
        choice("--sandbox", value, SANDBOX_MODES)
