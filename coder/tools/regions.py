"""What an edit answers with: the lines it changed, numbered as `read_file` numbers them, with a
few lines around, so the model sees what it did without reading the file again (as
SWE-agent's editor does). A large change shows its beginning and end."""

from __future__ import annotations

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
