"""Access to the captured real logs in data/ (see data/README.md for how they were made)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from summarizers.logs import CompactLog, compact_log

DATA = Path(__file__).parent / "data"


def read_log(name: str) -> str:
    return (DATA / name).read_text()


def all_logs() -> list[str]:
    return sorted(p.name for p in DATA.glob("*.log"))


def summarized(text: str, budget: int, **options: Any) -> CompactLog:
    """`compact_log` made to summarize: at `budget`, or just under the cleaned log's own size
    when the log would fit whole (a log that fits is shown as it is; these tests are about
    what a summary keeps)."""
    whole = compact_log(text, budget=10**9, **options).tokens
    return compact_log(text, budget=min(budget, whole - 1), **options)
