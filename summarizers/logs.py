"""Compact test and build logs to what a model needs to fix the failure, within a token budget.

The pipeline is prepare (strip terminal artefacts) -> detect the format -> parse into counts and
failures -> render by priority under the budget. Every step is a pure function of the text.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from summarizers.causes import find_causes
from summarizers.logformats import generic_log
from summarizers.logformats.model import ParsedLog
from summarizers.logformats.prep import prepare
from summarizers.logformats.registry import FORMATS, detect, get_format
from summarizers.logformats.render import render
from summarizers.tokens import estimate_tokens

DEFAULT_BUDGET = 2000


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
    if not parsed.counts and not parsed.failures:
        parsed = generic_log.parse(lines)
    parsed.drop("repeated lines", prepared.repeated_dropped)
    parsed.causes = find_causes(lines)
    extra = [f"exit code {exit_code}"] if exit_code not in (None, 0) else []
    if not text:
        return CompactLog("", parsed.format, 0, 0)
    rendered = render(parsed, budget, extra)
    text_out = rendered.text
    whole = "\n".join([*lines, *extra])
    if estimate_tokens(whole) <= min(budget, estimate_tokens(text_out)):
        text_out = whole  # the cleaned log itself is no bigger than its summary: keep it all
    return CompactLog(
        text=text_out,
        format=parsed.format,
        raw_tokens=raw_tokens,
        tokens=estimate_tokens(text_out),
        failing=[f.id for f in parsed.failures if f.label or parsed.format != "generic"],
        omitted=rendered.omitted if text_out is rendered.text else [],
    )


_ADDRESS = re.compile(r"\b0x[0-9a-fA-F]{6,}\b")


def failure_messages(text: str) -> dict[str, str]:
    """Failing id -> "ExcType: message", as the log's own format parser reads them: enough to
    tell a test that fails the same way as before from one that now fails differently. Memory
    addresses are masked; they differ between two runs of the same failure."""
    lines = prepare(text).lines
    parsed = _parse(detect(lines).parse, lines)
    out: dict[str, str] = {}
    for f in parsed.failures:
        said = f"{f.exc_type}: {f.message}" if f.exc_type and f.message else f.exc_type or f.message
        out.setdefault(f.id, _ADDRESS.sub("0x…", said))
    return out


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
