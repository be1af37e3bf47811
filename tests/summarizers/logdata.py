"""Access to the captured real logs in data/ (see data/README.md for how they were made)."""

from __future__ import annotations

from pathlib import Path

DATA = Path(__file__).parent / "data"


def read_log(name: str) -> str:
    return (DATA / name).read_text()


def all_logs() -> list[str]:
    return sorted(p.name for p in DATA.glob("*.log"))
