"""The map cut to its budget: entries shortened before they are dropped, never the whole map.

A map that stops at the first entry too long for the budget shows nothing when the most
relevant file is also the largest (an HTTP client's `_client.py` with a hundred methods: "0 of
123 tracked files"), and the planner then buys the same knowledge with searches and reads. So
entries are fitted one by one in rank order: the first FULL_ENTRIES with up to
MAX_LINES_PER_FILE symbols (each in at most half the room for symbols), the next with the
SHORT_LINES symbols the task names first, all of these within DETAIL_SHARE of the budget; an
entry too long for what is left is shortened (fewer lines, then its path alone) and the next
ones still get their turn; the rest of the budget lists more files by path, in rank order.
Long signatures keep their parameters' names and lose their annotations and defaults.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from summarizers.logformats.context import is_test_path
from summarizers.repomap_facts import FileFacts
from summarizers.tokens import byte_cap, estimate_tokens, utf8_len

Entry = tuple[str, Callable[[], FileFacts]]
"""A ranked file: its path, and its facts (parsed when first asked for)."""

MAX_LINES_PER_FILE = 30
SHORT_LINES = 6
"""Lines of a shortened entry: the symbols the task names first."""
FULL_ENTRIES = 2
"""The leading entries that may list MAX_LINES_PER_FILE symbols (not test files)."""
DETAIL_SHARE = 0.6
"""Of the budget, what entries with symbols may take; the rest lists more files by path."""
SIGNATURE_CHARS = 150
"""A longer signature is shown with its parameters' names only."""
_NOTE = re.compile(r" \(does not parse at [^)]*\)$")


def fit(entries: list[Entry], named: Callable[[str], bool], budget: int) -> str:
    """As many entries as fit `budget` tokens, in rank order (see the module's docstring);
    empty only when not even the first path fits. Files are parsed only while entries still
    carry symbols."""
    total = len(entries)
    cap = byte_cap(budget)
    room = cap - utf8_len(_header(total, total)) - utf8_len(_footer(0, total)) + 1
    detail_room = room - int(cap * (1 - DETAIL_SHARE))
    blocks: list[str] = []
    used = 0
    detailing = True
    for rank, (path, facts) in enumerate(entries):
        block = path + "\n"
        if used + utf8_len(block) > room:
            break
        if detailing:
            longest = MAX_LINES_PER_FILE if rank < FULL_ENTRIES and not is_test_path(path) else 0
            left = detail_room - used
            for lines, limit in ((longest, min(left, detail_room // 2)), (SHORT_LINES, left)):
                text = render_entry(path, facts(), named, lines) if lines else ""
                if text and utf8_len(text) <= limit:
                    block = text
                    break
            else:
                detailing = False  # a short entry no longer fits: the rest go by path
        blocks.append(block)
        used += utf8_len(block)
    k = len(blocks)
    text = (_header(k, total) + "".join(blocks) + _footer(k, total)).rstrip("\n")
    return text if k and estimate_tokens(text) <= budget else ""


def render_entry(path: str, facts: FileFacts, named: Callable[[str], bool], max_lines: int) -> str:
    """The file's public symbols in file order, at most `max_lines` of them: at full length
    every symbol the task names is listed beyond that; shortened, those come first. Without
    symbols the entry is its path."""
    note = f" (does not parse at {facts.error.split(': ', 1)[0]})" if facts.error else ""
    if not facts.symbols or max_lines <= 0:
        return path + note + "\n"
    full = max_lines >= MAX_LINES_PER_FILE
    lines = [f"{path}:{note}"]
    wanted = {s[0] for s in facts.symbols if named(s[0])}
    wanted |= {name.rsplit(".", 1)[0] for name in wanted if "." in name}  # and their classes
    shown = [s for s in facts.symbols if s[4] or s[0] in wanted] or facts.symbols[:5]
    constants = [s[0] for s in shown if s[1] == "variable" and "." not in s[0]]
    constants.sort(key=lambda name: name not in wanted)
    if constants and (full or constants[0] in wanted):
        lines.append("  " + _clip(", ".join(constants), 100 if full else 60))
    members = [s for s in shown if s[1] != "variable"]
    if full:
        room = max_lines - sum(1 for s in members if s[0] in wanted)
        listed = []
        for symbol in members:
            if symbol[0] in wanted or room > 0:
                listed.append(symbol)
                room -= symbol[0] not in wanted
    else:
        first = [s for s in members if s[0] in wanted] + [s for s in members if s[0] not in wanted]
        picked = {id(s) for s in first[:max_lines]}
        listed = [s for s in members if id(s) in picked]
    for name, _kind, signature, _line, _public in listed:
        lines.append("  " * (name.count(".") + 1) + compact_signature(signature))
    if len(members) > len(listed):
        lines.append(f"  ... {len(members) - len(listed)} more")
    return "\n".join(lines) + "\n"


def compact_signature(signature: str, limit: int = SIGNATURE_CHARS) -> str:
    """ "send(self, request: Request, *, stream: bool = False, …) -> Response" becomes
    "send(self, request, *, stream, …) -> Response" when longer than `limit`; still longer,
    it is cut."""
    if len(signature) <= limit:
        return signature
    start = signature.find("(")
    end = _closing(signature, start) if start >= 0 else -1
    if end > start:
        names = [_param_name(p) for p in _top_level_split(signature[start + 1 : end])]
        signature = f"{signature[:start]}({', '.join(n for n in names if n)}){signature[end + 1 :]}"
    return signature if len(signature) <= limit else signature[: limit - 1] + "…"


def _closing(text: str, start: int) -> int:
    depth = 0
    for i in range(start, len(text)):
        if text[i] in "([{":
            depth += 1
        elif text[i] in ")]}":
            depth -= 1
            if depth == 0:
                return i
    return -1


def _top_level_split(params: str) -> list[str]:
    out: list[str] = []
    current: list[str] = []
    depth = 0
    for i, char in enumerate(params):
        if char in "([{" or (char == "<" and params[i - 1 : i] not in ("=", "-")):
            depth += 1
        elif char in ")]}" or (char == ">" and params[i - 1 : i] not in ("=", "-")):
            depth -= 1
        if char == "," and depth == 0:
            out.append("".join(current))
            current = []
        else:
            current.append(char)
    out.append("".join(current))
    return [p.strip() for p in out if p.strip()]


def _param_name(param: str) -> str:
    """ "timeout: float = 5" -> "timeout"; "id?: string" -> "id?"; "{ a, b }: Opts" -> "{ a, b }"."""
    depth = 0
    for i, char in enumerate(param):
        if char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
        elif depth == 0 and char in ":=":
            return param[:i].strip()
    return param.strip()


def listed_paths(repo_map: str) -> list[str]:
    """The paths a map lists, in its order (what a reader of the map, or its recall, sees)."""
    out = []
    for line in repo_map.splitlines()[1:]:
        if line and not line.startswith((" ", "[")):
            out.append(_NOTE.sub("", line).removesuffix(":"))
    return out


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 4] + ", ..."


def _header(k: int, total: int) -> str:
    """The map is printed under a "Repository map:" heading, so it does not carry one itself."""
    return f"{k} of {total} tracked files, the most relevant to the task first:\n"


def _footer(k: int, total: int) -> str:
    return f"[{total - k} more files not shown]\n" if k < total else ""
