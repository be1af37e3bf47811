"""From two versions of a file to the report's symbol changes, and from a changed public symbol
to the places in the repository that use it.

Whether a change may break callers is `summarizers.compat`'s judgement (the verifier's too):
a public symbol removed or made private breaks them, a changed signature only when some call
the old one accepted no longer fits. Each judged change carries its verdict and reasons.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from coder.ci.report import CallSite, SymbolChange, SymbolChangeKind
from summarizers.ast_scope import Symbol, diff_symbols, language_for
from summarizers.compat import ApiVerdict
from summarizers.references import find_references
from summarizers.repofiles import read_beneath

MAX_CALL_SITES = 20
MAX_LINE_CHARS = 160


@dataclass(frozen=True)
class FileSymbols:
    language: str | None
    changes: list[SymbolChange] = field(default_factory=list)
    error: str | None = None
    """Why the symbols of this file could not be compared (a side does not parse)."""


def file_symbol_changes(path: str, old: str | None, new: str | None) -> FileSymbols:
    """Symbol changes between two versions of one file; None means the file is absent there."""
    language = language_for(path)
    if language is None:
        return FileSymbols(None)
    diff = diff_symbols(old or "", new or "", language)
    if diff.error is not None:
        return FileSymbols(language, error=f"cannot compare symbols: {diff.error}")
    changes = [_one(s, "added", public=s.public) for s in diff.added]
    changes += [_one(s, "removed", public=s.public) for s in diff.removed]
    changes += [
        _pair(o, n, "signature_changed", public=o.public) for o, n in diff.signature_changed
    ]
    changes += [_pair(o, n, "body_changed", public=n.public) for o, n in diff.body_changed]
    for o, n in diff.visibility_changed:
        kind: SymbolChangeKind = "made_private" if o.public else "made_public"
        changes.append(_pair(o, n, kind, public=True))
    if is_api_path(path):
        changes = [_judged(c, diff.api) for c in changes]
    changes.sort(key=lambda c: (c.line or 0, c.name))
    return FileSymbols(language, changes)


_NOT_API_DIRS = frozenset(
    {"test", "tests", "__tests__", "testing", "examples", "example", "docs", "benchmarks"}
)
_NOT_API_FILES = frozenset({"setup.py", "conftest.py", "noxfile.py"})
_TEST_NAME = re.compile(r"^(test_.*\.py|.*_test\.py|.*\.(test|spec)\.[cm]?[jt]sx?)$")


def is_api_path(path: str) -> bool:
    """A file others import: not a test (by name or under a test directory), an example, a
    build script, or a private Python module (`_compat.py`, `_internal/`). Symbols of the
    others are listed but never judged breaking."""
    *dirs, name = path.split("/")
    if name in _NOT_API_FILES or _TEST_NAME.match(name) or _NOT_API_DIRS.intersection(dirs):
        return False
    if name.endswith((".py", ".pyi")):
        parts = [*dirs, name.rsplit(".", 1)[0]]
        return not any(p.startswith("_") and not p.startswith("__") for p in parts)
    return True


def _judged(change: SymbolChange, api: ApiVerdict) -> SymbolChange:
    """The change with the file's verdict on its symbol, if the API judgement covered it."""
    if change.change in ("body_changed", "made_public"):
        return change
    verdict = api.breaking.get(change.name) or api.compatible.get(change.name)
    if verdict is None:
        return change
    return change.model_copy(
        update={
            "compatible": verdict.compatible,
            "reasons": list(verdict.reasons),
            "notes": list(verdict.notes),
            "extended": verdict.extended,
        }
    )


def call_sites(
    tree: Path, name: str, *, defined_in: str, definition_line: int | None
) -> tuple[list[CallSite], int]:
    """Where `name` (its last dotted part) is used at head, without its own definition;
    at most MAX_CALL_SITES listed, plus how many more there are."""
    found = [
        (path, line)
        for path, line in find_references(tree, name)
        if not (path == defined_in and line == definition_line)
    ]
    listed = [
        CallSite(path=path, line=line, text=_line_text(tree, path, line))
        for path, line in found[:MAX_CALL_SITES]
    ]
    return listed, max(0, len(found) - MAX_CALL_SITES)


def _one(symbol: Symbol, change: SymbolChangeKind, *, public: bool) -> SymbolChange:
    signature = symbol.signature
    return SymbolChange(
        name=symbol.name,
        kind=symbol.kind,
        change=change,
        public=public,
        old_signature=signature if change == "removed" else None,
        new_signature=signature if change != "removed" else None,
        line=symbol.line,
    )


def _pair(old: Symbol, new: Symbol, change: SymbolChangeKind, *, public: bool) -> SymbolChange:
    return SymbolChange(
        name=new.name,
        kind=new.kind,
        change=change,
        public=public,
        old_signature=old.signature,
        new_signature=new.signature,
        line=new.line,
    )


def _line_text(tree: Path, rel: str, line: int) -> str:
    """The line's text, read without following a link (the tree is the pull request's)."""
    data = read_beneath(tree, rel)
    if data is None:
        return ""
    lines = data.decode("utf-8", "replace").splitlines()
    if not 0 < line <= len(lines):
        return ""
    text = lines[line - 1].strip()
    return text if len(text) <= MAX_LINE_CHARS else text[:MAX_LINE_CHARS] + "…"
