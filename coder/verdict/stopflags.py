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
import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

_OPERATORS = frozenset(";&|\n")
"""What ends a simple command: a flag after one belongs to the next command, not the runner."""
_UNSAFE = ("`", "$(")
_DIGITS = re.compile(r"^\d+$")


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


@dataclass(frozen=True)
class _Runner:
    name: str
    starts: Callable[[list[Word], int], bool]
    """Does the runner's argument list begin after word i?"""
    cut: Callable[[list[Word], int], _Cut | None]
    """The cut for a stop flag at word i, if it is one."""


def _basename(word: Word) -> str:
    return word.text.rsplit("/", 1)[-1]


def _module(name: str) -> Callable[[list[Word], int], bool]:
    def starts(words: list[Word], i: int) -> bool:
        return _basename(words[i]) == name or (
            words[i].text == "-m" and i + 1 < len(words) and words[i + 1].text == name
        )

    return starts


def _program(*names: str) -> Callable[[list[Word], int], bool]:
    return lambda words, i: _basename(words[i]) in names


def _drop(word: Word, flag: str | None = None) -> _Cut:
    return _Cut(word.start, word.end, "", flag or word.text)


def _cluster(word: Word, stop: str, no_value: str) -> _Cut | None:
    """`-xvs` -> `-vs`: a stop letter in a cluster of short flags, up to the first letter that
    takes a value (pytest's `-rx` is -r with value "x", not -x)."""
    letters = word.text[1:]
    if not re.fullmatch(r"[A-Za-z]{2,}", letters):
        return None
    out = []
    for k, letter in enumerate(letters):
        if letter not in no_value:
            out.append(letters[k:])
            break
        if letter != stop:
            out.append(letter)
    rest = "".join(out)
    if rest == letters:
        return None
    return _Cut(word.start, word.end, f"-{rest}" if rest else "", f"-{stop}")


def _pytest_cut(words: list[Word], i: int) -> _Cut | None:
    word = words[i]
    if word.text in ("-x", "--exitfirst", "--sw", "--stepwise", "--sw-skip", "--stepwise-skip"):
        return _drop(word)
    if word.text.startswith("--maxfail="):
        return _drop(word)
    if word.text == "--maxfail" and i + 1 < len(words):
        value = words[i + 1]
        return _Cut(word.start, value.end, "", f"--maxfail {value.text}", safe=value.plain)
    if word.text.startswith("-") and not word.text.startswith("--"):
        return _cluster(word, "x", "qvslx")
    return None


def _unittest_cut(words: list[Word], i: int) -> _Cut | None:
    word = words[i]
    if word.text in ("-f", "--failfast"):
        return _drop(word)
    if word.text.startswith("-") and not word.text.startswith("--"):
        return _cluster(word, "f", "vqfcb")
    return None


def _bail_cut(short: bool, needs_number: bool = False) -> Callable[[list[Word], int], _Cut | None]:
    """jest, mocha, vitest, bun: `--bail`, `--bail=N`, `--bail N` (and `-b` where it means it)."""

    def cut(words: list[Word], i: int) -> _Cut | None:
        word = words[i]
        if word.text.startswith("--bail="):
            return _drop(word)
        if word.text == "--bail" or (short and word.text == "-b"):
            nxt = words[i + 1] if i + 1 < len(words) else None
            if nxt is not None and nxt.plain and _DIGITS.match(nxt.text):
                return _Cut(word.start, nxt.end, "", f"{word.text} {nxt.text}")
            if needs_number:
                return None
            return _drop(word)
        return None

    return cut


BAIL_REPORTER = "@reporters/bail"


def _node_cut(words: list[Word], i: int) -> _Cut | None:
    """node --test bails only through a reporter. Reporters pair with destinations by position,
    so with any destination given the reporter is left alone (and reported)."""
    word = words[i]
    if word.text == f"--test-reporter={BAIL_REPORTER}":
        end = word.end
    elif (
        word.text == "--test-reporter" and i + 1 < len(words) and words[i + 1].text == BAIL_REPORTER
    ):
        end = words[i + 1].end
    else:
        return None
    safe = not any(w.text.startswith("--test-reporter-destination") for w in words)
    return _Cut(word.start, end, "", f"--test-reporter={BAIL_REPORTER}", safe=safe)


def _node_test(words: list[Word], i: int) -> bool:
    return _basename(words[i]) == "node" and any(w.text == "--test" for w in words[i + 1 :])


RUNNERS: tuple[_Runner, ...] = (
    _Runner(
        "pytest", lambda w, i: _module("pytest")(w, i) or _basename(w[i]) == "py.test", _pytest_cut
    ),
    _Runner("unittest", _module("unittest"), _unittest_cut),
    _Runner("jest", _program("jest"), _bail_cut(short=True)),
    _Runner("mocha", _program("mocha", "_mocha"), _bail_cut(short=True)),
    _Runner("vitest", _program("vitest"), _bail_cut(short=False, needs_number=True)),
    _Runner(
        "bun",
        lambda w, i: _basename(w[i]) == "bun" and i + 1 < len(w) and w[i + 1].text == "test",
        _bail_cut(short=False),
    ),
    _Runner("node", _node_test, _node_cut),
)


def _runner_cuts(segment: list[Word]) -> list[_Cut]:
    for i in range(len(segment)):
        for runner in RUNNERS:
            if runner.starts(segment, i):
                return _cuts_after(runner, segment, i + 1)
    return []


def _cuts_after(runner: _Runner, words: list[Word], first: int) -> list[_Cut]:
    cuts = []
    k = first
    while k < len(words):
        if words[k].text == "--":
            break
        cut = runner.cut(words, k)
        if cut is not None:
            if not words[k].plain:
                cut = replace(cut, safe=False)
            cuts.append(cut)
            k = next((j for j, w in enumerate(words) if w.start >= cut.end), len(words))
            continue
        k += 1
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
    if root is None or not segment or _basename(segment[0]) not in _SCRIPT_RUNNERS:
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
