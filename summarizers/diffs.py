"""A patch as the model or a reviewer should see it within a token budget.

Always the per-file stat (added/removed lines, renames, binary and mode changes, new and
deleted files); then the hunks themselves in file order while they fit, saying how many did not.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field

import unidiff

from summarizers.tokens import byte_cap, clip_to_bytes, estimate_tokens, utf8_len

_MODE = re.compile(r"^(old|new) mode (\d+)$", re.MULTILINE)
_NEW_MODE = re.compile(r"^new file mode (\d+)$", re.MULTILINE)


LEFT_OUT_FILES = 4


@dataclass(frozen=True)
class FileStat:
    path: str
    status: str
    """added | deleted | modified | renamed"""
    added: int = 0
    removed: int = 0
    old_path: str | None = None
    binary: bool = False
    old_mode: str | None = None
    new_mode: str | None = None


@dataclass(frozen=True)
class DiffSummary:
    text: str
    files: list[FileStat] = field(default_factory=list)
    hunks_total: int = 0
    hunks_shown: int = 0
    error: str | None = None
    """Set when the patch could not be parsed; `text` is then the patch cut to the budget."""


def summarize_diff(patch: str, *, budget: int = 1500) -> DiffSummary:
    cap = byte_cap(budget)
    if not patch.strip():
        return DiffSummary(text=clip_to_bytes("(empty diff)", cap))
    try:
        patch_set = unidiff.PatchSet(patch)
    except (unidiff.UnidiffParseError, ValueError) as exc:
        return DiffSummary(text=clip_to_bytes(patch, cap), error=f"unparseable patch: {exc}")
    files = [_stat(f) for f in patch_set]
    hunks = [(f, str(h)) for f, pf in zip(files, patch_set, strict=True) for h in pf]
    table = _table(files)
    if utf8_len(table) > cap:
        table = clip_to_bytes(table, cap)
        return DiffSummary(table, files, len(hunks), 0)
    shown = _fit(hunks, cap - utf8_len(table))
    if len(shown) < len(hunks):
        note = _left_out(hunks, [])
        shown = _fit(hunks, cap - utf8_len(table) - utf8_len(note))
    text = table + _render_hunks(shown)
    note = _left_out(hunks, shown)
    if len(shown) < len(hunks) and utf8_len(text + note) <= cap:
        text += note
    if estimate_tokens(text) > budget:
        text = clip_to_bytes(text, cap)
    return DiffSummary(text, files, len(hunks), len(shown))


def _left_out(hunks: list[tuple[FileStat, str]], shown: list[tuple[FileStat, str]]) -> str:
    """Which files' hunks are missing, so a reader knows what the summary does not show:
    every such file by name (a retry restoring part of an attempt must be able to name it),
    with its count of hunks for the first few."""
    kept = {id(h) for h in shown}
    missing = Counter(pair[0].path for pair in hunks if id(pair) not in kept)
    names = [
        f"{path} ({n})" if i < LEFT_OUT_FILES else path
        for i, (path, n) in enumerate(missing.items())
    ]
    left = len(hunks) - len(shown)
    return f"\n[{left} of {len(hunks)} hunks left out: {', '.join(names)}]"


def _fit(hunks: list[tuple[FileStat, str]], room: int) -> list[tuple[FileStat, str]]:
    """Hunks in file order that fit `room` bytes, skipping any single one that is too big."""
    shown: list[tuple[FileStat, str]] = []
    used = 0
    for stat, hunk in hunks:
        header = 0 if shown and shown[-1][0] is stat else utf8_len(_file_header(stat))
        cost = utf8_len(hunk.rstrip("\n")) + 1 + header
        if used + cost <= room:
            shown.append((stat, hunk))
            used += cost
    return shown


def _stat(pf: unidiff.PatchedFile) -> FileStat:
    info = str(pf.patch_info or "")
    modes = dict((m.group(1), m.group(2)) for m in _MODE.finditer(info))
    new_file = _NEW_MODE.search(info)
    if pf.is_added_file:
        status = "added"
    elif pf.is_removed_file:
        status = "deleted"
    elif pf.is_rename:
        status = "renamed"
    else:
        status = "modified"
    old_path = _strip_prefix(pf.source_file) if pf.is_rename else None
    return FileStat(
        path=pf.path,
        status=status,
        added=pf.added,
        removed=pf.removed,
        old_path=old_path,
        binary=pf.is_binary_file,
        old_mode=modes.get("old"),
        new_mode=modes.get("new")
        or (new_file.group(1) if new_file and new_file.group(1) != "100644" else None),
    )


def _strip_prefix(path: str) -> str:
    return path[2:] if path.startswith(("a/", "b/")) else path


_LETTER = {"added": "A", "deleted": "D", "modified": "M", "renamed": "R"}


def _table(files: list[FileStat]) -> str:
    added = sum(f.added for f in files)
    removed = sum(f.removed for f in files)
    lines = [f"{len(files)} file{'s' if len(files) != 1 else ''} changed, +{added} -{removed}"]
    for f in files:
        name = f"{f.old_path} -> {f.path}" if f.old_path else f.path
        notes = []
        if f.binary:
            notes.append("binary")
        if f.old_mode and f.new_mode:
            notes.append(f"mode {f.old_mode} -> {f.new_mode}")
        elif f.new_mode:
            notes.append(f"mode {f.new_mode}")
        counts = "" if f.binary else f" +{f.added} -{f.removed}"
        extra = f" ({', '.join(notes)})" if notes else ""
        lines.append(f"{_LETTER[f.status]} {name}{counts}{extra}")
    return "\n".join(lines) + "\n"


def _file_header(stat: FileStat) -> str:
    return f"\n--- {stat.path}\n"


def _render_hunks(shown: list[tuple[FileStat, str]]) -> str:
    out: list[str] = []
    current = None
    for stat, hunk in shown:
        if stat is not current:
            out.append(_file_header(stat))
            current = stat
        out.append(hunk.rstrip("\n") + "\n")
    return "".join(out)
