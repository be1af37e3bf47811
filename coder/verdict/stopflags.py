"""A test command's stop-at-the-first-failure flags: found, and taken out where that is safe.

A run that stops at the first failure never reaches the tests after it, so it is no evidence
about them. The harness runs the repository's command without those flags: each flag is cut out
of the command text itself (nothing else is re-quoted, so globs and variables keep working),
and only from the arguments of the runner it belongs to (`python -x -m pytest` keeps Python's
`-x`). A flag it cannot cut (inside an npm script, say) is reported, so a failing run with it
counts as incomplete rather than as evidence.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from summarizers.runners.registry import load
from summarizers.runners.stopargs import flag_text

_OPERATORS = frozenset(";&|\n")
"""What ends a simple command: a flag after one belongs to the next command, not the runner."""
_UNSAFE = ("`", "$(")


@dataclass(frozen=True)
class Word:
    start: int
    end: int
    text: str
    """The word as the shell will see it (quotes removed)."""
    plain: bool
    """Written without quotes or escapes: the text is exactly the source span."""
    operator: bool = False


@dataclass(frozen=True)
class Rewrite:
    command: str
    """The command to run: the original without the flags that could be taken out."""
    removed: list[str] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)
    """Stop flags in effect that could not be taken out (in an npm script, ...)."""


@dataclass(frozen=True)
class _Cut:
    start: int
    end: int
    replacement: str
    flag: str
    safe: bool = True
    """False: a stop flag, but cutting it could change what else the command means."""


def without_stop_flags(command: str, root: Path | None = None) -> Rewrite:
    """`command` without the stop flags of the test runners it calls; `root` lets npm/yarn/pnpm
    scripts be read from package.json (their flags can be seen there, not taken out)."""
    if any(mark in command for mark in _UNSAFE):
        return Rewrite(command, kept=_flags_in(command))
    words = split_words(command)
    if words is None:
        return Rewrite(command, kept=_flags_in(command))
    cuts: list[_Cut] = []
    kept: list[str] = []
    for segment in _segments(words):
        found = _runner_cuts(segment)
        cuts += [c for c in found if c.safe]
        kept += [c.flag for c in found if not c.safe] + _script_flags(segment, root)
    cuts.sort(key=lambda c: c.start)
    text = command
    for cut in reversed(cuts):
        before, after = text[: cut.start].rstrip(" \t"), text[cut.end :]
        text = before + (" " + cut.replacement if cut.replacement else "") + after
    return Rewrite(text.strip(), [c.flag for c in cuts], kept)


def split_words(command: str) -> list[Word] | None:
    """Shell words with their source spans; None for what this small reader does not follow
    (an unterminated quote)."""
    words: list[Word] = []
    i, n = 0, len(command)
    while i < n:
        ch = command[i]
        if ch in " \t":
            i += 1
            continue
        if ch in _OPERATORS:
            j = i
            while j < n and command[j] in _OPERATORS:
                j += 1
            words.append(Word(i, j, command[i:j], True, operator=True))
            i = j
            continue
        start, text, plain = i, [], True
        while i < n and command[i] not in " \t" and command[i] not in _OPERATORS:
            ch = command[i]
            if ch in "'\"":
                end = command.find(ch, i + 1)
                if end < 0:
                    return None
                text.append(command[i + 1 : end])
                plain, i = False, end + 1
            elif ch == "\\" and i + 1 < n:
                text.append(command[i + 1])
                plain, i = False, i + 2
            else:
                text.append(ch)
                i += 1
        words.append(Word(start, i, "".join(text), plain))
    return words


def _segments(words: list[Word]) -> list[list[Word]]:
    out: list[list[Word]] = [[]]
    for word in words:
        if word.operator:
            out.append([])
        else:
            out[-1].append(word)
    return [s for s in out if s]


def _runner_cuts(segment: list[Word]) -> list[_Cut]:
    """The cuts the runner this simple command runs asks for (its module's `stop_flags`),
    in its own arguments only: `python -x -m pytest` keeps Python's `-x`."""
    texts = [w.text for w in segment]
    found = [(at, r) for r in load().values() if (at := r.invoked_at(texts)) is not None]
    if not found:
        return []
    at, runner = min(found, key=lambda pair: pair[0])
    own = texts[at:]
    if "--" in own:
        own = own[: own.index("--")]
    cuts = []
    for flag in runner.stop_flags(own):
        words = segment[at + flag.index : at + flag.index + flag.words]
        plain = all(w.plain for w in words)
        text = flag_text(own, flag)
        cuts.append(_Cut(words[0].start, words[-1].end, flag.keep, text, flag.safe and plain))
    return cuts


def _flags_in(command: str) -> list[str]:
    """Stop flags in a command this reader will not rewrite, found the same way, for the record."""
    words = split_words(command.replace("`", " ").replace("$(", " "))
    if words is None:
        return []
    return [c.flag for s in _segments(words) for c in _runner_cuts(s)]


_SCRIPT_RUNNERS = ("npm", "pnpm", "yarn")


def _script_flags(segment: list[Word], root: Path | None) -> list[str]:
    """Stop flags inside the package.json script that `npm test` / `yarn run x` runs."""
    if root is None or not segment or segment[0].text.rsplit("/", 1)[-1] not in _SCRIPT_RUNNERS:
        return []
    args = [w.text for w in segment[1:] if not w.text.startswith("-")]
    if not args:
        return []
    name = args[1] if args[0] in ("run", "run-script") and len(args) > 1 else args[0]
    try:
        scripts = json.loads((root / "package.json").read_text(encoding="utf-8")).get("scripts")
    except (OSError, ValueError, AttributeError):
        return []
    script = scripts.get(name) if isinstance(scripts, dict) else None
    if not isinstance(script, str):
        return []
    return [f"{flag} (in the package.json script {name!r})" for flag in _flags_in(script)]
