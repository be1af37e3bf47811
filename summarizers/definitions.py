"""Which definition a signature or API check compared, said in its evidence.

A name can be defined twice in one file (a stale copy left above the real one, `@overload`
stubs before the implementation). In Python and JavaScript the later definition replaces the
earlier at import, so it is the one callers get, and the one the checks compare
(`ast_common.effective`: a property's setter completes its getter, it does not replace it);
the evidence says so, with every line, instead of passing silently on one of them.
"""

from __future__ import annotations

from summarizers.ast_common import Symbol, effective
from summarizers.ast_scope import extract_symbols

__all__ = ["compared", "definitions", "duplicates_note", "public_listing", "twice_note"]

SHOWN = 8


def definitions(source: str, language: str, name: str) -> list[Symbol]:
    """Every definition of `name` in the file, in order ("f", "Class.method"; an unqualified
    name also finds a member, of the first class that has it). `compared(...)` picks the one
    that takes effect."""
    symbols = extract_symbols(source, language, every=True).symbols
    exact = [s for s in symbols if s.name == name]
    if exact or "." in name:
        return exact
    members = [s for s in symbols if s.name.rsplit(".", 1)[-1] == name]
    return [s for s in members if s.name == members[0].name]


def compared(found: list[Symbol]) -> Symbol:
    """The definition that takes effect among `found` (not empty)."""
    return effective(found)[0]


def twice_note(name: str, rel: str, found: list[Symbol], when: str) -> str:
    """One line when `found` holds more than one definition, else ""."""
    if len(found) < 2:
        return ""
    lines = ", ".join(str(s.line) for s in found)
    return (
        f"\n{name} is defined {len(found)} times in {rel} {when} (lines {lines}); compared "
        f"line {compared(found).line}, the definition that takes effect"
    )


def duplicates_note(rel: str, source: str, language: str) -> str:
    """A line for each name defined more than once in the file."""
    at: dict[str, list[Symbol]] = {}
    for symbol in extract_symbols(source, language, every=True).symbols:
        at.setdefault(symbol.name, []).append(symbol)
    return "".join(twice_note(name, rel, found, "now") for name, found in at.items())


def public_listing(source: str, language: str) -> str:
    """The public definitions compared, by name and line ("2 public symbol(s): add (line 1),
    scale (line 5)")."""
    public = [s for s in extract_symbols(source, language).symbols if s.public]
    if not public:
        return "no public symbol"
    shown = ", ".join(f"{s.name} (line {s.line})" for s in public[:SHOWN])
    more = f" and {len(public) - SHOWN} more" if len(public) > SHOWN else ""
    return f"{len(public)} public symbol(s): {shown}{more}"
