"""What the model sees of a command it ran: the command as it is quoted back, its status, its
output as a terminal would leave it (compacted past a budget), and the one line that stands in
for all of it once the context masks it."""

from __future__ import annotations

import re
from typing import Any

from sandbox.confine import CommandResult
from summarizers.logs import compact_log, strip_terminal, summary_line
from summarizers.tokens import estimate_tokens

GIT_WRITES = re.compile(
    r"\bgit\s+(?:-[-\w]+(?:[ =]\S+)?\s+)*"
    r"(?:stash|commit|checkout|switch|reset|restore\s+--staged|add|rm|mv|merge|rebase|cherry-pick|am|tag)\b"
)
GIT_READ_ONLY = (
    "note: the repository's .git is read-only in the sandbox, so git stash, commit, checkout, "
    "reset and add cannot write (git stash fails without a word); the harness commits verified "
    "work. The code before your change: `git show HEAD:FILE`, or `git diff`."
)
"""Said after a command that asks git to write: a stash that silently did nothing once let a
live player believe its test had run on the old code."""


def render_command(result: Any, *, budget: int, known: str | None = None) -> tuple[str, int]:
    """What the model sees of a command: its status line, then the output as a terminal would
    show it (colour codes and redraws gone), compacted only when it does not fit `budget`.
    `known`: one line saying every failure in the output was there before any change; then
    it stands for the output, after the output's counts."""
    output = strip_terminal(result.output)
    said = quoted_command(result.command)
    if result.timed_out:
        head = f"$ {said}\ntimed out after {result.duration_s:.1f}s and was killed"
    else:
        head = f"$ {said}\nexit code {result.exit_code} ({result.duration_s:.1f}s)"
    if result.dropped_bytes:
        head += f"; {result.dropped_bytes} bytes of output dropped from the middle"
    bound = getattr(result, "bound_message", "")
    if bound:
        head += f"\nthe command hit a sandbox bound: {bound}"
    if known:
        body = "\n".join(line for line in (summary_line(output), known) if line)
    elif estimate_tokens(output) > budget:
        body = compact_log(output, budget=budget, exit_code=result.exit_code).text
    else:
        body = output.rstrip()
    return (f"{head}\n{body}" if body else head), len(result.output)


QUOTED_COMMAND_CHARS = 300
QUOTED_LINE_CHARS = 200


def quoted_command(command: str) -> str:
    """A command as its answer repeats it: whole when short; a long one (a heredoc that
    writes a file) by its first line and its size, since the model has the whole of it in
    its own call and every later request would carry it twice."""
    if len(command) <= QUOTED_COMMAND_CHARS:
        return command
    first = command.split("\n", 1)[0]
    if len(first) > QUOTED_LINE_CHARS:
        first = first[: QUOTED_LINE_CHARS - 1] + "…"
    lines = command.count("\n") + 1
    counted = f"{lines} line{'s' if lines != 1 else ''}, {len(command):,} characters"
    return f"{first} [… the command as you sent it: {counted}]"


def command_gist(result: CommandResult) -> str:
    """A command's outcome in one line: the command, how it ended, its summary line."""
    command = " ".join(result.command.split())
    command = command if len(command) <= 100 else command[:99] + "…"
    if result.timed_out:
        ended = f"timed out after {result.duration_s:.0f}s"
    else:
        ended = f"exit code {result.exit_code}"
    summary = summary_line(result.output)
    return f"$ {command} → {ended}" + (f": {summary}" if summary else "")
