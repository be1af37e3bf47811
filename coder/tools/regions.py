"""What an edit answers with: the lines it changed, numbered as `read_file` numbers them, with a
few lines around, so the model sees what it did without reading the file again (as
SWE-agent's editor does). A large change shows its beginning and end."""

from __future__ import annotations

import difflib

CONTEXT_LINES = 3
MAX_REGION_LINES = 40


def numbered(lines: list[str], first: int) -> list[str]:
    """`read_file`'s format: the 1-based line number, a bar, the line."""
    return [f"{n:>5}| {line}" for n, line in enumerate(lines, first)]


def changed_span(first_line: int, old_text: str, new_text: str) -> tuple[int, int]:
    """1-based first and last line that differ once `new_text` replaces `old_text` at
    `first_line`: lines the edit repeated unchanged at either end are not "changed" (one line
    when nothing is left: where the removed text was)."""
    old, new = _lines(old_text), _lines(new_text)
    same_head = 0
    while same_head < min(len(old), len(new)) and old[same_head] == new[same_head]:
        same_head += 1
    same_tail = 0
    while (
        same_tail < min(len(old), len(new)) - same_head
        and old[len(old) - 1 - same_tail] == new[len(new) - 1 - same_tail]
    ):
        same_tail += 1
    first = first_line + same_head
    return first, max(first, first_line + len(new) - 1 - same_tail)


def _lines(text: str) -> list[str]:
    text = text.replace("\r\n", "\n")
    return text.removesuffix("\n").split("\n") if text else []


def region(content: str, first: int, last: int) -> str:
    """Lines first..last (1-based) of `content` and CONTEXT_LINES around them, numbered."""
    lines = content.splitlines()
    if not lines:
        return "(empty file)"
    lo = max(1, first - CONTEXT_LINES)
    hi = min(len(lines), last + CONTEXT_LINES)
    if hi - lo + 1 <= MAX_REGION_LINES:
        return "\n".join(numbered(lines[lo - 1 : hi], lo))
    half = MAX_REGION_LINES // 2
    head = numbered(lines[lo - 1 : lo - 1 + half], lo)
    tail = numbered(lines[hi - half : hi], hi - half + 1)
    skipped = hi - lo + 1 - 2 * half
    return "\n".join([*head, f"  … {skipped} lines (read_file to see them)", *tail])


def restored_view(rel: str, before: str | None, after: str | None) -> str:
    """What a restored file now reads around each change, numbered as read_file numbers it
    (as an edit's answer is), so nothing needs reading again; a word for one that is not
    text."""
    if after is None:
        return f"{rel} is not text; not shown"
    spans = changed_spans(before or "", after)
    if not spans:
        return f"{rel} is as it was before the restore"
    shown: list[str] = []
    total = 0
    for first, last in spans:
        part = region(after, first, last)
        if shown and total + len(part) > RESTORED_VIEW_CHARS:
            shown.append(f"  … {len(spans) - len(shown)} more changed region(s): read_file {rel}")
            break
        shown.append(part)
        total += len(part)
    return f"{rel} now reads, around the change:\n" + "\n  …\n".join(shown)


RESTORED_VIEW_CHARS = 8000
"""Past this, a restored file's further changed regions are named, not shown."""


def changed_spans(before: str, after: str) -> list[tuple[int, int]]:
    """1-based line spans of `after` that differ from `before`, close ones joined (a
    removal is the line where the removed text was)."""
    old, new = before.splitlines(), after.splitlines()
    spans: list[tuple[int, int]] = []
    matcher = difflib.SequenceMatcher(a=old, b=new, autojunk=False)
    for tag, _, _, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        first, last = j1 + 1, max(j1 + 1, j2)
        if spans and first - spans[-1][1] <= 2 * CONTEXT_LINES + 1:
            spans[-1] = (spans[-1][0], max(spans[-1][1], last))
        else:
            spans.append((first, last))
    end = max(1, len(new))
    return [(min(first, end), min(last, end)) for first, last in spans]
