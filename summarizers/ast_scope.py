"""Symbols of Python, JavaScript and TypeScript files, and what changed between two versions.

What a plan may promise about code ("signature unchanged", "public API unchanged") is checked
on symbols, not text: a symbol's signature is its normalised header, so reformatting is not a
change, and a file that does not parse is reported with where it stops parsing, never a crash.
Whether a change breaks callers is `summarizers.compat`'s judgement, carried by every diff as
`api`: a removed or hidden public symbol breaks, a signature change breaks only when some old
call no longer fits; a body change never does.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from summarizers import ast_js, ast_python
from summarizers.ast_common import (
    LANGUAGES,
    ParseErrorInfo,
    ParseResult,
    Symbol,
    first_error,
    language_for,
    parse_tree,
)
from summarizers.compat import ApiVerdict, judge_api

__all__ = [
    "ParseErrorInfo",
    "ParseResult",
    "Symbol",
    "SymbolDiff",
    "diff_symbols",
    "exports_table",
    "extract_symbols",
    "find_symbol",
    "language_for",
]


def extract_symbols(source: str, language: str, *, every: bool = False) -> ParseResult:
    """Top-level symbols and class/interface members, with the first syntax error if any.

    Symbols are still extracted from a file with errors (tree-sitter recovers), but callers
    comparing APIs should treat `error` as "cannot tell".
    """
    if "\x00" in source:
        return ParseResult([], ParseErrorInfo(1, 1, "binary content, not source"))
    if language not in LANGUAGES:
        return ParseResult([], ParseErrorInfo(1, 1, f"unsupported language {language!r}"))
    tree = parse_tree(source, language)
    extractor = ast_python.symbols if language == "python" else ast_js.symbols
    return ParseResult(extractor(tree.root_node, every=every), first_error(tree.root_node))


def find_symbol(source: str, language: str, name: str) -> Symbol | None:
    """The symbol called `name` ("f", "Class.method"); an unqualified name also finds a member."""
    symbols = extract_symbols(source, language).symbols
    exact = next((s for s in symbols if s.name == name), None)
    if exact or "." in name:
        return exact
    return next((s for s in symbols if s.name.rsplit(".", 1)[-1] == name), None)


@dataclass(frozen=True)
class SymbolDiff:
    added: list[Symbol] = field(default_factory=list)
    removed: list[Symbol] = field(default_factory=list)
    signature_changed: list[tuple[Symbol, Symbol]] = field(default_factory=list)
    body_changed: list[tuple[Symbol, Symbol]] = field(default_factory=list)
    error: ParseErrorInfo | None = None
    """Set when either version does not parse; the lists are then empty (cannot tell)."""
    visibility_changed: list[tuple[Symbol, Symbol]] = field(default_factory=list)
    """Same symbol, public on one side only (e.g. dropped from __all__ or from exports)."""

    api: ApiVerdict = field(default_factory=ApiVerdict)
    """The compatibility judgement of every changed public symbol (`summarizers.compat`)."""

    @property
    def breaking(self) -> list[str]:
        """Why the change breaks callers of the public API, one reason a line."""
        return self.api.reasons()

    @property
    def changed(self) -> bool:
        return bool(
            self.added
            or self.removed
            or self.signature_changed
            or self.body_changed
            or self.visibility_changed
            or self.error
        )


def diff_symbols(old: str, new: str, language: str) -> SymbolDiff:
    before, after = extract_symbols(old, language), extract_symbols(new, language)
    if after.error is not None:
        return SymbolDiff(error=after.error)
    if before.error is not None:
        e = before.error
        return SymbolDiff(error=ParseErrorInfo(e.line, e.column, f"old version: {e.message}"))
    old_by_name = {s.name: s for s in before.symbols}
    new_by_name = {s.name: s for s in after.symbols}
    added = [s for s in after.symbols if s.name not in old_by_name]
    removed = [s for s in before.symbols if s.name not in new_by_name]
    signature, body, visibility = [], [], []
    for name, new_sym in new_by_name.items():
        old_sym = old_by_name.get(name)
        if old_sym is None:
            continue
        if old_sym.signature != new_sym.signature or old_sym.kind != new_sym.kind:
            signature.append((old_sym, new_sym))
        elif old_sym.body_hash != new_sym.body_hash:
            body.append((old_sym, new_sym))
        if old_sym.public != new_sym.public:
            visibility.append((old_sym, new_sym))
    api = judge_api(before.symbols, after.symbols, language)
    return SymbolDiff(added, removed, signature, body, None, visibility, api)


def exports_table(diffs: dict[str, SymbolDiff]) -> str:
    """One markdown table of every public symbol added, removed or changed, file by file."""
    rows: list[tuple[str, str, str, str, str]] = []
    for path in sorted(diffs):
        d = diffs[path]
        if d.error is not None:
            rows.append((path, "", "does not parse", "", str(d.error)))
            continue
        rows += [(path, s.name, "removed", s.signature, "") for s in d.removed if s.public]
        rows += [(path, s.name, "added", "", s.signature) for s in d.added if s.public]
        rows += [
            (path, n.name, "signature changed", o.signature, n.signature)
            for o, n in d.signature_changed
            if o.public or n.public
        ]
        rows += [
            (
                path,
                n.name,
                "now public" if n.public else "no longer public",
                o.signature,
                n.signature,
            )
            for o, n in d.visibility_changed
        ]
        rows += [(path, n.name, "body changed", "", "") for o, n in d.body_changed if n.public]
    if not rows:
        return "No exported symbols changed."
    lines = ["| file | symbol | change | before | after |", "|---|---|---|---|---|"]
    lines += ["| " + " | ".join(_cell(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def _cell(text: str) -> str:
    text = text.replace("|", "\\|").replace("\n", " ")
    return f"`{text}`" if text and any(ch in text for ch in "()<>*_") else text
