"""The files a runner's own arguments tell it to write (`--junitxml=junit.xml`, `--outputFile
out.json`, `--coverage.reportsDirectory=cov`): read from the command, so that what the
project's own test command asks its runner to write is the runner's, never the model's.

Each runner module lists its options as `Output`s; `written` reads them from its arguments.
A path outside the directory the runner runs in, absolute, or made of shell expansions
(`$OUT/x.xml`) is left out: it is not in the tree, or cannot be named before the run.
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterable
from dataclasses import dataclass


@dataclass(frozen=True)
class Output:
    option: str
    """`--junitxml`: given as `--junitxml=PATH` or `--junitxml PATH` (a short `-o PATH` too)."""
    keys: tuple[str, ...] = ()
    """The value is `key=PATH` for one of these keys, among others joined by commas
    (`--reporter-option output=x.xml`); `*`: any `kind:PATH` (`--cov-report=xml:cov.xml`),
    a value with no `:` naming no path."""
    dotted: bool = False
    """Also `option.<name>=PATH` (`--outputFile.junit=junit.xml`)."""
    skip: tuple[str, ...] = ()
    """Values that are no path (`stdout`)."""


def written(args: list[str], outputs: Iterable[Output]) -> tuple[str, ...]:
    """The relative paths `args` name through `outputs`, in order, each once."""
    table = list(outputs)
    found: list[str] = []
    for i, arg in enumerate(args):
        for out in table:
            value = _value(args, i, arg, out)
            for given in _given(value, out) if value is not None else ():
                path = _path(given, out)
                if path is not None:
                    found.append(path)
    return tuple(dict.fromkeys(found))


def _value(args: list[str], i: int, arg: str, out: Output) -> str | None:
    name, eq, value = arg.partition("=")
    if name == out.option or (out.dotted and name.startswith(out.option + ".")):
        if eq:
            return value
        if i + 1 < len(args) and not args[i + 1].startswith("-"):
            return args[i + 1]
    return None


def _given(value: str, out: Output) -> list[str]:
    """The paths in an option's value."""
    if out.keys == ("*",):
        _, colon, path = value.partition(":")
        return [path] if colon else []
    if out.keys:
        pairs = [part.partition("=") for part in value.split(",")]
        return [path for key, eq, path in pairs if eq and key in out.keys]
    return [value]


def _path(value: str, out: Output) -> str | None:
    if not value or value in out.skip or "$" in value or "`" in value or value.startswith("~"):
        return None
    if value.startswith("/"):
        return None
    path = posixpath.normpath(value)
    if path == "." or path == ".." or path.startswith("../"):
        return None
    return path
