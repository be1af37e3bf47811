"""A test command's stop-at-the-first-failure flags: found, and taken out where that is safe.

A run that stops at the first failure never reaches the tests after it, so it is no evidence
about them. The harness runs the repository's command without those flags: each flag is cut out
of the command text itself (nothing else is re-quoted, so globs and variables keep working),
and only from the arguments of the runner it belongs to (`python -x -m pytest` keeps Python's
`-x`), as that runner's module declares them (`Runner.stop_flags`). A flag it cannot cut
(inside a package.json script, in a word written with quotes or expansions) is reported, so a
failing run with it counts as incomplete rather than as evidence.
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping
from dataclasses import dataclass, field

from summarizers.runners.commands import direct_runner
from summarizers.runners.launchers import script_call
from summarizers.runners.shell import Word, parse
from summarizers.runners.stopargs import flag_text

_MAX_DEPTH = 5
_UNSAFE = ("`", "$(")
"""A command substitution may expand into the runner's own arguments: nothing is cut."""


@dataclass(frozen=True)
class StopCut:
    command: str
    """The command to run: the original without the flags that could be taken out."""
    removed: list[str] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)
    """Stop flags in effect that could not be taken out (in a package.json script, ...)."""


@dataclass(frozen=True)
class _Cut:
    start: int
    end: int
    replacement: str
    flag: str
    safe: bool


def without_stop_flags(command: str, scripts: Mapping[str, str] | None = None) -> StopCut:
    """`command` without the stop flags of the test runners it calls; `scripts`
    (package.json's) let a script's flags be seen, not taken out."""
    items = None if any(mark in command for mark in _UNSAFE) else parse(command)
    if items is None:
        return StopCut(command, kept=_loose_flags(command))
    cuts: list[_Cut] = []
    kept: list[str] = []
    for item in items:
        for simple in item.pipeline.commands:
            found = _cuts(list(simple.words))
            cuts += [c for c in found if c.safe]
            kept += [c.flag for c in found if not c.safe]
            kept += _script_flags(simple.argv, scripts or {}, 0)
    text = command
    for cut in sorted(cuts, key=lambda c: c.start, reverse=True):
        before, after = text[: cut.start].rstrip(" \t"), text[cut.end :]
        text = before + (" " + cut.replacement if cut.replacement else "") + after
    return StopCut(text.strip(), [c.flag for c in sorted(cuts, key=lambda c: c.start)], kept)


def _cuts(words: list[Word]) -> list[_Cut]:
    argv = [w.text for w in words]
    found = direct_runner(argv)
    if found is None:
        return []
    runner, at = found
    own = argv[at:]
    if "--" in own:
        own = own[: own.index("--")]
    cuts = []
    for flag in runner.stop_flags(own):
        span = words[at + flag.index : at + flag.index + flag.words]
        plain = all(w.plain for w in span)
        text = flag_text(own, flag)
        cuts.append(_Cut(span[0].start, span[-1].end, flag.keep, text, flag.safe and plain))
    return cuts


def _script_flags(argv: list[str], scripts: Mapping[str, str], depth: int) -> list[str]:
    """Stop flags inside the package.json script that `npm test` / `yarn run x` runs."""
    call = script_call(argv, scripts) if argv else None
    if not isinstance(call, tuple) or depth >= _MAX_DEPTH:
        return []
    name = call[1]
    script = scripts.get(name)
    if script is None:
        return []
    inner = parse(script)
    flags = [f for f in _loose_flags(script)] if inner is None else []
    for item in inner or []:
        for simple in item.pipeline.commands:
            flags += [c.flag for c in _cuts(list(simple.words))]
            flags += _script_flags(simple.argv, scripts, depth + 1)
    return [f"{flag} (in the package.json script {name!r})" for flag in flags]


def _loose_flags(command: str) -> list[str]:
    """Stop flags in a command this reader will not rewrite, found word by word, for the
    record (a failing run with one is incomplete, not evidence)."""
    try:
        lexer = shlex.shlex(command, posix=True, punctuation_chars=True)
        lexer.whitespace_split = True
        tokens = list(lexer)
    except ValueError:
        return []
    flags: list[str] = []
    segment: list[str] = []
    for token in [*tokens, ";"]:
        if token and set(token) <= set(";&|()<>"):
            found = direct_runner(segment) if segment else None
            if found is not None:
                runner, at = found
                own = segment[at:]
                flags += [flag_text(own, f) for f in runner.stop_flags(own)]
            segment = []
        else:
            segment.append(token)
    return flags
