"""The intermediate between a log format parser and the budget renderer.

Everything points back into the prepared log by line index, so the renderer can merge a
failure's details with its context without printing a line twice and can say exactly how many
lines it left out.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from summarizers.causes import Cause


@dataclass
class Failure:
    """One failing test, compiler error or lint finding."""

    id: str
    label: str = "FAILED"
    exc_type: str = ""
    message: str = ""
    locations: list[str] = field(default_factory=list)
    details: list[int] = field(default_factory=list)
    """Line indices of the compared values / diff that explain the message."""
    blocks: list[tuple[int, int]] = field(default_factory=list)
    """Context ranges [start, end) of line indices, most useful first."""
    details_dropped: int = 0
    """Detail lines beyond the parser's cap."""
    site: str = ""
    """The test's own line the failure is about (its failing assertion, or its call into the
    code that raised), when the traceback shows frames; two failures are one error only if
    their sites agree, whatever their messages say."""
    origin: str = ""
    """The innermost repository frame, where the exception was raised; "" when it is `site`."""


@dataclass
class ParsedLog:
    format: str
    lines: list[str]
    counts: list[str] = field(default_factory=list)
    failures: list[Failure] = field(default_factory=list)
    dropped: dict[str, int] = field(default_factory=dict)
    """Noise the parser judged not worth showing: category -> number of lines."""
    noise: set[int] = field(default_factory=set)
    """Line indices never worth printing, even inside a context block (runtime internals)."""
    replaced: dict[int, str] = field(default_factory=dict)
    """Line indices printed as other text, e.g. "[12 similar frames dropped]" over a run."""
    causes: list[Cause] = field(default_factory=list)
    """Lines that say why nothing could run (a missing module, ...): kept under every budget."""

    def drop(self, category: str, n: int = 1) -> None:
        if n > 0:
            self.dropped[category] = self.dropped.get(category, 0) + n
