"""Repo-relative paths and globs as a step contract names them, and the one glob dialect.

A plan is written by a model, so a path that cannot be matched unambiguously (`./src`,
`src\\auth.ts`, `src/`) is rejected with the spelling that would work instead of being
silently never matched. The dialect is shared by `files`, `discardPaths` and the scope check:

- `*` any run of characters inside one path segment, `?` one character other than `/`
- `[abc]`, `[a-z]`, `[!abc]` a character class inside one segment
- `**` as a whole segment: any number of segments, including none (`src/**/x.py` matches
  `src/x.py`); as the last segment: everything below (`src/**` matches `src/a/b.py`)
- anything else matches itself; a pattern without wildcards names exactly one path
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache

_DRIVE = re.compile(r"^[A-Za-z]:[/\\]")
_BRACES = re.compile(r"\{[^{}/]*,[^{}/]*\}")


def path_problem(path: str) -> str | None:
    """Why `path` cannot name files inside the repository, or None when it can."""
    if not path.strip():
        return "is empty"
    if any(ord(ch) < 32 or ord(ch) == 127 for ch in path):
        return "contains a control character"
    if path.startswith(("/", "~/")) or path == "~" or _DRIVE.match(path):
        return "is absolute; give it relative to the repository root"
    if "\\" in path:
        return f"uses '\\'; separate directories with '/' ({path.replace(chr(92), '/')!r})"
    parts = path.split("/")
    if ".." in parts:
        return "contains '..'; paths must stay inside the repository"
    if ".git" in parts:
        return "points into .git/, which no step may touch"
    if path.endswith("/"):
        return f"ends with '/'; to name everything below it write {path + '**'!r}"
    if "" in parts:
        return "contains an empty segment ('//')"
    if "." in parts:
        tidy = "/".join(part for part in parts if part != ".")
        return f"contains a '.' segment; write it as {tidy!r}"
    return _glob_problem(parts)


def _glob_problem(parts: list[str]) -> str | None:
    for part in parts:
        if "**" in part and part != "**":
            return "uses '**' inside a segment; '**' must be a whole segment, as in 'src/**/*.py'"
        if _BRACES.search(part):
            return "uses brace alternatives '{a,b}', which globs here do not expand; list each path"
    return None


def is_glob(path: str) -> bool:
    return any(ch in path for ch in "*?")


@lru_cache(maxsize=4096)
def glob_regex(glob: str) -> re.Pattern[str]:
    """The compiled pattern for a glob that `path_problem` accepted."""
    parts = glob.split("/")
    pieces: list[str] = []
    for index, part in enumerate(parts):
        last = index == len(parts) - 1
        if part == "**":
            pieces.append("(?:[^/]+/)*[^/]+" if last else "(?:[^/]+/)*")
        else:
            pieces.append(_segment_regex(part) + ("" if last else "/"))
    return re.compile("".join(pieces), re.DOTALL)


def _segment_regex(segment: str) -> str:
    """`*` and `?` within one segment; everything else, `[` included, stands for itself:
    paths like `pages/[id].tsx` are common in repositories, character classes in plans are not."""
    return "".join(
        "[^/]*" if ch == "*" else "[^/]" if ch == "?" else re.escape(ch) for ch in segment
    )


def glob_matches(glob: str, path: str) -> bool:
    """Whether `path` (repo-relative, '/'-separated) is one the glob names."""
    if glob == path or not is_glob(glob):
        return glob == path
    if glob.endswith("/**") and not is_glob(glob[:-3]):
        return path.startswith(glob[:-2]) and len(path) > len(glob) - 2  # the common `dir/**`
    return glob_regex(glob).fullmatch(path) is not None


def covered_by(globs: Iterable[str], path: str) -> bool:
    """Whether `path` falls within `globs`.

    A glob given as `path` is read literally, which is exact for paths and a sound
    approximation for patterns: `src/*.ts` is within `src/**` but `src/**` is not within
    `src/*.ts`.
    """
    return any(glob_matches(glob, path) for glob in globs)
