"""Exact-match editing, as pure functions, so a failed edit can tell the model what would work."""

from __future__ import annotations

import difflib
from dataclasses import dataclass


@dataclass(frozen=True)
class EditOutcome:
    ok: bool
    content: str = ""
    message: str = ""
    at: int = -1
    """Where the new text starts in `content` (the edit's region is shown from there)."""


def apply_edit(content: str, old: str, new: str) -> EditOutcome:
    count = content.count(old)
    if count == 1:
        return EditOutcome(True, content.replace(old, new, 1), at=content.find(old))
    if count > 1:
        lines = _match_lines(content, old)
        return EditOutcome(
            False,
            message=(
                f"old_text occurs {count} times (at lines {', '.join(map(str, lines))}); "
                "include more surrounding lines so it matches exactly once"
            ),
        )
    return EditOutcome(False, message=_not_found(content, old))


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
