"""node's built-in runner (`node --test`) and TAP producers like it: TAP lines, nested
`# Subtest:` names joined as "suite > test", `# pass N` counts, `Bail out!`; and node's own
spec reporter (`--test-reporter=spec`, its default on a terminal), read to the same ids. Ids never keep
a duration (`# time=40.659ms`, which node-tap prints after a test's name).

The `dot` reporter prints no test's name but a failing one's: one mark a test (`.` passed,
`X` failed, suites included), then `Failed tests:` and a `✖ name` for each. Its marks are the
run's counts and its failures are named by their own titles; the harness's own runs of the
runner ask for TAP instead (`listing`), so that every test has an id."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from summarizers.runners import spec_log, tap_log
from summarizers.runners.base import Default, Reading, RunSetup, Selected, Unselectable
from summarizers.runners.jsargs import is_js_test_file
from summarizers.runners.messages import failure_messages
from summarizers.runners.model import FAILED, PASSED, SKIPPED, Target, worst
from summarizers.runners.names import DIR, FILE, TEST, Name, Project
from summarizers.runners.outputs import Output, written
from summarizers.runners.stopargs import StopFlag
from summarizers.runners.tap_log import (
    SUBTEST,
    TEST_LINE,
    enter_subtest,
    tape_style,
    tape_test,
    test_path,
)
from summarizers.runners.targets import fileless_target

BAIL_REPORTER = "@reporters/bail"

_TIME = re.compile(r"\s*#\s*time=\s*[\d.]+\s*m?s\s*$")
_COUNT = re.compile(r"^# (tests|pass|fail|cancelled|skipped|todo)\s+(\d+)$")
_BAIL = re.compile(r"^\s*Bail out!(.*)$")
_DOTS = re.compile(r"^[.X]+$")
_FAILED_TESTS = "Failed tests:"
_DOT_FAILURE = re.compile(r"^✖ (.+?)(?: \([\d.]+m?s\))?$")
_QUIET_REPORTERS = frozenset({"dot"})
"""Reporters that name no passing test: the harness's own runs get TAP in their place."""


def stable_name(name: str) -> str:
    """A TAP test name without the duration some producers append to it."""
    return _TIME.sub("", name)


_SEPARATOR = " > "


_OUTPUTS: tuple[Output, ...] = (Output("--test-reporter-destination", skip=("stdout", "stderr")),)
"""Its options that name a file or directory for it to write."""


class NodeTest:
    name = "node-test"
    config_files = ("package.json",)
    artifacts = ("coverage/", ".nyc_output/")
    setup = RunSetup()
    caches: tuple[str, ...] = ()
    default: Default | None = Default("node --test", ("*.test.js", "*.test.mjs", "*.test.cjs"))

    def sniff(self, lines: list[str]) -> float:
        """TAP with node --test's own marks (`duration_ms:` YAML, `# suites`); other TAP
        (tape, node-tap) is the tap module's."""
        if spec_log.is_spec(lines):
            return 1.0
        tap = min(tap_log.sniff(lines) / 10.0, 1.0)
        own = any(
            line.lstrip().startswith("duration_ms:")
            or line.startswith(("# suites ", "# duration_ms "))
            for line in lines
        )
        return tap if own else max(tap * 0.2, _dot_sniff(lines))

    def read(self, lines: list[str]) -> Reading:
        if spec_log.is_spec(lines):
            found, counts = spec_log.outcomes(lines)
            messages = failure_messages(spec_log.parse, lines)
            return Reading(outcomes=found, messages=messages, counts=counts)
        outcomes: dict[str, str] = {}
        stack: list[str] = []
        tape = tape_style(lines)
        for line in lines:
            sub = SUBTEST.match(line)
            if sub:
                enter_subtest(stack, sub)
                continue
            m = TEST_LINE.match(line)
            if not m:
                if tape and (name := tape_test(line)) is not None:
                    stack[:] = [name]
                continue
            level = len(stack) if tape else len(m.group(1)) // 4
            name = stable_name((m.group(3) or "").replace("\\#", "#"))
            outcome = SKIPPED if m.group(4) else PASSED if m.group(2) == "ok" else FAILED
            ident = stable_name(test_path([stable_name(s) for s in stack], level, name)).strip()
            if ident:
                outcomes[ident] = worst(outcomes.get(ident), outcome)
        if not outcomes and (dots := _dot_reading(lines)) is not None:
            return dots
        return Reading(
            outcomes=outcomes,
            messages=failure_messages(tap_log.parse, lines, stable_name),
            incomplete=_bailed(lines),
            counts=_counts(lines),
        )

    def writes(self, args: list[str]) -> tuple[str, ...]:
        return written(args, _OUTPUTS)

    def invoked_at(self, argv: list[str]) -> int | None:
        if argv and argv[0].rsplit("/", 1)[-1] == "node" and "--test" in argv:
            return argv.index("--test") + 1
        return None

    def stop_flags(self, args: list[str]) -> list[StopFlag]:
        """node --test bails only through a reporter. Reporters pair with destinations by
        position, so with any destination given the reporter is reported, not cut."""
        safe = not any(a.startswith("--test-reporter-destination") for a in args)
        for i, arg in enumerate(args):
            if arg == f"--test-reporter={BAIL_REPORTER}":
                return [StopFlag(i, safe=safe)]
            if arg == "--test-reporter" and args[i + 1 : i + 2] == [BAIL_REPORTER]:
                return [StopFlag(i, 2, safe=safe)]
        return []

    def select(
        self, args: list[str], names: Sequence[Name], project: Project
    ) -> Selected | Unselectable:
        """Files and directories as node takes them (it searches a directory for test files),
        a test by `--test-name-pattern` on its own name (node matches each test's name, not
        its path); a test named without its file (node's own test name) by that alone, in
        the files the command itself runs. Its ids are names without the file: a file or
        directory named stands for every test of the run it selects."""
        paths: list[str] = []
        leaves: list[str] = []
        targets: list[Target] = []
        for name in names:
            if name.kind in (FILE, DIR):
                paths.append(project.relative(name.path))
                targets.append(Target(name.text, name.kind, prefixes=("",), files=(name.path,)))
                continue
            if name.title:
                leaves.append(name.title)
                targets.append(_named_alone(name))
                continue
            title = name.parts if project.is_file(name.path) else (name.path, *name.parts)
            title = tuple(t for t in title if t)
            if project.is_file(name.path):
                paths.append(project.relative(name.path))
            leaves.append(title[-1])
            ident = _SEPARATOR.join(title)
            parents = frozenset(_SEPARATOR.join(title[:k]) for k in range(1, len(title)))
            targets.append(
                Target(
                    name.text,
                    TEST,
                    frozenset({ident}),
                    (ident + _SEPARATOR,),
                    parents,
                    (name.path,) if project.is_file(name.path) else (),
                )
            )
        if not paths and not leaves:
            return Unselectable("no test is named")
        options = self.listing([a for a in args if a.startswith("-")])
        if leaves and all(n.kind == TEST for n in names):
            pattern = "^(?:" + "|".join(re.escape(leaf) for leaf in leaves) + ")$"
            options.append(f"--test-name-pattern={pattern}")  # node reads options before files
        if any(n.fileless for n in names):
            paths = []
        kept = options + (paths or [a for a in args if not a.startswith("-")])
        return Selected(kept, tuple(targets))

    def listing(self, args: list[str]) -> list[str]:
        """A reporter that names no passing test (`dot`) swapped for TAP, where it writes."""
        out = list(args)
        for i, arg in enumerate(out):
            if arg.startswith("--test-reporter=") and arg.split("=", 1)[1] in _QUIET_REPORTERS:
                out[i] = "--test-reporter=tap"
            elif arg == "--test-reporter" and out[i + 1 : i + 2] and out[i + 1] in _QUIET_REPORTERS:
                out[i + 1] = "tap"
        return out

    def is_test_file(self, path: str) -> bool:
        return is_js_test_file(path)

    def read_report(self, reports: Mapping[str, bytes]) -> dict[str, str] | None:
        return None

    def ran_nothing(self, reading: Reading, exit_code: int | None, lines: list[str]) -> str | None:
        if reading.outcomes:
            return None
        return next((x.strip() for x in lines if x.strip() == "# tests 0"), None)


def _named_alone(name: Name) -> Target:
    """A test named by its own name, without file or suite (what `--test-name-pattern`
    matches in node 20; later nodes also match the suites' names before it, joined by
    spaces): the ids that end in that name, or whose title path is those words."""
    leaf = rf"(?:.* > )?{re.escape(name.title)}(?: > |$)"
    whole = fileless_target(name, (name.title,), file_first=False).generated
    return Target(name.text, TEST, generated=f"(?:{leaf}|{whole})")


def _bailed(lines: list[str]) -> str | None:
    for line in lines:
        m = _BAIL.match(line)
        if m:
            reason = m.group(1).strip()
            return "the test runner bailed out" + (f" ({reason})" if reason else "")
    return None


def _dot_sniff(lines: list[str]) -> float:
    """The dot reporter's look: lines of marks, then its `Failed tests:`; a log of nothing but
    marks (and npm's banner) only weakly, since other runners print progress dots too."""
    text = [x.strip() for x in lines if x.strip()]
    marks = [x for x in text if _DOTS.match(x)]
    if not marks or (len(marks) > 1 and len(marks[1]) == len(marks[0]) + 1):
        return 0.0  # drawings growing a mark at a time: node-tap's dot reporter redraws its line
    if _FAILED_TESTS in text:
        return 0.5
    return 0.35 if all(_DOTS.match(x) or x.startswith("> ") for x in text) else 0.0


def _dot_reading(lines: list[str]) -> Reading | None:
    """The dot reporter's marks as counts and its `Failed tests:` as failures by title; None
    when the lines hold no marks."""
    marks = "".join(line.strip() for line in lines if _DOTS.match(line.strip()))
    if not marks:
        return None
    outcomes: dict[str, str] = {}
    messages: dict[str, str] = {}
    listed = False
    for i, line in enumerate(lines):
        if line.strip() == _FAILED_TESTS:
            listed = True
            continue
        failure = _DOT_FAILURE.match(line) if listed else None
        if failure:
            title = failure.group(1).strip()
            outcomes[title] = FAILED
            said = next((x.strip() for x in lines[i + 1 : i + 4] if x.strip()), "")
            if said:
                messages[title] = said
    counts = {"passed": marks.count("."), "failed": marks.count("X")}
    return Reading(outcomes=outcomes, messages=messages, counts=counts)


def _counts(lines: list[str]) -> dict[str, int]:
    found: dict[str, int] = {}
    for line in lines:
        m = _COUNT.match(line)
        if m:
            key = {"pass": "passed", "fail": "failed"}.get(m.group(1), m.group(1))
            found[key] = int(m.group(2))
    return found


NODE_TEST = NodeTest()
