"""Fill a token budget from a parsed log, by priority: counts, failing ids, messages, context.

Each tier is offered to every failure before the next tier starts, so a long log shows every
failing id before any one failure gets its traceback. The footer saying what was left out has
its worst-case size reserved up front, which is what makes "never over budget" exact.
"""

from __future__ import annotations

from dataclasses import dataclass

from summarizers.logformats.model import Failure, ParsedLog
from summarizers.tokens import byte_cap, clip_chars, clip_to_bytes, utf8_len

COUNTS_CHARS = 300
ID_CHARS = 220
MESSAGE_CHARS = 240
LINE_CHARS = 240
MAX_BLOCKS = 12
BLOCK_LINES = 60
SHORT_FOOTER = "[more left out]"


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
    summary: str = ""
    section: str = ""
    level: int = 0  # 0 nothing, 1 id, 2 message, 3 details, 3+k first k context blocks
    shown: int = 0  # context and detail lines printed

    @property
    def shown_blocks(self) -> int:
        return max(0, self.level - 3)


def render(log: ParsedLog, budget: int, extra_counts: list[str] | None = None) -> Rendered:
    cap = byte_cap(budget)
    states = _states(log)
    counts = [clip_chars(c, COUNTS_CHARS) for c in [*log.counts, *(extra_counts or [])] if c]
    counts_text = "".join(c + "\n" for c in counts)
    reserve, short = _footer_reserve(log, states, cap)
    filler = _Filler(log, states, cap - reserve)
    if utf8_len(counts_text) > filler.room:
        counts_text = clip_to_bytes(counts_text.rstrip("\n"), max(0, filler.room - 1)) + "\n"
    filler.used = utf8_len(counts_text) if filler.room > 0 else 0
    counts_text = counts_text if filler.room > 0 else ""
    filler.fill()
    body = counts_text + filler.types_line
    body += "".join(s.summary for s in states) + "".join(s.section for s in states)
    omitted = _omitted(log, states)
    lossy = len(omitted) > len(log.dropped)
    footer = ""
    if omitted and reserve:
        footer = SHORT_FOOTER if short else "[left out: " + "; ".join(omitted) + "]"
    text = (body + footer).rstrip("\n")
    if not text.strip():
        text = _last_resort(log, states, cap)
    if utf8_len(text) > cap:  # unreachable by construction; the budget is a hard promise
        text = clip_to_bytes(text, cap)
    return Rendered(text=text, omitted=omitted, lossy=lossy)


def _states(log: ParsedLog) -> list[_State]:
    seen: set[tuple[str, str]] = set()
    states = []
    for f in log.failures:
        key = (f.exc_type, f.message)
        repeat = bool(f.message or f.exc_type) and key in seen
        seen.add(key)
        blocks = [] if repeat else _capped_blocks(log.lines, f)
        states.append(_State(f, blocks, repeat))
    return states


class _Filler:
    def __init__(self, log: ParsedLog, states: list[_State], room: int):
        self.log, self.states, self.room, self.used = log, states, room, 0
        self.types_line = ""

    def fill(self) -> None:
        for level in (1, 2, 3):
            if level == 2:
                self._types()
            for state in self.states:
                if state.level == level - 1 and not (state.repeat and level == 3):
                    self._raise(state, level)
        for k in range(1, MAX_BLOCKS + 1):
            for state in self.states:
                if state.level == 2 + k and len(state.blocks) >= k:
                    self._raise(state, 3 + k)

    def _types(self) -> None:
        """One line naming each exception type and how often: cheap, and often the diagnosis."""
        tally: dict[str, int] = {}
        for state in self.states:
            if state.failure.exc_type:
                tally[state.failure.exc_type] = tally.get(state.failure.exc_type, 0) + 1
        if len(self.states) < 3 or not tally:
            return
        line = "errors by type: " + ", ".join(f"{t} x{n}" for t, n in tally.items()) + "\n"
        line = clip_chars(line.rstrip("\n"), COUNTS_CHARS) + "\n"
        if self.used + utf8_len(line) <= self.room:
            self.types_line = line
            self.used += utf8_len(line)

    def _raise(self, state: _State, level: int) -> None:
        summary = _summary_line(state.failure, with_message=level >= 2, repeat=state.repeat)
        section, shown = _section(self.log, state, level) if level >= 3 else ("", 0)
        old = utf8_len(state.summary) + utf8_len(state.section)
        delta = utf8_len(summary) + utf8_len(section) - old
        if self.used + delta <= self.room:
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


def _summary_line(failure: Failure, *, with_message: bool, repeat: bool = False) -> str:
    head = _head(failure)
    if not with_message:
        return head + "\n"
    message = failure.message
    if failure.exc_type and not failure.id.endswith(failure.exc_type):
        message = f"{failure.exc_type}: {message}" if message else failure.exc_type
    if repeat and len(message) > len(SAME_ERROR):
        message = SAME_ERROR
    where = [loc for loc in failure.locations if loc.split(":")[0] not in failure.id][:2]
    tail = f" (at {', '.join(where)})" if where else ""
    text = f"{head} - {clip_chars(message, MESSAGE_CHARS)}" if message else head
    return text + tail + "\n"


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
    partial = [s for s in states if s.shown < _context_lines(log, s) and not s.repeat]
    repeats = sum(1 for s in states if s.repeat and _context_lines(log, s))
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
