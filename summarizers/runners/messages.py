"""How each failing test failed, one line per id, from a log format parser's failures: one
reader for the runners whose log formats already parse failures (pytest, unittest, node --test)."""

from __future__ import annotations

import re
from collections.abc import Callable

from summarizers.logformats.model import ParsedLog

_ADDRESS = re.compile(r"\b0x[0-9a-fA-F]{6,}\b")


def failure_messages(
    parse: Callable[[list[str]], ParsedLog],
    lines: list[str],
    ident: Callable[[str], str] = str,
) -> dict[str, str]:
    """Failing id -> "ExcType: message"; memory addresses masked (they differ between two
    runs of the same failure). `ident` turns the parser's id into the runner's stable id."""
    out: dict[str, str] = {}
    try:
        parsed = parse(lines)
    except Exception:  # noqa: BLE001 - a reader never raises on odd input
        return out
    for f in parsed.failures:
        said = f"{f.exc_type}: {f.message}" if f.exc_type and f.message else f.exc_type or f.message
        out.setdefault(ident(f.id), _ADDRESS.sub("0x…", said))
    return out
