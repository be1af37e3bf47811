"""Repo-relative glob matching for a step's declared files.

Patterns are anchored at the repository root and use `/` as the only separator:
`*` and `?` stay within one path segment, a `**` segment spans any number of directories
(including none), and a pattern that names a directory (`src` or `src/`) covers everything
under it. `[` is a literal character: paths such as `pages/[id].tsx` are common, character
classes in step contracts are not.
"""

from __future__ import annotations

import re
from functools import lru_cache


def normalize_path(path: str) -> str:
    """The canonical spelling of a repo-relative path: no `./`, no empty segments."""
    parts = [p for p in path.replace("\\", "/").split("/") if p not in ("", ".")]
    return "/".join(parts)


def glob_match(path: str, pattern: str) -> bool:
    """Whether `path` (repo-relative) is covered by `pattern`."""
    target = normalize_path(path)
    regex = _compile(pattern)
    if regex is None or not target:
        return False
    if regex.fullmatch(target):
        return True
    segments = target.split("/")
    return any(regex.fullmatch("/".join(segments[:i])) for i in range(1, len(segments)))


def any_match(path: str, patterns: list[str] | tuple[str, ...]) -> str | None:
    """The first pattern covering `path`, or None."""
    for pattern in patterns:
        if glob_match(path, pattern):
            return pattern
    return None


@lru_cache(maxsize=4096)
def _compile(pattern: str) -> re.Pattern[str] | None:
    normalized = normalize_path(pattern)
    if not normalized:
        return None
    segments = normalized.split("/")
    out: list[str] = []
    for index, segment in enumerate(segments):
        last = index == len(segments) - 1
        if segment == "**":
            out.append(".*" if last else "(?:.*/)?")
            continue
        out.append(_segment_regex(segment))
        if not last:
            out.append("/")
    return re.compile("".join(out), re.DOTALL)


def _segment_regex(segment: str) -> str:
    parts: list[str] = []
    for char in segment:
        if char == "*":
            if not parts or parts[-1] != "[^/]*":
                parts.append("[^/]*")
        elif char == "?":
            parts.append("[^/]")
        else:
            parts.append(re.escape(char))
    return "".join(parts)
