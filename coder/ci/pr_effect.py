"""What a fix does to the pull request it fixes: per hunk of the PR, kept, changed or reverted.

A fix that makes the tests pass by undoing the PR drops its author's intent; that must be said,
not hidden behind "the tests pass". Three zero-context diffs answer it: the PR (merge base →
head), the fix (head → fix) and their sum (merge base → fix). A PR hunk the fix does not touch
is kept; one it touches is reverted when the sum has nothing left at that place (the lines are
as they were at base), else changed. Each hunk weighs its changed lines (a replaced line
counts once), which is how the sentence counts them. A changed hunk may still be partly
reverted: the sum's lines at that place weigh less than the PR's, and the difference counts
as reverted lines (a lower bound: a fix that also adds lines there hides some of it).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import unidiff
from pydantic import BaseModel, ConfigDict, Field

from coder.ci.gitrefs import git, unified_diff

Fate = Literal["kept", "changed", "reverted"]

BinaryFate = Callable[[str, str], Fate]
"""(path at base, path at head) → the fate of a binary file the PR changed."""


class PrHunk(BaseModel):
    model_config = ConfigDict(extra="forbid")

    path: str
    """The file at head (at base, for a file the PR deleted)."""
    base_line: int
    """First line at base the hunk replaces (for an insertion: the line it goes before)."""
    head_line: int
    lines: int
    """Changed lines of the PR in this hunk: max(removed, added); 1 for a binary file."""
    fate: Fate
    reverted_lines: int = 0
    """Of `lines`, how many are back as at base: all of them when reverted, some when changed."""


class PrEffect(BaseModel):
    model_config = ConfigDict(extra="forbid")

    hunks: list[PrHunk] = Field(default_factory=list)
    outside_lines: int = 0
    """Lines the fix changes where the PR changed nothing."""

    def lines(self, fate: Fate | None = None) -> int:
        return sum(h.lines for h in self.hunks if fate is None or h.fate == fate)

    @property
    def reverted_lines(self) -> int:
        return sum(h.reverted_lines for h in self.hunks)

    @property
    def reverts_all(self) -> bool:
        """Every hunk of the PR is back as it was at base: merging the fix undoes the PR."""
        return bool(self.hunks) and all(h.fate == "reverted" for h in self.hunks)

    @property
    def sentence(self) -> str:
        """One plain sentence, e.g. "this fix reverts 1 of 1 changed lines of the PR"."""
        total, reverted = self.lines(), self.reverted_lines
        if not self.hunks:
            text = "the PR changes no text lines, so there is nothing of it to keep or revert"
        elif self.reverts_all:
            text = (
                f"this fix reverts {reverted} of {total} changed lines of the PR: it undoes the PR"
            )
        elif self.lines("kept") == total:
            text = f"this fix keeps all {total} changed lines of the PR"
        else:
            counts = [
                f"{verb} {n}"
                for verb, fate in (
                    ("keeps", "kept"),
                    ("changes", "changed"),
                    ("reverts", "reverted"),
                )
                if (n := sum(1 for h in self.hunks if h.fate == fate))
            ]
            said = ", ".join(counts[:-1]) + f" and {counts[-1]}" if len(counts) > 1 else counts[0]
            text = (
                f"this fix reverts {reverted} of {total} changed lines of the PR; "
                f"of its {len(self.hunks)} hunk{'s' if len(self.hunks) != 1 else ''} it {said}"
            )
        if self.outside_lines:
            text += f"; it also changes {self.outside_lines} line(s) the PR did not touch"
        return text


@dataclass(frozen=True)
class _Span:
    """Lines [start, end) of one side of a hunk; start == end is an insertion point."""

    start: int
    end: int

    def meets(self, other: _Span) -> bool:
        """Overlap; an insertion meets a range only strictly inside it, or the same point."""
        if self.start == self.end and other.start == other.end:
            return self.start == other.start
        if self.start == self.end:
            return other.start < self.start < other.end
        if other.start == other.end:
            return self.start < other.start < self.end
        return self.start < other.end and other.start < self.end

    def touches(self, other: _Span) -> bool:
        """`meets`, or an insertion at either edge: what counts as "something left here"."""
        if self.meets(other):
            return True
        if self.start == self.end or other.start == other.end:
            return self.start <= other.end and other.start <= self.end
        return False


@dataclass(frozen=True)
class _Hunk:
    old: _Span
    new: _Span

    @property
    def weight(self) -> int:
        return max(self.old.end - self.old.start, self.new.end - self.new.start)


@dataclass
class _File:
    old_path: str | None
    new_path: str | None
    hunks: list[_Hunk]
    binary: bool


def pr_effect(repo: Path, since: str, head: str, fix: str) -> PrEffect:
    """What `fix` (a descendant of `head`) does to the PR `since..head`."""

    def binary_fate(base_path: str, head_path: str) -> Fate:
        ours = _blob(repo, fix, head_path)
        if ours == _blob(repo, since, base_path):
            return "reverted"
        return "kept" if ours == _blob(repo, head, head_path) else "changed"

    return classify(
        _diff(repo, since, head), _diff(repo, head, fix), _diff(repo, since, fix), binary_fate
    )


def classify(
    pr_patch: str, fix_patch: str, net_patch: str, binary_fate: BinaryFate | None = None
) -> PrEffect:
    """The pure part: three `-U0` patches to the PR's fate, hunk by hunk (binary files, which
    have no lines, by `binary_fate`, or left out without it)."""
    fix = {_old_key(f): f for f in _parse(fix_patch)}
    net = {_old_key(f): f for f in _parse(net_patch)}
    effect = PrEffect()
    touched: set[tuple[str, int]] = set()
    for f in _parse(pr_patch):
        head_key, base_key = _new_key(f), _old_key(f)
        if f.binary:
            if binary_fate is not None:
                fate = binary_fate(base_key, head_key)
                effect.hunks.append(
                    PrHunk(
                        path=head_key,
                        base_line=1,
                        head_line=1,
                        lines=1,
                        fate=fate,
                        reverted_lines=int(fate == "reverted"),
                    )
                )
            continue
        fix_hunks = fix[head_key].hunks if head_key in fix else []
        net_hunks = net[base_key].hunks if base_key in net else []
        for hunk in f.hunks:
            hits = {(head_key, k) for k, h in enumerate(fix_hunks) if h.old.meets(hunk.new)}
            touched |= hits
            fate, reverted = _fate(hunk, bool(hits), net_hunks)
            effect.hunks.append(
                PrHunk(
                    path=head_key,
                    base_line=hunk.old.start,
                    head_line=hunk.new.start,
                    lines=hunk.weight,
                    fate=fate,
                    reverted_lines=reverted,
                )
            )
    effect.outside_lines = sum(
        h.weight for key, f in fix.items() for k, h in enumerate(f.hunks) if (key, k) not in touched
    )
    return effect


def _fate(hunk: _Hunk, touched: bool, net_hunks: list[_Hunk]) -> tuple[Fate, int]:
    """The hunk's fate and how many of its lines are back as at base."""
    if not touched:
        return "kept", 0
    left = sum(h.weight for h in net_hunks if h.old.touches(hunk.old))
    if not left:
        return "reverted", hunk.weight
    return "changed", max(0, hunk.weight - left)


def _diff(repo: Path, old: str, new: str) -> str:
    return unified_diff(repo, old, new, context=0)


def _blob(repo: Path, commit: str, path: str) -> str | None:
    out = git(repo, "rev-parse", "--verify", "--quiet", f"{commit}:{path}", check=False).strip()
    return out or None


def _parse(patch: str) -> Iterable[_File]:
    if not patch.strip():
        return []
    files = []
    for pf in unidiff.PatchSet(patch):
        hunks = [
            _Hunk(_span(h.source_start, h.source_length), _span(h.target_start, h.target_length))
            for h in pf
        ]
        files.append(
            _File(_path(pf.source_file), _path(pf.target_file), hunks, bool(pf.is_binary_file))
        )
    return files


def _span(start: int, length: int) -> _Span:
    """Unified diff's `-s,0` means "after line s": the insertion point is s + 1."""
    return _Span(start + 1, start + 1) if length == 0 else _Span(start, start + length)


def _path(name: str | None) -> str | None:
    if not name or name == "/dev/null":
        return None
    return name[2:] if name.startswith(("a/", "b/")) else name


def _old_key(f: _File) -> str:
    return f.old_path or f.new_path or ""


def _new_key(f: _File) -> str:
    return f.new_path or f.old_path or ""
