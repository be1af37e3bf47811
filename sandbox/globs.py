"""Repo-relative glob matching for a step's declared files and the tools' globs.

One dialect for the whole harness: plan validation (`contracts.paths`) and the path policy
agree on what a step's `files` name. `*` and `?` stay within one path segment, a `**` segment
spans directories, `[...]` is a character class, and a glob always matches its own spelling
literally first (so `pages/[id].tsx` names that file). Here, a pattern that names a directory
(`src`) also covers everything under it, so policies built from plain directory names work.

Brace alternatives (`*.{ini,cfg}`, nested too) expand here, for the globs a model gives
`list_files` and `search` and for protection lists. A plan's `files` still may not use them
(`contracts.paths` says so to the planner): every alternative would have to be a path the
scope check, rollback and the planner's own reading agree on, and a list says that plainly.
"""

from __future__ import annotations

import re
from functools import lru_cache

from contracts.paths import glob_matches

MAX_ALTERNATIVES = 64
_INNERMOST = re.compile(r"\{([^{}]*,[^{}]*)\}")


class GlobError(ValueError):
    """A glob that cannot be used as given; the message says what to write instead."""


def normalize_path(path: str) -> str:
    """The canonical spelling of a repo-relative path: no `./`, no empty segments."""
    parts = [p for p in path.replace("\\", "/").split("/") if p not in ("", ".")]
    return "/".join(parts)


@lru_cache(maxsize=1024)
def expand_braces(pattern: str) -> tuple[str, ...]:
    """`src/*.{ts,tsx}` -> (`src/*.ts`, `src/*.tsx`); a group without a comma stays literal.

    Raises GlobError past MAX_ALTERNATIVES patterns (`{a,b}{c,d}...` doubles each time).
    """
    done: list[str] = []
    pending = [pattern]
    while pending:
        current = pending.pop()
        group = _INNERMOST.search(current)
        if group is None:
            if current not in done:
                done.append(current)
            continue
        head, tail = current[: group.start()], current[group.end() :]
        pending.extend(head + choice + tail for choice in reversed(group.group(1).split(",")))
        if len(done) + len(pending) > MAX_ALTERNATIVES:
            raise GlobError(
                f"the glob {pattern!r} expands to more than {MAX_ALTERNATIVES} patterns; "
                "use fewer brace alternatives"
            )
    return tuple(done)


def glob_match(path: str, pattern: str) -> bool:
    """Whether `path` (repo-relative) is covered by `pattern` or one of its brace expansions."""
    if "{" not in pattern:
        return _covered(path, pattern)
    try:
        patterns = expand_braces(pattern)
    except GlobError:
        patterns = (pattern,)
    return _covered(path, pattern) or any(_covered(path, p) for p in patterns)


def _covered(path: str, pattern: str) -> bool:
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
