"""Patterns in gitignore syntax, for `.worktreeinclude` and the `include` config key.

The convention other agents use: a `.worktreeinclude` at the repository's top names, in
.gitignore syntax, the ignored files a fresh worktree needs. Here that means: `#` comments
and blank lines skipped, `!` negates (the last matching pattern wins), a trailing `/`
matches directories only, a pattern with a `/` before its end is anchored at the top and
otherwise matches a name at any depth, `*` `?` `[...]` stay inside one segment and `**`
spans segments. A pattern that names one path without wildcards is *literal*: only a literal
pattern can bring in a file that looks like a secret.

Patterns never reach outside the repository: `..` segments, `~` and absolute host paths are
refused with the reason (RepoEnvironmentError at the caller, exit 2 at the CLI).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

_GLOB_CHARS = "*?["


class PatternError(ValueError):
    """A pattern that cannot be used; the message names it and says why."""


@dataclass(frozen=True)
class IncludePattern:
    text: str  # as written, for messages
    source: str  # ".worktreeinclude" or "include"
    body: str  # without `!`, leading `/` and trailing `/`
    negated: bool
    dir_only: bool
    anchored: bool
    regex: re.Pattern[str]

    @property
    def literal(self) -> bool:
        return not any(ch in self.body for ch in _GLOB_CHARS)

    def matches(self, rel: str, *, is_dir: bool) -> bool:
        """Whether `rel` itself (not an ancestor of it) is named by this pattern."""
        if self.dir_only and not is_dir:
            return False
        return bool(self.regex.fullmatch(rel if self.anchored else rel.rsplit("/", 1)[-1]))

    def static_prefix(self) -> str:
        """The directory part before the first wildcard (`build/gen` for `build/gen/*.py`)."""
        if not self.anchored:
            return ""
        parts: list[str] = []
        for part in self.body.split("/"):
            if any(ch in part for ch in _GLOB_CHARS):
                break
            parts.append(part)
        return "/".join(parts[:-1] if len(parts) == len(self.body.split("/")) else parts)


def parse_patterns(lines: list[str], source: str, checkout: Path) -> list[IncludePattern]:
    """Every usable pattern in `lines`; PatternError for the first one that escapes."""
    patterns: list[IncludePattern] = []
    for raw in lines:
        pattern = parse_pattern(raw, source, checkout)
        if pattern is not None:
            patterns.append(pattern)
    return patterns


def parse_pattern(raw: str, source: str, checkout: Path) -> IncludePattern | None:
    line = raw.rstrip("\n")
    stripped = _strip_trailing_spaces(line)
    if not stripped or stripped.startswith("#"):
        return None
    text = stripped
    negated = text.startswith("!")
    if negated:
        text = text[1:]
    if text.startswith(("\\#", "\\!")):
        text = text[1:]
    if text.startswith("~"):
        raise PatternError(
            f"{source}: {stripped!r} names a path in a home directory, outside the repository"
        )
    dir_only = text.endswith("/")
    text = text.rstrip("/")
    if text.startswith("/"):
        _refuse_absolute(text, stripped, source, checkout)
    body = text.lstrip("/")
    if not body:
        raise PatternError(f"{source}: {stripped!r} names the whole repository")
    if ".." in body.split("/"):
        raise PatternError(f"{source}: {stripped!r} leads outside the repository ('..')")
    anchored = text.startswith("/") or "/" in body
    return IncludePattern(
        text=stripped,
        source=source,
        body=body,
        negated=negated,
        dir_only=dir_only,
        anchored=anchored,
        regex=re.compile(_to_regex(body), re.DOTALL),
    )


def _refuse_absolute(text: str, shown: str, source: str, checkout: Path) -> None:
    """A leading `/` anchors at the top in gitignore syntax, but `/etc/passwd` is a host path
    someone meant literally: refused when its first segment is not in the checkout and is
    (or the whole path is) on the host."""
    first = text.lstrip("/").split("/", 1)[0]
    if not first or any(ch in first for ch in _GLOB_CHARS):
        return
    inside = (checkout / first).exists() or (checkout / first).is_symlink()
    if not inside and (Path("/") / first).exists():
        raise PatternError(
            f"{source}: {shown!r} is an absolute path outside the repository; "
            "patterns are relative to the repository's top"
        )


def _strip_trailing_spaces(line: str) -> str:
    trimmed = line.rstrip(" ")
    if trimmed.endswith("\\") and len(trimmed) < len(line):
        return trimmed[:-1] + " "
    return trimmed


def _to_regex(body: str) -> str:
    parts = body.split("/")
    pieces: list[str] = []
    for index, part in enumerate(parts):
        last = index == len(parts) - 1
        if part == "**":
            pieces.append(".*" if last else "(?:[^/]+/)*")
            continue
        pieces.append(_segment(part) + ("" if last else "/"))
    return "".join(pieces)


def _segment(part: str) -> str:
    out: list[str] = []
    i = 0
    while i < len(part):
        ch = part[i]
        if ch == "\\" and i + 1 < len(part):
            out.append(re.escape(part[i + 1]))
            i += 2
            continue
        if ch == "*":
            out.append("[^/]*")
        elif ch == "?":
            out.append("[^/]")
        elif ch == "[":
            end = part.find("]", i + 2 if part[i + 1 : i + 2] in ("!", "^") else i + 1)
            if end == -1:
                out.append(re.escape(ch))
            else:
                inner = part[i + 1 : end]
                if inner[:1] in ("!", "^"):
                    inner = "^" + inner[1:]
                out.append("[" + inner.replace("\\", "\\\\") + "]")
                i = end
        else:
            out.append(re.escape(ch))
        i += 1
    return "".join(out)


def last_match(patterns: list[IncludePattern], rel: str, *, is_dir: bool) -> IncludePattern | None:
    """The pattern that decides `rel` (gitignore order: the last one naming it), or None."""
    decided: IncludePattern | None = None
    for pattern in patterns:
        if pattern.matches(rel, is_dir=is_dir):
            decided = pattern
    return decided
