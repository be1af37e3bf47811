"""Fill a token budget from a parsed log, by priority: counts, types, one line per failure, context.

Each tier is offered to every failure before the next tier starts, so a long log shows every
failing id before any one failure gets its traceback. A failure's line carries its id, exception
type and clipped message together; when even the bare ids cannot all fit, a share of the room
goes first to full lines for distinct errors, so the model sees what went wrong and not only
where. The footer saying what was left out has its worst-case size reserved up front, which is
what makes "never over budget" exact.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass

from summarizers.causes import Cause
from summarizers.logformats.model import Failure, ParsedLog
from summarizers.tokens import byte_cap, clip_chars, clip_to_bytes, utf8_len

COUNTS_CHARS = 300
ID_CHARS = 220
MESSAGE_CHARS = 240
LINE_CHARS = 240
MAX_BLOCKS = 12
BLOCK_LINES = 60
SHORT_FOOTER = "[more left out]"
FIRST_SHARE = 3
"""When the bare ids cannot all fit, 1/FIRST_SHARE of the room goes to full lines first."""
CAUSES_SHARE = 4
"""Cause lines after the first may take at most 1/CAUSES_SHARE of the budget."""
_DIGITS = re.compile(r"\d+")


@dataclass
class Rendered:
    text: str
    omitted: list[str]
    lossy: bool = False
    """Something about a failure (id, message, detail, context) did not fit."""


@dataclass
class _State:
    failure: Failure
    blocks: list[tuple[int, int]]
    repeat: bool = False
    """Same exception and message as an earlier failure: one traceback says it for both."""
    original: _State | None = None
    """The earlier failure a repeat repeats; "same error as above" only once its line says it."""
    echo: bool = False
    """Same exception, message (numbers masked) and raising location as an earlier failure: the
    traceback shown for that one serves for this one too; only the values differ."""
    summary: str = ""
    section: str = ""
    level: int = 0  # 0 nothing, 1 id, 2 message, 3 details, 3+k first k context blocks
    shown: int = 0  # context and detail lines printed

    @property
    def shown_blocks(self) -> int:
        return max(0, self.level - 3)


def render(log: ParsedLog, budget: int, extra_counts: list[str] | None = None) -> Rendered:
    cap = byte_cap(budget)
    counts = [clip_chars(c, COUNTS_CHARS) for c in [*log.counts, *(extra_counts or [])] if c]
    causes = _fit_causes(log.causes, cap)
    page = _Page(log, counts, causes, cap)
    unsaid = [(c, line) for c, line in causes if c.key not in page.said]
    if len(unsaid) < len(causes):  # the failures' own lines name them: give their room back
        page = _Page(log, counts, unsaid, cap)
    states = page.states
    body = page.counts_text + "".join(line for c, line in unsaid if c.key not in page.said)
    body += page.rest
    omitted = _omitted(log, states)
    lossy = len(omitted) > len(log.dropped)
    footer = ""
    if omitted and page.reserve:
        footer = SHORT_FOOTER if page.short else "[left out: " + "; ".join(omitted) + "]"
    text = (body + footer).rstrip("\n")
    if not text.strip():
        text = _last_resort(log, states, cap)
    if utf8_len(text) > cap:  # unreachable by construction; the budget is a hard promise
        text = clip_to_bytes(text, cap)
    return Rendered(text=text, omitted=omitted, lossy=lossy)


class _Page:
    """One filling of the budget: counts, then failures tier by tier, around the cause lines."""

    def __init__(
        self, log: ParsedLog, counts: list[str], causes: list[tuple[Cause, str]], cap: int
    ) -> None:
        self.states = _states(log)
        room = cap - sum(utf8_len(line) for _, line in causes)
        self.reserve, self.short = _footer_reserve(log, self.states, room)
        filler = _Filler(log, self.states, room - self.reserve)
        counts_text = "".join(c + "\n" for c in counts)
        if utf8_len(counts_text) > filler.room:
            counts_text = clip_to_bytes(counts_text.rstrip("\n"), max(0, filler.room - 1)) + "\n"
        filler.used = utf8_len(counts_text) if filler.room > 0 else 0
        self.counts_text = counts_text if filler.room > 0 else ""
        filler.fill()
        self.rest = filler.types_line + "".join(s.summary for s in self.states)
        self.rest += "".join(s.section for s in self.states)
        self.said = self.counts_text + self.rest


def _fit_causes(causes: list[Cause], room: int) -> list[tuple[Cause, str]]:
    """Cause lines come first: the one that fits nowhere whole is cut down to what it names."""
    out: list[tuple[Cause, str]] = []
    used = 0
    for cause in causes:
        line = clip_chars(cause.text, LINE_CHARS) + "\n"
        if used + utf8_len(line) > (room if not out else room // CAUSES_SHARE):
            if out or room <= 1:
                break
            tail = cause.text[max(0, cause.text.find(cause.key)) :]
            core = tail if utf8_len(tail) < room else cause.key
            line = clip_to_bytes(core, room - 1) + "\n"
        out.append((cause, line))
        used += utf8_len(line)
    return out


def _states(log: ParsedLog) -> list[_State]:
    """Failures are one error only when they fail at the same line: the test's own line when
    the traceback shows it, else the raising location; equal messages alone are not enough."""
    seen: dict[tuple[str, str, str], _State] = {}
    similar: set[tuple[str, ...]] = set()
    states = []
    for f in log.failures:
        key = (f.exc_type, f.message, f.site)
        original = seen.get(key) if (f.message or f.exc_type) else None
        raised = f.origin or f.site or (f.locations[-1] if f.locations else "")
        site = (*_signature(f), f.site, raised)
        echo = (f.message or f.exc_type) and site in similar
        similar.add(site)
        blocks = [] if echo else _capped_blocks(log.lines, f)
        state = _State(f, blocks, original is not None, original, bool(echo))
        seen.setdefault(key, state)
        states.append(state)
    return states


def _signature(failure: Failure) -> tuple[str, str]:
    return failure.exc_type, _DIGITS.sub("0", failure.message)


def _message_order(states: list[_State]) -> list[_State]:
    """Distinct errors first (numbers masked), then new messages, then exact repeats."""
    first: list[_State] = []
    signatures: set[tuple[str, str]] = set()
    for state in states:
        signature = _signature(state.failure)
        if signature not in signatures and not state.repeat:
            signatures.add(signature)
            first.append(state)
    chosen = {id(s) for s in first}
    rest = [s for s in states if id(s) not in chosen and not s.repeat]
    return first + rest + [s for s in states if s.repeat]


class _Filler:
    def __init__(self, log: ParsedLog, states: list[_State], room: int):
        self.log, self.states, self.room, self.used = log, states, room, 0
        self.types_line = ""
        self.named: set[str] = set()
        """Exception types the types line names: a line may then leave an implied one out."""
        root = _location_root([s.failure for s in states])
        self.root = root if len(root) <= ID_CHARS else ""

    def fill(self) -> None:
        self._types()
        order = _message_order(self.states)
        ids = sum(utf8_len(_summary_line(s.failure, with_message=False)) for s in self.states)
        if self.used + ids > self.room:
            share = self.used + (self.room - self.used) // FIRST_SHARE
            for state in order:
                self._raise(state, 2, limit=share)
        for state in self.states:
            if state.level == 0:
                self._raise(state, 1)
        for state in order:
            if state.level == 1:
                self._raise(state, 2)
        for state in order:
            if state.level == 2 and not state.repeat:
                self._raise(state, 3)
        for k in range(1, MAX_BLOCKS + 1):
            for state in order:
                if state.level == 2 + k and len(state.blocks) >= k:
                    self._raise(state, 3 + k)

    def _types(self) -> None:
        """One line naming each exception type and how often: cheap, and often the diagnosis.

        Then the directory absolute locations share, so each failure's line can omit it.
        """
        tally: dict[str, int] = {}
        for state in self.states:
            if state.failure.exc_type:
                tally[state.failure.exc_type] = tally.get(state.failure.exc_type, 0) + 1
        if len(self.states) >= 3 and tally:
            line = "errors by type: " + ", ".join(f"{t} x{n}" for t, n in tally.items())
            if len(line) <= COUNTS_CHARS and self._header(line + "\n"):
                self.named = set(tally)
        if self.root and not self._header(f"locations below are relative to {self.root}\n"):
            self.root = ""

    def _header(self, line: str) -> bool:
        if self.used + utf8_len(line) > self.room:
            return False
        self.types_line += line
        self.used += utf8_len(line)
        return True

    def _raise(self, state: _State, level: int, limit: int | None = None) -> None:
        said = state.original is not None and state.original.level >= 2
        summary = _summary_line(
            state.failure, with_message=level >= 2, repeat=said, root=self.root, named=self.named
        )
        section, shown = _section(self.log, state, level) if level >= 3 else ("", 0)
        old = utf8_len(state.summary) + utf8_len(state.section)
        delta = utf8_len(summary) + utf8_len(section) - old
        if self.used + delta <= min(self.room, self.room if limit is None else limit):
            state.summary, state.section, state.level, state.shown = summary, section, level, shown
            self.used += delta


def _capped_blocks(lines: list[str], failure: Failure) -> list[tuple[int, int]]:
    """At most MAX_BLOCKS blocks of BLOCK_LINES lines each, without blank edges."""
    out = []
    for start, end in failure.blocks[:MAX_BLOCKS]:
        while start < end and not lines[start].strip():
            start += 1
        while end > start and not lines[end - 1].strip():
            end -= 1
        if start < end:
            out.append((start, min(end, start + BLOCK_LINES)))
    return out


def _head(failure: Failure) -> str:
    head = f"{failure.label} {failure.id}" if failure.label else failure.id
    return clip_chars(head, ID_CHARS)


SAME_ERROR = "same error as above"


def _summary_line(
    failure: Failure,
    *,
    with_message: bool,
    repeat: bool = False,
    root: str = "",
    named: frozenset[str] | set[str] = frozenset(),
) -> str:
    head = _head(failure)
    if not with_message:
        return head + "\n"
    message = failure.message
    implied = failure.exc_type in named and (
        failure.exc_type == "AssertionError" and message.startswith("assert ")
    )
    if failure.exc_type and not failure.id.endswith(failure.exc_type) and not implied:
        message = f"{failure.exc_type}: {message}" if message else failure.exc_type
    if repeat and len(message) > len(SAME_ERROR):
        message = SAME_ERROR
    tail = _where(failure, root)
    text = f"{head} - {clip_chars(message, MESSAGE_CHARS)}" if message else head
    return text + tail + "\n"


def _where(failure: Failure, root: str) -> str:
    """The test's own line first (with where it raised, when that is elsewhere); without a
    site, the repository locations the id does not already name."""
    if failure.site:
        where = failure.site.removeprefix(root)
        if failure.origin:
            where += f", raised at {failure.origin.removeprefix(root)}"
        return f" (at {where})"
    locations = [
        loc.removeprefix(root) for loc in failure.locations if loc.split(":")[0] not in failure.id
    ][:2]
    return f" (at {', '.join(locations)})" if locations else ""


def _location_root(failures: list[Failure]) -> str:
    """The directory every absolute location shares (the checkout), to be written once."""
    every = [loc for f in failures for loc in (*f.locations, f.site, f.origin) if loc]
    absolute = [loc for loc in every if loc.startswith("/")]
    if len(absolute) < 2:
        return ""
    common = os.path.commonpath([loc.split(":")[0] for loc in absolute])
    if common.count("/") < 2 or common in {loc.split(":")[0] for loc in absolute}:
        return ""
    return common + "/"


def _section(log: ParsedLog, state: _State, level: int) -> tuple[str, int]:
    chosen: set[int] = set(state.failure.details)
    for start, end in state.blocks[: max(0, level - 3)]:
        chosen.update(range(start, end))
    shown = len(chosen - log.noise) + len(chosen & log.noise & log.replaced.keys())
    if not shown:
        return "", 0
    out = [f"\n--- {clip_chars(_head(state.failure), 120)}"]
    prev = None
    for i in sorted(chosen):
        if prev is not None and i != prev + 1:
            out.append("    ...")
        prev = i
        if i in log.replaced:
            out.append(log.replaced[i])
        elif i not in log.noise:
            out.append(clip_chars(log.lines[i], LINE_CHARS))
    return "\n".join(out) + "\n", shown


def _context_lines(log: ParsedLog, state: _State) -> int:
    chosen: set[int] = set(state.failure.details)
    for start, end in state.failure.blocks:
        chosen.update(range(start, end))
    return len(chosen - log.noise)


def _omitted(log: ParsedLog, states: list[_State]) -> list[str]:
    items = []
    no_id = sum(1 for s in states if s.level == 0)
    no_msg = sum(
        1 for s in states if 1 <= s.level < 2 and (s.failure.message or s.failure.exc_type)
    )
    partial = [s for s in states if s.shown < _context_lines(log, s) and not s.echo]
    repeats = sum(1 for s in states if s.echo and _context_lines(log, s))
    if no_id:
        items.append(f"ids of {no_id} failure{'s' if no_id != 1 else ''}")
    if no_msg:
        items.append(f"messages of {no_msg}")
    if partial:
        lines = sum(_context_lines(log, s) - s.shown for s in partial)
        items.append(
            f"context of {len(partial)} failure{'s' if len(partial) != 1 else ''} ({lines} lines)"
        )
    if repeats:
        items.append(f"tracebacks of {repeats} failures repeating an error shown")
    dropped_details = sum(s.failure.details_dropped for s in states)
    if dropped_details:
        items.append(f"{dropped_details} further detail lines")
    for category, n in sorted(log.dropped.items(), key=lambda kv: -kv[1]):
        items.append(f"{n} {category}")
    return items


def _footer_reserve(log: ParsedLog, states: list[_State], cap: int) -> tuple[int, bool]:
    """Bytes to keep free for the footer, sized for the worst case (every number at its max)."""
    n = len(states)
    worst = []
    if n:
        total_lines = sum(_context_lines(log, s) for s in states)
        worst = [
            f"ids of {n} failures",
            f"messages of {n}",
            f"context of {n} failures ({total_lines} lines)",
            f"tracebacks of {n} failures repeating an error shown",
        ]
    dropped_details = sum(s.failure.details_dropped for s in states)
    if dropped_details:
        worst.append(f"{dropped_details} further detail lines")
    worst += [f"{v} {k}" for k, v in log.dropped.items()]
    if not worst:
        return 0, False
    full = utf8_len("[left out: " + "; ".join(worst) + "]")
    if full <= cap // 3:
        return full, False
    if utf8_len(SHORT_FOOTER) <= cap // 3:
        return utf8_len(SHORT_FOOTER), True
    return 0, False


def _last_resort(log: ParsedLog, states: list[_State], cap: int) -> str:
    """Nothing fitted whole: a clipped id, or the first non-blank line, rather than nothing."""
    candidates = [_head(s.failure) for s in states] + [line for line in log.lines if line.strip()]
    if not candidates:
        return clip_to_bytes("(empty output)", cap)
    return clip_to_bytes(candidates[0], cap)
