"""The symbols family: signatures and public APIs compared between the checkpoint and now
with tree-sitter (`signature_unchanged`, `signature_compatible`, `public_api_*`)."""

from __future__ import annotations

from dataclasses import dataclass

from coder.checks.base import Check, VerifyEnv, at_checkpoint, current_text
from contracts import invariants as inv
from contracts.validation import CompiledStep
from sandbox.changes import worktree_files
from summarizers.ast_scope import (
    Symbol,
    SymbolDiff,
    diff_symbols,
    extract_symbols,
    language_for,
)
from summarizers.compat import judge_symbol
from summarizers.definitions import (
    compared,
    definitions,
    duplicates_note,
    public_listing,
    twice_note,
)


@dataclass(frozen=True)
class _SymbolSides:
    """Where a signature invariant's symbol was found at the checkpoint, and both versions."""

    rel: str
    language: str
    old: Symbol
    before: str
    after: str | None
    """The file now; None when it was deleted or cannot be read."""
    note: str = ""
    """Said when the name is defined more than once in the file: which definition counted."""


def _find_at_checkpoint(
    symbol: str, file: str | None, step: CompiledStep, env: VerifyEnv
) -> _SymbolSides | None:
    files = [file] if file else _candidate_files(step, env)
    for rel in files:
        language = language_for(rel)
        before = at_checkpoint(env, rel)
        if language is None or before is None:
            continue
        found = definitions(before, language, symbol)
        if found:
            after = current_text(env, rel)
            now = definitions(after, language, symbol) if after is not None else []
            note = twice_note(symbol, rel, found, "at the checkpoint") + twice_note(
                symbol, rel, now, "now"
            )
            return _SymbolSides(rel, language, compared(found), before, after, note)
    return None


def _at(rel: str, symbol: Symbol) -> str:
    return f"{rel}:{symbol.line}"


def _not_found(kind: str, symbol: str, file: str | None) -> Check:
    where = file or "the step's files or the repository"
    return Check(
        kind, "failed", f"symbol {symbol} not found in {where} at the checkpoint", detail=symbol
    )


def check_signature(invariant: inv.SignatureUnchanged, step: CompiledStep, env: VerifyEnv) -> Check:
    kind, symbol = "signature_unchanged", invariant.symbol
    sides = _find_at_checkpoint(symbol, invariant.file, step, env)
    if sides is None:
        return _not_found(kind, symbol, invariant.file)
    old, rel = sides.old, sides.rel
    now = definitions(sides.after, sides.language, symbol) if sides.after is not None else []
    if not now:
        gone = f"{symbol} ({_at(rel, old)} at the checkpoint) was removed from {rel}"
        return Check(kind, "failed", gone + sides.note, detail=symbol)
    new = compared(now)
    where = f"{symbol} in {rel} (line {old.line} at the checkpoint, line {new.line} now)"
    if new.signature != old.signature:
        return Check(
            kind,
            "failed",
            f"{where} changed:\n  before: {old.signature}\n  after:  {new.signature}{sides.note}",
            detail=symbol,
        )
    return Check(kind, "passed", f"{where}: {new.signature}{sides.note}", detail=symbol)


def check_signature_compatible(
    invariant: inv.SignatureCompatible, step: CompiledStep, env: VerifyEnv
) -> Check:
    """Every call the old signature accepted must still work (`summarizers.compat`)."""
    kind, symbol = "signature_compatible", invariant.symbol
    sides = _find_at_checkpoint(symbol, invariant.file, step, env)
    if sides is None:
        return _not_found(kind, symbol, invariant.file)
    if sides.after is None:
        return Check(kind, "failed", f"{sides.rel} was deleted", detail=symbol)
    after = extract_symbols(sides.after, sides.language)
    if after.error is not None:
        return Check(kind, "failed", f"{sides.rel} does not parse: {after.error}", detail=symbol)
    before = {s.name: s for s in extract_symbols(sides.before, sides.language).symbols}
    now = {s.name: s for s in after.symbols}
    name = sides.old.name
    verdict = judge_symbol(name, before, now, sides.language)
    new = now.get(name)
    lines = f"line {sides.old.line} at the checkpoint" + (f", line {new.line} now" if new else "")
    evidence = f"{name} in {sides.rel} ({lines}): {verdict.text()}"
    if new is not None and new.signature != sides.old.signature:
        evidence += f"\n  before: {sides.old.signature}\n  after:  {new.signature}"
    evidence += sides.note
    return Check(kind, "passed" if verdict.compatible else "failed", evidence, detail=symbol)


def _file_diff(kind: str, rel: str, env: VerifyEnv) -> SymbolDiff | Check:
    """The symbol diff of one file since the checkpoint, or the failed Check saying why not."""
    language = language_for(rel)
    before, after = at_checkpoint(env, rel), current_text(env, rel)
    if language is None:
        return Check(kind, "failed", f"{rel}: no parser for this file type", detail=rel)
    if before is None:
        return Check(kind, "failed", f"{rel} did not exist at the checkpoint", detail=rel)
    if after is None:
        return Check(kind, "failed", f"{rel} was deleted", detail=rel)
    diff = diff_symbols(before, after, language)
    if diff.error:
        return Check(kind, "failed", f"{rel} does not parse: {diff.error}", detail=rel)
    return diff


def check_public_api(
    invariant: inv.PublicApiUnchanged, step: CompiledStep, env: VerifyEnv
) -> Check:
    kind, rel = "public_api_unchanged", invariant.file
    diff = _file_diff(kind, rel, env)
    if isinstance(diff, Check):
        return diff
    broken = [
        f"removed {s.name} (line {s.line} at the checkpoint)" for s in diff.removed if s.public
    ]
    broken += [
        f"changed {o.name} (line {o.line} → {n.line}): {o.signature} → {n.signature}"
        for o, n in diff.signature_changed
        if o.public
    ]
    twice = _defined_twice(rel, env)
    if broken:
        return Check(kind, "failed", f"{rel}: " + "; ".join(broken) + twice, detail=rel)
    return Check(kind, "passed", f"{rel}: unchanged, {_public_count(rel, env)}{twice}", detail=rel)


def check_public_api_compatible(
    invariant: inv.PublicApiCompatible, step: CompiledStep, env: VerifyEnv
) -> Check:
    """No public symbol removed or made private; every changed public signature compatible."""
    kind, rel = "public_api_compatible", invariant.file
    diff = _file_diff(kind, rel, env)
    if isinstance(diff, Check):
        return diff
    twice = _defined_twice(rel, env)
    if diff.breaking:
        return Check(
            kind, "failed", f"{rel} breaks callers: " + "; ".join(diff.breaking) + twice, detail=rel
        )
    compatible = [f"`{n}`: {v.text()}" for n, v in diff.api.compatible.items()]
    if compatible:
        evidence = f"{rel}: {len(compatible)} compatible change(s): " + "; ".join(compatible)
    else:
        evidence = f"{rel}: unchanged, {_public_count(rel, env)}"
    return Check(kind, "passed", evidence + twice, detail=rel)


def _public_count(rel: str, env: VerifyEnv) -> str:
    language, text = language_for(rel), current_text(env, rel)
    return public_listing(text, language) if language and text is not None else "public symbols"


def _defined_twice(rel: str, env: VerifyEnv) -> str:
    language, text = language_for(rel), current_text(env, rel)
    return duplicates_note(rel, text, language) if language and text is not None else ""


def _candidate_files(step: CompiledStep, env: VerifyEnv) -> list[str]:
    changed = [c.path for c in env.checkpoints.changes_since(env.checkpoint_sha)]
    rest = [f for f in worktree_files(env.root) if language_for(f) and f not in changed]
    return changed + rest
