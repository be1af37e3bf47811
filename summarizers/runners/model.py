"""What one run of a test command said, read once into facts: the seam between the runner
modules (how each runner's output is read) and the verdict (how a run is judged).

A log is a sequence of sections (`a && b`, npm `pre`/`post` hooks, several pytest sessions,
a monorepo's suites); each section is read with its own format. Everything downstream works
on these fields and never parses evidence text again.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

PASSED, FAILED, ERROR, SKIPPED, XFAILED = "passed", "failed", "error", "skipped", "xfailed"
OUTCOMES = (PASSED, FAILED, ERROR, SKIPPED, XFAILED)
"""A test's outcome. `xfailed` is a test marked as expected to fail (pytest's XFAIL), kept
apart from `skipped` so that a test newly marked xfail can be told from one skipped before.
An unexpected pass (XPASS) is `passed`."""
FAILING = (FAILED, ERROR)
NOT_RUN = (SKIPPED, XFAILED)

TESTS, LINT, TYPECHECK, BUILD, HOOK, OTHER = "tests", "lint", "typecheck", "build", "hook", "other"
SECTION_KINDS = (TESTS, LINT, TYPECHECK, BUILD, HOOK, OTHER)

SECTION_MARK = "[coder] section: "
"""A line the harness prints before each part of a composite command it splits (`a && b`):
`[coder] section: <the part's command>`. The log reader starts a new section there."""


@dataclass(frozen=True)
class Section:
    """One part of a log: one command's output (a test runner, a linter, a hook)."""

    name: str
    """What ran, as a person would name it: the command, or the npm script (`posttest: eslint .`)."""
    kind: str
    """One of SECTION_KINDS: a test runner's section, or what else it is."""
    runner: str | None = None
    """The runner module that read it (`pytest`, `vitest`, `jest`, `mocha`, `tap`,
    `node-test`, `unittest`), or None for a section no runner recognised."""
    outcomes: dict[str, str] = field(default_factory=dict)
    """Stable test id -> one of OUTCOMES. Ids never hold durations, timestamps, worker ids,
    seeds, PIDs or temporary paths, so two runs of the same suite give the same ids."""
    messages: dict[str, str] = field(default_factory=dict)
    """Failing id -> how it failed ("ExcType: message"), one line."""
    errors: list[str] = field(default_factory=list)
    """Failures that belong to no test, each one line: vitest's unhandled errors and type
    errors, jest's suite and snapshot failures, a coverage gate, a lint finding, the first
    error lines of a section that failed without naming a test."""
    incomplete: str | None = None
    """Why this section did not run every test it selected (a bail-out, `-x`, a collection
    error), or None. A section that stopped early is never evidence that tests pass."""
    exit_code: int | None = None
    """The section's own exit status where the log shows it (harness section marks), else None."""
    start: int = 0
    end: int = 0
    """[start, end) line indices of the section in the prepared log."""
    counts: dict[str, int] = field(default_factory=dict)
    """What the runner's own summary line says (`passed`, `failed`, ...); empty when none."""
    command: str = ""
    """The part's own command where the log names it; empty otherwise."""
    script: bool = False
    """It ran as a package.json script (npm puts `node_modules/.bin` on its PATH)."""
    all_listed: bool = False
    """Every test the section ran is in `outcomes` (a structured report, or a log whose
    per-test lines add up to the runner's own counts): only then does a test absent from it
    mean that it did not run."""

    @property
    def failing(self) -> list[str]:
        return sorted(t for t, o in self.outcomes.items() if o in FAILING)

    @property
    def passed(self) -> int:
        return sum(1 for o in self.outcomes.values() if o == PASSED)


@dataclass(frozen=True)
class TestLog:
    """A whole run's output, read once."""

    sections: list[Section]

    @property
    def outcomes(self) -> dict[str, str]:
        """Every section's outcomes in one map (the worst outcome where an id repeats)."""
        merged: dict[str, str] = {}
        for section in self.sections:
            for ident, outcome in section.outcomes.items():
                merged[ident] = worst(merged.get(ident), outcome)
        return merged

    @property
    def messages(self) -> dict[str, str]:
        return {k: v for s in self.sections for k, v in s.messages.items()}

    @property
    def incomplete(self) -> str | None:
        return next((s.incomplete for s in self.sections if s.incomplete), None)

    @property
    def all_listed(self) -> bool:
        """Every test section lists all the tests it ran (see `Section.all_listed`)."""
        tests = [s for s in self.sections if s.kind == TESTS]
        return bool(tests) and all(s.all_listed for s in tests)


_RANK = {SKIPPED: 0, XFAILED: 0, PASSED: 1, FAILED: 2, ERROR: 3}


def worst(old: str | None, new: str) -> str:
    """A test seen twice keeps its worst outcome (passed its call, errored in teardown: error)."""
    if old is None or _RANK[new] >= _RANK[old]:
        return new
    return old


@dataclass(frozen=True)
class Target:
    """What one name in a contract (a file, a directory, a test id in any spelling) stands for
    among the ids a run reports, as the runner that ran it spells them.

    Made by the runner module that selected the tests (`Runner.select`), so that nothing else
    needs to know how a runner spells an id: the judge and the proof only ask `covers`.
    """

    name: str
    """The name as the contract wrote it."""
    kind: str
    """`file`, `dir` or `test` (one test, or a class or describe block of tests)."""
    exact: frozenset[str] = frozenset()
    """Ids that are this name itself (a test's own id; a file's id when it failed to load)."""
    prefixes: tuple[str, ...] = ()
    """Ids starting with one of these are inside the name (`f.py::`, `test/a.js > `). The
    empty prefix: every id of the run (a runner whose ids do not name their file)."""
    holders: frozenset[str] = frozenset()
    """Ids whose failure fails every test inside the name (its file failed to load)."""
    files: tuple[str, ...] = ()
    """The repository's test files the name lives in, where the runner can tell."""
    generated: str = ""
    """A regular expression for the ids of cases generated from it under other names
    (parameterized's `test_x_0`, `test_x_1_a`), where the runner's ids have such."""

    def covers(self, test_id: str) -> bool:
        if test_id in self.exact or test_id.startswith(self.prefixes):
            return True
        return bool(self.generated) and re.match(self.generated, test_id) is not None


def spelled_target(name: str) -> Target:
    """The name as coder's own printed ids spell what is inside it (`file > describe > test`,
    `file::Class::test[param]`, a directory's files): for a command no runner module reads."""
    bare = name.rstrip("/")
    return Target(
        name,
        "test" if " > " in name or "::" in name else "file",
        frozenset({bare}),
        (f"{bare}::", f"{bare} > ", f"{bare}[", f"{bare}/"),
    )


def covered(test_id: str, targets: Iterable[Target]) -> bool:
    """Whether any of `targets` covers `test_id`."""
    return any(t.covers(test_id) for t in targets)
