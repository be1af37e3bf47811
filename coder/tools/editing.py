"""Exact-match editing, as pure functions, so a failed edit can tell the model what would work.

The model sees line ends as `\n` whatever the file uses, so matching happens on that view and
the replacement is spliced into the file's own text: every character outside the matched span
stays as it was (a CRLF file keeps its CRLFs, a lone `\r` elsewhere is never touched), and the
new text's line ends take the style of the lines it replaces.
"""

from __future__ import annotations

import bisect
import difflib
from dataclasses import dataclass

from coder.tools.textfile import with_newlines


@dataclass(frozen=True)
class EditOutcome:
    ok: bool
    content: str = ""
    message: str = ""
    first_line: int = 0
    """1-based line where the replaced text began (0 when the edit failed)."""


def apply_edit(content: str, old: str, new: str, newline: str | None = None) -> EditOutcome:
    """Replace the one occurrence of `old` in `content`; `newline` is the file's style for new
    lines (default: the style of the matched lines, else `\n`)."""
    view = content.replace("\r\n", "\n")
    old = old.replace("\r\n", "\n")
    count = view.count(old)
    if count == 1:
        at = view.find(old)
        start, end = _original_span(content, at, at + len(old))
        region = content[start:end]
        style = "\r\n" if "\r\n" in region else "\n" if "\n" in region else newline or "\n"
        spliced = content[:start] + with_newlines(new, style) + content[end:]
        return EditOutcome(True, spliced, first_line=view.count("\n", 0, at) + 1)
    if count > 1:
        lines = _match_lines(view, old)
        return EditOutcome(
            False,
            message=(
                f"old_text occurs {count} times (at lines {', '.join(map(str, lines))}); "
                "include more surrounding lines so it matches exactly once"
            ),
        )
    return EditOutcome(False, message=_not_found(view, old))


def _original_span(content: str, start: int, end: int) -> tuple[int, int]:
    """Offsets in `content` of a span given in its CRLF-as-LF view."""
    if "\r\n" not in content:
        return start, end
    folded: list[int] = []
    at = content.find("\r\n")
    while at != -1:
        folded.append(at - len(folded))  # where this CRLF's newline sits in the view
        at = content.find("\r\n", at + 2)
    return start + bisect.bisect_left(folded, start), end + bisect.bisect_left(folded, end)


def _match_lines(content: str, old: str) -> list[int]:
    lines, start = [], 0
    while (at := content.find(old, start)) != -1:
        lines.append(content.count("\n", 0, at) + 1)
        start = at + 1
    return lines


def _not_found(content: str, old: str) -> str:
    stripped = _collapse(old)
    if stripped and _collapse(content).count(stripped) >= 1:
        hint = "it matches when whitespace is ignored: copy the indentation exactly from read_file"
    else:
        hint = _closest(content, old)
    return f"old_text not found in the file; {hint}"


def _collapse(text: str) -> str:
    return " ".join(text.split())


def _closest(content: str, old: str) -> str:
    lines = content.splitlines()
    want = old.splitlines() or [old]
    width = len(want)
    best, best_at = 0.0, -1
    target = "\n".join(want)
    for i in range(0, max(1, len(lines) - width + 1)):
        window = "\n".join(lines[i : i + width])
        ratio = difflib.SequenceMatcher(None, window, target).quick_ratio()
        if ratio > best:
            ratio = difflib.SequenceMatcher(None, window, target).ratio()
            if ratio > best:
                best, best_at = ratio, i
    if best_at < 0 or best < 0.5:
        return "read the file first and copy old_text from it exactly"
    snippet = "\n".join(lines[best_at : best_at + width])
    return f"did you mean these lines ({best_at + 1}-{best_at + width})?\n{snippet}"
