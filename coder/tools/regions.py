"""What an edit answers with: the lines it changed, numbered as `read_file` numbers them, with a
few lines around, so the model sees what it did without reading the file again (as
SWE-agent's editor does). A large change shows its beginning and end."""

from __future__ import annotations

CONTEXT_LINES = 3
MAX_REGION_LINES = 40


def numbered(lines: list[str], first: int) -> list[str]:
    """`read_file`'s format: the 1-based line number, a bar, the line."""
    return [f"{n:>5}| {line}" for n, line in enumerate(lines, first)]


def changed_span(first_line: int, new_text: str) -> tuple[int, int]:
    """1-based first and last line of `new_text` once it stands at `first_line` (one line
    when it is empty: where the removed text was)."""
    lines = new_text.replace("\r\n", "\n").count("\n")
    if new_text.endswith("\n"):
        lines -= 1  # a replacement ending in a newline ends on the line before it
    return first_line, first_line + max(0, lines)


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
