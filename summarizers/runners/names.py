"""The names a contract gives tests, read into what they are before a runner selects them.

A planner names tests the way it saw them: a file (`tests/test_x.py`), a directory
(`__tests__`), a glob (`test/**/*.spec.ts`), or one test in any spelling coder or a runner
prints — `file > describe > test` (coder's, for the JavaScript runners), `file::Class::test[p]`
(pytest's), `pkg.module.Class.test` (unittest's), or a runner's own words for a test without
its file (jest's `describe › test`, mocha's full title `describe test`, node's test name). This
module only tells those apart, against the files of the tree; what each means to a runner (its
arguments, its ids) is the runner module's `select`. Pure: the tree comes in as a `Project`.
"""

from __future__ import annotations

import fnmatch
import posixpath
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field

FILE, DIR, TEST = "file", "dir", "test"
_GLOB = re.compile(r"[*?\[]")
_DOTTED = re.compile(r"^[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+$")
_SOURCE_SUFFIXES = frozenset("py js mjs cjs ts mts cts jsx tsx".split())
"""A name like `test_x.py` is a file (perhaps one the step deleted), never a dotted id."""
_SOURCE_FILE = re.compile(r"\.(?:" + "|".join(sorted(_SOURCE_SUFFIXES)) + r")$")


@dataclass(frozen=True)
class Project:
    """The tree a test command runs in, as selection needs it."""

    files: frozenset[str] = frozenset()
    """Repository-relative paths of the files in the tree (tracked and untracked)."""
    cwd: str = "."
    """Where the runner runs, relative to the repository (after the command's `cd`)."""
    majors: Mapping[str, int] = field(default_factory=dict)
    """Runner name -> the major version the project pins (package.json)."""

    def is_file(self, path: str) -> bool:
        return path in self.files

    def is_dir(self, path: str) -> bool:
        prefix = path.rstrip("/") + "/"
        return path.rstrip("/") in ("", ".") or any(f.startswith(prefix) for f in self.files)

    def under(self, directory: str) -> list[str]:
        """The files under `directory`, sorted."""
        if directory.rstrip("/") in ("", "."):
            return sorted(self.files)
        prefix = directory.rstrip("/") + "/"
        return sorted(f for f in self.files if f.startswith(prefix))

    def relative(self, path: str) -> str:
        """A repository path as the runner sees it from `cwd`."""
        if self.cwd in ("", "."):
            return path
        return posixpath.relpath(posixpath.normpath(path), self.cwd)

    def at(self, cwd: str) -> Project:
        return Project(self.files, cwd, self.majors)


@dataclass(frozen=True)
class Name:
    text: str
    """As the contract wrote it."""
    kind: str
    """FILE, DIR or TEST."""
    path: str = ""
    """The file or directory (repository-relative); for a TEST, its file where the spelling
    names one (empty for a dotted id)."""
    parts: tuple[str, ...] = ()
    """For a TEST: the names inside its file, outermost first (`Class`, `test[param]`)."""
    dotted: str = ""
    """For a TEST spelled as a dotted id (`pkg.module.Class.test`)."""
    title: str = ""
    """For a TEST named in a runner's own words without its file (`calc › adds`, `calc adds`,
    `adds`): the words as written, which only a runner module can read (how it splits them,
    which of its tests they select)."""

    @property
    def fileless(self) -> bool:
        """A TEST named without its file (by its title, or by coder's `describe > test`
        whose first part is no file of the tree): it runs wherever the command's own tests
        are, selected by name alone."""
        return self.kind == TEST and not self.path and not self.dotted


def read_names(texts: Iterable[str], project: Project) -> list[Name] | str:
    """Each name told apart; a glob becomes the files it matches. A problem (a glob that
    matches nothing) is the one line saying so."""
    names: list[Name] = []
    for raw in texts:
        text = raw.strip()
        if not text:
            continue
        found = read_name(text, project)
        if isinstance(found, str):
            return found
        names += found
    return names


def read_name(text: str, project: Project) -> list[Name] | str:
    path = text.removeprefix("./")
    if project.is_file(path):
        return [Name(text, FILE, path)]
    for separator in (" > ", "::"):
        if separator in path:
            file, _, rest = path.partition(separator)
            parts = tuple(p.strip() for p in rest.split(separator) if p.strip())
            file = file.removeprefix("./").strip()
            if not project.is_file(file) and not _path_shaped(file) and project.files:
                return [Name(text, TEST, "", (file, *parts))]
            return [Name(text, TEST, file, parts)]
    if _GLOB.search(path):
        matched = [f for f in sorted(project.files) if glob_matches(f, path)]
        if not matched:
            return f"{text}: the glob matches no file in the tree"
        return [Name(text, FILE, f) for f in matched]
    if project.is_dir(path):
        return [Name(text, DIR, path.rstrip("/") or ".")]
    if _DOTTED.match(path) and path.rsplit(".", 1)[-1] not in _SOURCE_SUFFIXES:
        return [Name(text, TEST, "", (), path)]
    if _path_shaped(path) or not project.files:
        return [Name(text, FILE, path)]
    return [Name(text, TEST, title=text)]


def _path_shaped(text: str) -> bool:
    """A name no file or directory of the tree has, read as a path all the same (one the step
    deleted, a typo): a source file's name, a directory's trailing slash, or a slashed word
    with no space. Anything else is a test's title in a runner's own words."""
    if text.endswith("/") or _SOURCE_FILE.search(text):
        return True
    return "/" in text and not any(c.isspace() for c in text)


def glob_matches(path: str, pattern: str) -> bool:
    """gitignore-free glob matching over repository paths: `**` crosses directories, `*` does
    not; a pattern without a slash matches the file name anywhere."""
    if "/" not in pattern:
        return fnmatch.fnmatchcase(path.rsplit("/", 1)[-1], pattern)
    regex = re.compile(_glob_regex(pattern.removeprefix("./")))
    return regex.fullmatch(path) is not None


def _glob_regex(pattern: str) -> str:
    out, i = [], 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        elif pattern[i] == "*":
            out.append("[^/]*")
            i += 1
        elif pattern[i] == "?":
            out.append("[^/]")
            i += 1
        elif pattern[i] == "{" and "}" in pattern[i:]:
            end = pattern.index("}", i)
            out.append(
                "(?:" + "|".join(re.escape(o) for o in pattern[i + 1 : end].split(",")) + ")"
            )
            i = end + 1
        else:
            out.append(re.escape(pattern[i]))
            i += 1
    return "".join(out)


def files_of(names: Iterable[Name], project: Project, is_test: Callable[[str], bool]) -> list[str]:
    """The test files the names stand for: a file itself, a directory's test files, a test's
    file; in order, each once."""
    out: list[str] = []
    for name in names:
        if name.kind == FILE:
            out.append(name.path)
        elif name.kind == DIR:
            out += [f for f in project.under(name.path) if is_test(f)]
        elif name.path:
            out.append(name.path)
    return list(dict.fromkeys(out))
