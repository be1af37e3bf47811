"""Targets for the runners whose test ids begin with the test file (`file > describe > test`,
`file::Class::test`): what a file, a directory or one test covers, spelled with the runner's
own separator. Shared by those runner modules; the others build their own."""

from __future__ import annotations

import re
from collections.abc import Sequence

from summarizers.runners.model import Target
from summarizers.runners.names import DIR, FILE, TEST, Name, Project


def path_target(name: Name, project: Project, separator: str, files: Sequence[str]) -> Target:
    """A FILE or DIR name: its own id (a file that failed to load), everything below it."""
    shown = project.relative(name.path)
    seen = tuple(project.relative(f) for f in files)
    if name.kind == DIR:
        prefix = "" if shown in ("", ".") else shown.rstrip("/") + "/"
        return Target(name.text, DIR, frozenset(), (prefix,), frozenset(seen), tuple(files))
    return Target(
        name.text, FILE, frozenset({shown}), (shown + separator,), frozenset({shown}), (name.path,)
    )


def test_target(
    name: Name, project: Project, separator: str, parts: Sequence[str], *, params: bool = False
) -> Target:
    """One test (or a class or describe block): its id in the runner's spelling; the tests
    inside it; its file and enclosing blocks as the ids whose failure fails it."""
    file = project.relative(name.path)
    ident = separator.join([file, *parts])
    inside = (ident + separator, ident + "[") if params else (ident + separator,)
    holders = {separator.join([file, *parts[:k]]) for k in range(len(parts))}
    generated = re.escape(ident) + r"_\d+(?:_|$)" if params else ""
    return Target(
        name.text, TEST, frozenset({ident}), inside, frozenset(holders), (name.path,), generated
    )


def targets_by_path(
    names: Sequence[Name],
    project: Project,
    separator: str,
    test_files: Sequence[str],
    *,
    params: bool = False,
) -> tuple[Target, ...]:
    """The targets of names for a runner whose ids begin with the file: `test_files` are
    the test files the selection runs (a directory's own)."""
    out: list[Target] = []
    for name in names:
        if name.kind == TEST:
            out.append(test_target(name, project, separator, name.parts, params=params))
        elif name.kind == DIR:
            inside = [f for f in test_files if f.startswith(name.path.rstrip("/") + "/")]
            out.append(path_target(name, project, separator, inside))
        elif name.kind == FILE:
            out.append(path_target(name, project, separator, [name.path]))
    return tuple(out)


def escaped_title(parts: Sequence[str]) -> str:
    """A regular expression matching one full test title exactly (the names joined by spaces,
    as jest, vitest and mocha match `-t`/`--grep` against)."""
    return "^" + re.escape(" ".join(parts)) + "$"


def fileless_target(name: Name, words: Sequence[str], *, file_first: bool) -> Target:
    """A test named without its file (`Name.fileless`): the ids whose title path, joined by
    spaces as the runners match their name filters (`-t`, `--grep`), is `words` joined by
    spaces, and the tests inside it; `file_first`: the runner's ids begin with the file."""
    title = r"(?: | > )".join(re.escape(w) for w in " ".join(words).split(" "))
    head = r"(?:(?! > ).)+ > " if file_first else ""
    return Target(name.text, TEST, generated=rf"{head}{title}(?: > |$)")


def anywhere_target(name: Name) -> Target:
    """A test named without its file where the whole command runs (its runner cannot select
    by name, or is not known): the ids whose title path ends with the name's words, in any
    file and under any describe (`test/x.js > suite > name` for `name`)."""
    words = name.parts or (name.title or name.text,)
    inner = fileless_target(name, words, file_first=False).generated
    return Target(name.text, TEST, generated=rf"(?:.+ > )?{inner}")


def title_words(name: Name, separator: str) -> tuple[str, ...]:
    """A fileless name's title path: coder's `describe > test` parts, or the runner's own
    words split at its `separator` (jest's `›`)."""
    if name.parts:
        return name.parts
    return tuple(w.strip() for w in name.title.split(separator) if w.strip())
