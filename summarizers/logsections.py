"""Compact a log made of several sections (`a && b`, npm pre/post hooks, two test sessions
in a row, a CI log of several commands) under one shared budget.

Each section is read with its own format. A green section costs one line (what ran, that it
passed, its counts); the red ones share the rest of the budget, each rendered by priority
(every failing id before any traceback) in a share no larger than it needs, so every red
section's failures are named and each says what it left out. A passing TAP section is never
searched for error-looking lines: `ok 1 - throws TypeError` is a pass.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from summarizers.logformats import generic_log
from summarizers.logformats.model import Failure, ParsedLog
from summarizers.logformats.registry import detect
from summarizers.logformats.render import render
from summarizers.runners.base import Reading
from summarizers.runners.model import FAILED, FAILING, PASSED, SKIPPED
from summarizers.runners.sections import Span
from summarizers.runners.table import RUNNERS
from summarizers.tokens import clip_chars, estimate_tokens

MIN_SHARE = 120
"""Tokens a red section is given at least, budget allowing: room for its ids and a cause."""
SNIFF_FLOOR = 0.5
CONTEXT_LINES = 30
_EXC_TYPE = re.compile(r"^(?:[A-Z]\w*)?(?:Error|Exception)(?: \[\w+\])?$")
_TAIL = "last lines of output"
"""The generic parser's stand-in when it finds no error-looking line: not a failure."""


@dataclass
class _Section:
    span: Span
    lines: list[str]
    parsed: ParsedLog
    reading: Reading | None = None
    runner: str | None = None
    red: bool = False
    header: str = ""
    share: int = 0
    failing: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class SectionsCompacted:
    text: str
    format: str
    failing: list[str]
    omitted: list[str]


def compact_sections(
    lines: list[str], spans: list[Span], budget: int, exit_code: int | None
) -> SectionsCompacted:
    sections = [_read(lines[s.start : s.end], s) for s in spans]
    if exit_code not in (None, 0) and not any(s.red for s in sections):
        last = next((s for s in reversed(sections) if any(x.strip() for x in s.lines)), None)
        if last is not None:  # the command failed and no section says why: the last one did
            last.red = True
            last.parsed = _parse_red(last.lines)
    for n, section in enumerate(sections, 1):
        section.header = _header(section, n, len(sections))
    extra = f"exit code {exit_code}\n" if exit_code not in (None, 0) else ""
    fixed = sum(estimate_tokens(s.header + "\n") for s in sections) + estimate_tokens(extra)
    _share(sections, max(0, budget - fixed - 2 * len(sections)))
    parts: list[str] = []
    omitted: list[str] = []
    for section in sections:
        parts.append(section.header)
        if not section.red:
            continue
        body, left_out = _body(section)
        if body:
            parts.append(body)
        omitted += [f"{_short(section)}: {x}" for x in left_out]
    text = "\n".join(parts) + ("\n" + extra.rstrip("\n") if extra else "")
    formats = [s.runner or s.parsed.format for s in sections]
    failing = [f for s in sections for f in s.failing]
    return SectionsCompacted(text, "+".join(dict.fromkeys(formats)), failing, omitted)


def _read(lines: list[str], span: Span) -> _Section:
    reading, runner = _runner_reading(lines)
    parsed = _parse(lines)
    section = _Section(span, lines, parsed, reading, runner)
    if reading is not None and parsed.format == "generic":
        section.parsed = _from_reading(lines, reading, runner or "")
    if reading is not None:
        section.failing = sorted(k for k, v in reading.outcomes.items() if v in FAILING)
        section.red = bool(section.failing or reading.errors)
    else:
        found = section.parsed.failures
        section.failing = [f.id for f in found if f.label or section.parsed.format != "generic"]
        section.red = bool(section.failing) or any(f.id != _TAIL for f in found)
    if span.exit_code not in (None, 0) and not section.red:
        section.red = True
        section.parsed = _parse_red(lines)
    elif span.exit_code == 0:
        section.red = False
    return section


def _runner_reading(lines: list[str]) -> tuple[Reading | None, str | None]:
    """The best-sniffing runner module's reading, when one recognises the section."""
    best, score = None, SNIFF_FLOOR
    for runner in RUNNERS:
        try:
            s = runner.sniff(lines[:600] + lines[-600:] if len(lines) > 1200 else lines)
        except Exception:  # noqa: BLE001 - a runner module's bug must not lose the log
            continue
        if s >= score and (best is None or s > score):
            best, score = runner, s
    if best is None:
        return None, None
    try:
        return best.read(lines), best.name
    except Exception:  # noqa: BLE001
        return None, None


def runner_parsed(lines: list[str]) -> ParsedLog | None:
    """A log no format parser understood, read by the runner module that recognises it
    (one whose format no parser knows): its failing ids and counts, never its error-looking
    lines (a passing `t.throws(..., TypeError)` is a pass). None when no runner does."""
    reading, runner = _runner_reading(lines)
    if reading is None or not (reading.outcomes or reading.errors):
        return None
    return _from_reading(lines, reading, runner or "")


def _parse(lines: list[str]) -> ParsedLog:
    try:
        return detect(lines).parse(lines)
    except Exception:  # noqa: BLE001 - the boundary promise is "never raises"
        return generic_log.parse(lines)


def _parse_red(lines: list[str]) -> ParsedLog:
    """A red section's own parse, else the generic one (its error-looking lines)."""
    parsed = _parse(lines)
    return parsed if parsed.counts or parsed.failures else generic_log.parse(lines)


def _from_reading(lines: list[str], reading: Reading, runner: str) -> ParsedLog:
    """A runner module's reading as the renderer's input: one failure per failing id, with
    its message and location, then the failures of no test (unhandled errors, ...)."""
    log = ParsedLog(format=runner, lines=lines)
    if reading.counts:
        log.counts = [", ".join(f"{v} {k}" for k, v in reading.counts.items())]
    for ident in sorted(k for k, v in reading.outcomes.items() if v in FAILING):
        said = reading.messages.get(ident, "")
        exc, _, message = said.partition(": ")
        if not message or not _EXC_TYPE.match(exc):
            exc, message = "", said
        where = [reading.locations[ident]] if ident in reading.locations else []
        blocks = _context(lines, ident, message)
        log.failures.append(Failure(ident, "FAILED", exc, message, where, blocks=blocks))
    for error in reading.errors:
        log.failures.append(Failure(error, "ERROR"))
    return log


def _context(lines: list[str], ident: str, message: str) -> list[tuple[int, int]]:
    """Where the log tells a failure's story: from the first line naming its test (its last
    title) or its message, a bounded block."""
    name = ident.rsplit(" > ", 1)[-1]
    probes = [p for p in (message[:80], name) if len(p) >= 4]
    for probe in probes:
        at = next((i for i, line in enumerate(lines) if probe in line), None)
        if at is not None:
            return [(at, min(len(lines), at + CONTEXT_LINES))]
    return []


def _header(section: _Section, n: int, total: int) -> str:
    span = section.span
    name = span.name or ("output" if n == 1 else f"part {n}")
    status = "failed" if section.red else "passed"
    if span.exit_code not in (None, 0):
        status += f" (exit {span.exit_code})"
    counts = "" if section.red else _counts(section)  # a red section's body says them
    said = f"[section {n}/{total}: {clip_chars(name, 100)} ({span.kind}) {status}"
    return said + (f"; {counts}" if counts else "") + "]"


def _counts(section: _Section) -> str:
    if section.reading is not None and section.reading.outcomes:
        tally: dict[str, int] = {}
        for outcome in section.reading.outcomes.values():
            word = FAILED if outcome in FAILING else outcome
            tally[word] = tally.get(word, 0) + 1
        for word, said in section.reading.counts.items():  # two tests of one title: one id
            if word in tally and said > tally[word]:
                tally[word] = said
        order = (FAILED, PASSED, SKIPPED)
        return ", ".join(f"{tally[w]} {w}" for w in order if tally.get(w))
    if section.parsed.counts:
        return clip_chars("; ".join(c.strip() for c in section.parsed.counts), 160)
    return ""


def _share(sections: list[_Section], room: int) -> None:
    """Water-filling: each red section gets what it needs (its whole text, when that is
    small) or an equal part of what is left, whichever is less."""
    red = [s for s in sections if s.red]
    needs = {id(s): estimate_tokens("\n".join(s.lines)) + 8 for s in red}
    left = room
    pending = sorted(red, key=lambda s: needs[id(s)])
    while pending:
        fair = left // len(pending)
        section = pending.pop(0)
        section.share = min(needs[id(section)], max(fair, min(MIN_SHARE, left)))
        left = max(0, left - section.share)


def _body(section: _Section) -> tuple[str, list[str]]:
    whole = "\n".join(section.lines).strip("\n")
    if section.share <= 0:
        return "", [f"{len(section.lines)} lines"]
    if estimate_tokens(whole) <= section.share:
        return whole, []
    rendered = render(section.parsed, section.share)
    return rendered.text, rendered.omitted


def _short(section: _Section) -> str:
    return clip_chars(section.span.name or "output", 40)
