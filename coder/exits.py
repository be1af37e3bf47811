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
