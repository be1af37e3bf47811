"""Compact test and build logs to what a model needs to fix the failure, within a token budget.

The pipeline is prepare (strip terminal artefacts) -> detect the format -> parse into counts and
failures -> render by priority under the budget. Every step is a pure function of the text.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from summarizers.causes import find_causes
from summarizers.logformats import generic_log
from summarizers.logformats.model import ParsedLog
from summarizers.logformats.prep import prepare, strip_terminal
from summarizers.logformats.registry import FORMATS, detect, get_format
from summarizers.logformats.render import render
from summarizers.logsections import compact_sections, runner_parsed
from summarizers.runners import tap_log
from summarizers.runners.sections import split_sections
from summarizers.tokens import byte_cap, clip_chars, clip_to_bytes, estimate_tokens

DEFAULT_BUDGET = 2000
__all__ = [
    "DEFAULT_BUDGET",
    "CompactLog",
    "compact_command_text",
    "compact_log",
    "known_formats",
    "strip_terminal",
]


@dataclass(frozen=True)
class CompactLog:
    text: str
    format: str
    raw_tokens: int
    tokens: int
    failing: list[str] = field(default_factory=list)
    """Every failing id the parser found, whether or not it fitted in `text`."""
    omitted: list[str] = field(default_factory=list)
    """What `text` leaves out, as the footer says it ("context of 3 failures (40 lines)", ...)."""


def compact_log(
    text: str,
    *,
    budget: int = DEFAULT_BUDGET,
    exit_code: int | None = None,
    format: str | None = None,
) -> CompactLog:
    """The log as the model should see it: at most `budget` tokens, never empty if `text` isn't.

    `format` forces a parser by name (see `known_formats()`); an unknown name raises
    `UnknownLogFormat`, which lists the known ones. Otherwise the format is sniffed.
    """
    raw_tokens = estimate_tokens(text)
    prepared = prepare(text)
    lines = prepared.lines
    fmt = get_format(format) if format else detect(lines)
    parsed = _parse(fmt.parse, lines)
    if not format and (
        _runner_reads(parsed.format, lines) or not parsed.counts and not parsed.failures
    ):
        parsed = runner_parsed(lines) or _generic(parsed, lines)
    parsed.drop("repeated lines", prepared.repeated_dropped)
    parsed.causes = find_causes(lines)
    extra = [f"exit code {exit_code}"] if exit_code not in (None, 0) else []
    if not text:
        return CompactLog("", parsed.format, 0, 0)
    failing = [f.id for f in parsed.failures if f.label or parsed.format != "generic"]
    whole = _whole(lines, parsed.progress, extra, budget)
    if whole is not None:  # it fits: the model sees the log itself, not a summary of it
        return CompactLog(whole, parsed.format, raw_tokens, estimate_tokens(whole), failing)
    spans = split_sections(lines) if format is None else []
    if len(spans) > 1:  # several commands: each read with its own format, one shared budget
        done = compact_sections(lines, spans, budget, exit_code)
        text = clip_to_bytes(done.text, byte_cap(budget))
        tokens = estimate_tokens(text)
        return CompactLog(text, done.format, raw_tokens, tokens, done.failing, done.omitted)
    rendered = render(parsed, budget, extra)
    return CompactLog(
        text=rendered.text,
        format=parsed.format,
        raw_tokens=raw_tokens,
        tokens=estimate_tokens(rendered.text),
        failing=failing,
        omitted=rendered.omitted,
    )


def _whole(lines: list[str], progress: set[int], extra: list[str], budget: int) -> str | None:
    """The cleaned log, progress dots left out, if it fits `budget`; decided from the line
    lengths first, so a big log costs no copy."""
    chars = sum(map(len, lines)) + len(lines) - sum(len(lines[i]) + 1 for i in progress)
    if chars > 4 * budget:  # a character is at least a byte: it cannot fit
        return None
    kept = [x for i, x in enumerate(lines) if i not in progress] if progress else lines
    whole = "\n".join([*kept, *extra])
    return whole if whole.strip() and estimate_tokens(whole) <= budget else None


def _runner_reads(format: str, lines: list[str]) -> bool:
    """A runner module reads the log better than its format parser: where no format parser
    knows the log (generic), and where the format's ids would carry durations."""
    if format == "generic":
        return True
    return format == tap_log.NAME and tap_log.ids_carry_durations(lines)


def _generic(parsed: ParsedLog, lines: list[str]) -> ParsedLog:
    return parsed if parsed.format == "generic" else generic_log.parse(lines)


def known_formats() -> list[str]:
    return [f.name for f in FORMATS]


def compact_command_text(text: str, budget: int = DEFAULT_BUDGET) -> str:
    """What `coder compact` prints: the compacted log, then one footer line with the sizes."""
    result = compact_log(text, budget=budget)
    footer = (
        f"[coder compact: {result.format} log, {result.raw_tokens} tokens raw -> "
        f"{result.tokens} compacted (budget {budget}, estimate ceil(utf8 bytes / 4))]"
    )
    return f"{result.text}\n{footer}" if result.text else footer


def _parse(parse: Callable[[list[str]], ParsedLog], lines: list[str]) -> ParsedLog:
    """A parser bug must not take the observation away from the model: fall back to generic."""
    try:
        return parse(lines)
    except Exception:  # noqa: BLE001 - the boundary promise is "never raises"
        return generic_log.parse(lines)


def summary_line(text: str, *, limit: int = 160) -> str:
    """The one line that says how a command ended: the log's counts ("2 failed, 5 passed in
    0.31s"), else its last non-blank line. What stays of an output the context masks."""
    lines = prepare(text).lines
    parsed = _parse(detect(lines).parse, lines)
    if parsed.counts:
        return clip_chars("; ".join(c.strip() for c in parsed.counts), limit)
    last = next((line.strip() for line in reversed(lines) if line.strip()), "")
    return clip_chars(last, limit)
