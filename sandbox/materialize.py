"""Putting the selected ignored paths into the worktree, ready for a sandbox mode.

Small files are copied. Directories (and big files) are never copied: under bwrap the
worktree gets an empty mount point that the view binds the user's directory over, read-only;
in `none` mode it gets a real directory of symlinks into the user's copy (a real directory,
so an ignore rule written `node_modules/` still matches it; a symlink would not be a
directory to git, and would show up as a change). Nothing placed may look new to git in the
worktree, or the harness would take it for the step's work: a directory git neither tracks
nor ignores in the checkout gets a `.gitignore` of `*` at its top in the worktree (what
`python -m venv` writes there since Python 3.13), so git ignores it there as an ignored one
would be; then git is asked, and what it would still report (say, ignored only by a rule in
an uncommitted .gitignore) is taken back with a note.
"""

from __future__ import annotations

import os
import shutil
import stat
from dataclasses import dataclass, field
from pathlib import Path

from sandbox.gitcli import git, split_z
from sandbox.includes import Selection

COPY_LIMIT = 1 << 20  # bytes: an ignored file up to this size is copied, a bigger one exposed


@dataclass
class Placed:
    copied: list[str] = field(default_factory=list)
    exposed: list[Selection] = field(default_factory=list)  # mount points (bwrap) or links
    notes: list[str] = field(default_factory=list)


def place(selections: list[Selection], worktree: Path, *, linked: bool, masked: set[str]) -> Placed:
    """`linked`: none mode (symlinks); else bwrap (mount points). `masked`: repo-relative
    paths inside selected directories that commands must not see."""
    placed = Placed()
    made: list[tuple[Selection, bool]] = []  # (selection, copied)
    for selection in selections:
        target = worktree / selection.rel
        if target.exists() or target.is_symlink():
            placed.notes.append(f"{selection.rel} already exists in the worktree; left as it is")
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        if not selection.is_dir and selection.source.stat().st_size <= COPY_LIMIT:
            _copy_file(selection.source, target)
            made.append((selection, True))
        elif linked:
            _link(selection, target, masked)
            made.append((selection, False))
        else:
            target.mkdir() if selection.is_dir else target.touch()
            made.append((selection, False))
        if _self_ignored(selection):
            _ignore_all(target)
    visible = _untracked(worktree, [s.rel for s, _ in made if not _self_ignored(s)])
    for selection, copied in made:
        if selection.rel in visible:
            _remove(worktree / selection.rel, worktree)
            placed.notes.append(
                f"{selection.rel} is not ignored in the run's worktree (is the rule only in "
                "an uncommitted .gitignore?); not brought in"
            )
        elif copied:
            placed.copied.append(selection.rel)
        else:
            placed.exposed.append(selection)
    return placed


SELF_IGNORE = "*\n"
"""A directory's own `.gitignore` that hides it, itself included, from git."""


def _self_ignored(selection: Selection) -> bool:
    """Whether the worktree's copy of `selection` hides itself from git (an untracked
    directory of the checkout: git would list its mount point, empty but for that file)."""
    return selection.unignored and selection.is_dir


def _ignore_all(directory: Path) -> None:
    """Make git ignore `directory` in the worktree without touching the repository's rules."""
    own = directory / ".gitignore"
    if not own.exists() and not own.is_symlink():
        own.write_text(SELF_IGNORE, encoding="utf-8")


def _copy_file(source: Path, target: Path) -> None:
    """Content and the executable bit only: the worktree's inherited ACL must stay intact."""
    shutil.copyfile(source, target)
    if source.stat().st_mode & stat.S_IXUSR:
        target.chmod(target.stat().st_mode | 0o111)


def _link(selection: Selection, target: Path, masked: set[str]) -> None:
    """A directory of symlinks, one per entry (every file when some must stay hidden)."""
    if not selection.is_dir:
        target.symlink_to(selection.source)
        return
    hidden = {m for m in masked if m.startswith(selection.rel + "/")}
    if not hidden:
        target.mkdir()
        for name in sorted(os.listdir(selection.source)):
            _link_entry(selection.source / name, target / name)
        return
    for dirpath, dirnames, filenames in os.walk(selection.source):
        rel_dir = Path(dirpath).relative_to(selection.source)
        out = target / rel_dir
        out.mkdir(exist_ok=True)
        dirnames[:] = [d for d in dirnames if _join(selection.rel, rel_dir, d) not in hidden]
        for name in filenames:
            if _join(selection.rel, rel_dir, name) not in hidden:
                _link_entry(Path(dirpath) / name, out / name)


def _join(top: str, middle: Path, name: str) -> str:
    return "/".join(part for part in (top, middle.as_posix(), name) if part not in ("", "."))


def _link_entry(source: Path, target: Path) -> None:
    """A symlink, except for `.gitignore`: git does not follow a symlinked one, and a venv's
    own `*` must keep hiding its contents from the harness."""
    if source.name == ".gitignore" and source.is_file():
        shutil.copyfile(source, target)
    else:
        target.symlink_to(source)


def _untracked(worktree: Path, rels: list[str]) -> set[str]:
    """Which of `rels` git would report as new in the worktree (not ignored there)."""
    if not rels:
        return set()
    listed = split_z(
        git(
            ["ls-files", "-z", "--others", "--exclude-standard", "--directory", "--", *rels],
            worktree,
        )
    )
    return {
        rel for rel in rels if any(p.rstrip("/") == rel or p.startswith(rel + "/") for p in listed)
    }


def _remove(path: Path, worktree: Path) -> None:
    """Take back what `place` made, and the parents it made that are empty now."""
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    else:
        path.unlink(missing_ok=True)
    for parent in path.parents:
        if parent == worktree or not parent.is_relative_to(worktree):
            break
        try:
            parent.rmdir()
        except OSError:
            break
