"""Repo-relative glob matching for a step's declared files.

One dialect for the whole harness: plan validation (`contracts.paths`) and the path policy
agree on what a step's `files` name. `*` and `?` stay within one path segment, a `**` segment
spans directories, `[...]` is a character class, and a glob always matches its own spelling
literally first (so `pages/[id].tsx` names that file). Here, a pattern that names a directory
(`src`) also covers everything under it, so policies built from plain directory names work.
"""

from __future__ import annotations

from contracts.paths import glob_matches


def normalize_path(path: str) -> str:
    """The canonical spelling of a repo-relative path: no `./`, no empty segments."""
    parts = [p for p in path.replace("\\", "/").split("/") if p not in ("", ".")]
    return "/".join(parts)


def glob_match(path: str, pattern: str) -> bool:
    """Whether `path` (repo-relative) is covered by `pattern`."""
    target, glob = normalize_path(path), normalize_path(pattern)
    if not target or not glob:
        return False
    if glob_matches(glob, target):
        return True
    if glob.endswith("/**") and target == glob[:-3]:
        return True
    segments = target.split("/")
    return any(glob_matches(glob, "/".join(segments[:i])) for i in range(1, len(segments)))


def any_match(path: str, patterns: list[str] | tuple[str, ...]) -> str | None:
    """The first pattern covering `path`, or None."""
    for pattern in patterns:
        if glob_match(path, pattern):
            return pattern
    return None
