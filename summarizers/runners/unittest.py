"""unittest (`python -m unittest`, also what Django's test runner prints): `-v` result lines,
FAIL:/ERROR: blocks, the `Ran N tests` summary. Python 3.11+ prints a test's full dotted id in
parentheses; older ones only `module.Class`: both become `module.Class.test`.

Without `-v` unittest names only its failures, so every harness run is made verbose. A test's
id is dotted from the top-level directory of discovery (`discover tests` makes `tests/a/test_b.py`
the module `a.test_b`; `-t .` makes it `tests.a.test_b`), so selection keeps the command's own
discovery, and with it the baseline's ids, and narrows it with `-k` patterns (which match the
full dotted id); a command that names its modules gets the selected modules instead.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable, Mapping, Sequence

from summarizers.runners import unittest_log
from summarizers.runners.base import Default, Reading, RunSetup, Selected, Unselectable
from summarizers.runners.jsargs import positionals
from summarizers.runners.messages import failure_messages
from summarizers.runners.model import ERROR, FAILED, PASSED, SKIPPED, XFAILED, Target, worst
from summarizers.runners.names import DIR, FILE, TEST, Name, Project
from summarizers.runners.outputs import Output, written
from summarizers.runners.stopargs import StopFlag, cluster_flag
from summarizers.runners.unittest_log import unittest_id

_HEAD = re.compile(r"^\s*([\w.]+) \(([\w.]+)\)((?: \(.*?\))?)(?: \.\.\. ?)?$")
_TAIL = re.compile(r"^.* \.\.\. (ok|FAIL|ERROR|skipped.*|expected failure|unexpected success)$")
_BLOCK = re.compile(r"^(FAIL|ERROR): ([\w.]+) \(([\w.]+)\)(.*)$")
_FULL = re.compile(r"^\s*([\w.]+) \(([\w.]+)\)((?: \(.*?\))?) \.\.\. ")
_ALONE = re.compile(r"^(ok|FAIL|ERROR|skipped.*|expected failure|unexpected success)$")
"""A result on a line of its own: the test wrote to the stream after its `... `."""
_WORD = {
    "ok": PASSED,
    "FAIL": FAILED,
    "ERROR": ERROR,
    "unexpected success": FAILED,
    "expected failure": XFAILED,
}
_RAN = re.compile(r"^Ran (\d+) tests? in [\d.]+s$")
_RESULT = re.compile(r"^(?:OK|FAILED)(?: \((.*)\))?$")
_STOP_FLAGS = ("-f", "--failfast")
_WITH_VALUE = {"-k", "-s", "-p", "-t", "--start-directory", "--pattern", "--top-level-directory"}
_DISCOVERY = {"-s", "--start-directory", "-p", "--pattern", "-t", "--top-level-directory"}
_NO_TESTS = re.compile(r"^Ran 0 tests\b|^NO TESTS RAN$")


_OUTPUTS: tuple[Output, ...] = ()
"""Its options that name a file or directory for it to write."""


class Unittest:
    name = "unittest"
    config_files = ("__init__.py",)
    artifacts = ("__pycache__/", ".coverage", ".coverage.*")
    setup = RunSetup()
    caches: tuple[str, ...] = ()
    default: Default | None = None

    def sniff(self, lines: list[str]) -> float:
        return min(unittest_log.sniff(lines) / 8.0, 1.0)

    def read(self, lines: list[str]) -> Reading:
        outcomes: dict[str, str] = {}
        pending: str | None = None
        for line in lines:
            head = _HEAD.match(line)
            tail = _TAIL.match(line)
            opened = None if tail else head or _FULL.match(line)
            if opened:
                pending = unittest_id(opened.group(1), opened.group(2), opened.group(3))
                continue
            alone = _ALONE.match(line.strip()) if pending else None
            if alone and pending:
                _record(outcomes, pending, _WORD.get(alone.group(1), SKIPPED))
                pending = None
                continue
            if tail:
                full = _FULL.match(line)
                ident = (
                    unittest_id(full.group(1), full.group(2), full.group(3)) if full else pending
                )
                if ident:
                    outcome = _WORD.get(tail.group(1), SKIPPED)
                    _record(outcomes, ident, outcome)
                    if full and full.group(3) and outcome in (FAILED, ERROR):
                        _record(outcomes, unittest_id(full.group(1), full.group(2), ""), FAILED)
                pending = None
                continue
            block = _BLOCK.match(line)
            if block:
                outcome = ERROR if block.group(1) == "ERROR" else FAILED
                _record(
                    outcomes, unittest_id(block.group(2), block.group(3), block.group(4)), outcome
                )
            if block or _RAN.match(line) or line.startswith("=" * 20):
                pending = None
        return Reading(
            outcomes=outcomes,
            messages=failure_messages(unittest_log.parse, lines),
            counts=_counts(lines),
        )

    def writes(self, args: list[str]) -> tuple[str, ...]:
        return written(args, _OUTPUTS)

    def invoked_at(self, argv: list[str]) -> int | None:
        for i, word in enumerate(argv):
            if word == "-m" and i + 1 < len(argv) and argv[i + 1] == "unittest":
                return i + 2
        return None

    def stop_flags(self, args: list[str]) -> list[StopFlag]:
        flags: list[StopFlag] = []
        for i, arg in enumerate(args):
            if arg in _STOP_FLAGS:
                flags.append(StopFlag(i))
            elif (cluster := cluster_flag(i, arg, "f", "vqfcb")) is not None:
                flags.append(cluster)
        return flags

    def select(
        self, args: list[str], names: Sequence[Name], project: Project
    ) -> Selected | Unselectable:
        discovery = _Discovery.of(args)
        dotted: list[str] = []
        targets: list[Target] = []
        for name in names:
            found = discovery.dotted(name, project)
            if isinstance(found, Unselectable):
                return found
            files = _files(name, project, self.is_test_file)
            dotted += found
            for ident in found:
                targets.append(_target(name, ident, files))
        if discovery.modules is not None:
            if any(ident.startswith(_ANYWHERE) for ident in dotted):
                return Unselectable(
                    "a test named from its class (`Class.test`) cannot be selected from the "
                    "modules this command names: name its file (`path/test_x.py::Class::test`)"
                )
            kept = [a for i, a in enumerate(args) if i not in discovery.modules]
            new = [*kept, *dict.fromkeys(dotted)]
        else:
            patterns = (p for ident in dict.fromkeys(dotted) for p in _patterns(ident))
            new = [*args, *(w for p in patterns for w in ("-k", p))]
        return Selected(self.listing(new), tuple(targets))

    def listing(self, args: list[str]) -> list[str]:
        """`-v`, after `discover` where the command has it (unittest reads `discover` only as
        its first argument)."""
        if "-v" in args or "--verbose" in args:
            return args
        at = 1 if args[:1] == ["discover"] else 0
        return [*args[:at], "-v", *args[at:]]

    def is_test_file(self, path: str) -> bool:
        return bool(re.search(r"(?:^|/)test[^/]*\.py$", path))

    def read_report(self, reports: Mapping[str, bytes]) -> dict[str, str] | None:
        return None

    def ran_nothing(self, reading: Reading, exit_code: int | None, lines: list[str]) -> str | None:
        if reading.outcomes or reading.counts.get("ran"):
            return None
        return next((line.strip() for line in lines[-50:] if _NO_TESTS.match(line.strip())), None)


class _Discovery:
    """Where the command's tests come from: the modules it names (indices in its arguments),
    or discovery from a top-level directory (ids are dotted from there)."""

    def __init__(self, top: str, modules: list[int] | None) -> None:
        self.top = top
        self.modules = modules

    @classmethod
    def of(cls, args: list[str]) -> _Discovery:
        loose = positionals(args, _WITH_VALUE)
        if "discover" not in args and loose:
            return cls(".", loose)
        start = top = None
        after = [i for i in loose if args[i] != "discover"]
        for i, arg in enumerate(args[:-1]):
            if arg in ("-s", "--start-directory"):
                start = args[i + 1]
            elif arg in ("-t", "--top-level-directory"):
                top = args[i + 1]
        if start is None and after:
            start = args[after[0]]
        if top is None and len(after) > 2:
            top = args[after[2]]
        return cls(posixpath.normpath(top or start or "."), None)

    def dotted(self, name: Name, project: Project) -> list[str] | Unselectable:
        """The dotted ids (modules, classes, tests) a name stands for, as this discovery
        spells them."""
        if name.fileless:
            return Unselectable(
                f"`{name.text}` names no module; unittest selects a test by its dotted id "
                "(`pkg.test_module.Class.test_name`)"
            )
        if name.kind == TEST and name.dotted:
            own = self._own(name.dotted)
            return [own if self._anchored(own, project) else _ANYWHERE + own]
        if name.kind == TEST:
            module = self._module(name.path, project)
            if module is None:
                return Unselectable(f"{name.text}: not a Python file under {self.top}/")
            return [".".join([module, *(p.split("[")[0] for p in name.parts)])]
        if name.kind == DIR:
            module = self._module(name.path.rstrip("/") + "/__init__.py", project)
            if module is None:
                return Unselectable(f"{name.text}: not a directory under {self.top}/")
            return [module.removesuffix(".__init__").removesuffix("__init__")]
        module = self._module(name.path, project)
        if module is None:
            return Unselectable(f"{name.text}: not a Python file under {self.top}/")
        return [module]

    def _module(self, path: str, project: Project) -> str | None:
        seen = project.relative(path)
        if not seen.endswith(".py"):
            return None
        inside = posixpath.relpath(seen, self.top) if self.top != "." else seen
        if inside.startswith("../"):
            return None
        return inside[: -len(".py")].replace("/", ".")

    def _anchored(self, dotted: str, project: Project) -> bool:
        """The id starts at a module or package at the top of discovery (else it is named from
        its class, or from a package below the top: `Class.test`, `sub.test_x.Class.test`)."""
        first = dotted.split(".", 1)[0]
        top = "" if self.top == "." else self.top + "/"
        return f"{top}{first}.py" in project.files or bool(project.under(f"{top}{first}"))

    def _own(self, dotted: str) -> str:
        """A dotted id spelled from the repository's root (`tests.a.test_b.T.t`) as this
        discovery spells it (`a.test_b.T.t` under `discover tests`)."""
        prefix = self.top.replace("/", ".") + "."
        return dotted[len(prefix) :] if self.top != "." and dotted.startswith(prefix) else dotted


def _files(name: Name, project: Project, is_test: Callable[[str], bool]) -> tuple[str, ...]:
    if name.kind == DIR:
        return tuple(f for f in project.under(name.path) if is_test(f))
    return (name.path,) if name.path else ()


_ANYWHERE = "*."
"""Marks a dotted id that does not start at the top of discovery: it matches at any depth."""


def _patterns(ident: str) -> tuple[str, ...]:
    """`-k` patterns (fnmatch against the whole dotted id once one holds a `*`): an anchored
    id and what is below it; an unanchored one at any depth, itself or what is below it."""
    if ident.startswith(_ANYWHERE):
        return (ident, ident + ".*")
    return (f"{ident}*",)


def _target(name: Name, ident: str, files: tuple[str, ...]) -> Target:
    """A module, class or test by its dotted id: it and what is below it; every module above
    it (one that failed to import fails all its tests)."""
    kind = name.kind if name.kind in (FILE, DIR) else TEST
    if not ident:
        return Target(name.text, kind, frozenset(), ("",), frozenset(), files)
    if ident.startswith(_ANYWHERE):
        tail = re.escape(ident.removeprefix(_ANYWHERE))
        return Target(name.text, kind, files=files, generated=rf"(?:.*\.)?{tail}(?:\.|$)")
    parts = ident.split(".")
    holders = frozenset(".".join(parts[:k]) for k in range(1, len(parts)))
    return Target(name.text, kind, frozenset({ident}), (ident + ".",), holders, files)


def _record(outcomes: dict[str, str], ident: str, outcome: str) -> None:
    ident = ident.strip()
    if ident:
        outcomes[ident] = worst(outcomes.get(ident), outcome)


def _counts(lines: list[str]) -> dict[str, int]:
    ran = next((int(m.group(1)) for line in lines if (m := _RAN.match(line))), None)
    if ran is None:
        return {}
    found = {"ran": ran}
    for line in lines[-20:]:
        m = _RESULT.match(line)
        for part in (m.group(1) or "").split(", ") if m else []:
            key, _, number = part.partition("=")
            if number.isdigit():
                found[key] = int(number)
    return found


UNITTEST = Unittest()
