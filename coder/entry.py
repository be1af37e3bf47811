"""How the `coder` command starts and how it answers a command line it cannot parse.

Click's own answer to a mistyped flag is a usage block and a boxed error; a person needs one
line that names the problem and where the help is (`unknown option --x; see coder run -h`),
and scripts need exit status 2. Help is laid out by click's plain formatter, which wraps the
help text and never cuts an option's name, at any width; without a terminal it is laid out
wide (160 columns) so that piped help keeps each option on its line.
"""

from __future__ import annotations

import os
import sys
from importlib import metadata
from typing import Any

import typer

from coder.display import plain

try:  # typer 0.22+ carries its own copy of click
    from typer._click import exceptions as errors
    from typer._click.core import Command
except ImportError:  # pragma: no cover - older typer on the real click
    from click import exceptions as errors  # type: ignore[no-redef]
    from click.core import Command  # type: ignore[assignment]

HELP_WIDTH_OFF_TERMINAL = 160
"""--help piped or captured is laid out this wide instead of 80 columns."""
DISTRIBUTION = "coder-contracts"
"""The name coder is installed under on the package index (`coder` there is another project)."""
USAGE_EXIT = 2


def version() -> str:
    """The installed distribution's version, or the source tree's when run from a checkout."""
    try:
        return metadata.version(DISTRIBUTION)
    except metadata.PackageNotFoundError:
        from coder import __version__

        return __version__


def usage_line(error: errors.UsageError, argv: list[str], names: set[str]) -> str:
    """One line for a command line click could not parse, naming the help to read."""
    if error.ctx is not None:
        path = error.ctx.command_path
        where = "coder" + path[path.index(" ") :] if " " in path else "coder"
    else:
        words = [arg for arg in argv if not arg.startswith("-")]
        where = " ".join(["coder", *words[:1]]) if words[:1] and words[0] in names else "coder"
    if isinstance(error, errors.NoSuchOption):
        message = f"unknown option {error.option_name}"
        if error.possibilities:
            message += f" (did you mean {', '.join(sorted(error.possibilities))}?)"
    else:
        message = error.format_message().rstrip(".")
        message = message[:1].lower() + message[1:]
    return f"{plain(message)}; see {where} -h"


def help_width() -> int | None:
    """How wide help is laid out: the terminal's, or COLUMNS, else wide when piped."""
    if sys.stdout.isatty() or os.environ.get("COLUMNS") or os.environ.get("TERMINAL_WIDTH"):
        return None
    return HELP_WIDTH_OFF_TERMINAL


def run_command(command: Command, argv: list[str]) -> int:
    """Run the parsed command line; the exit status to leave with."""
    width = help_width()
    extra: dict[str, Any] = (
        {} if width is None else {"max_content_width": width, "terminal_width": width}
    )
    try:
        status = command.main(args=argv, prog_name="coder", standalone_mode=False, **extra)
    except errors.NoArgsIsHelpError as exc:
        exc.show()
        return USAGE_EXIT
    except errors.UsageError as exc:
        names = set(getattr(command, "commands", {}))
        print(f"error: {usage_line(exc, argv, names)}", file=sys.stderr)
        return USAGE_EXIT
    except errors.ClickException as exc:
        exc.show()
        return exc.exit_code
    except typer.Abort:
        print("aborted", file=sys.stderr)
        return 1
    return status if isinstance(status, int) else 0
