"""What a runner module provides: the `Runner` protocol.

A runner is one module that owns everything about itself, and nothing outside the runner
modules knows a runner's name, flags, id spelling or output: how it is recognised in a
command, how it selects the tests a contract names (a file, a directory, a glob, an id in any
spelling), how every test it ran gets an id (a report it writes, a verbose mode), what its runs
write into the tree and into the project's dependency directory, which of its flags stop a run
early, what "ran no test" looks like, the command a newcomer would try on a project it claims.
A runner that runs a benchmark instance's tests the way the benchmark's own harness does is
also a `Grader`. Adding
a runner is one module that satisfies this protocol and one row in `table.RUNNERS` (and a row
of the conformance matrix in tests/conformance).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from summarizers.runners.model import Target
from summarizers.runners.names import Name, Project
from summarizers.runners.stopargs import StopFlag


@dataclass(frozen=True)
class Reading:
    """What a runner read from its own section of a log (the section reader adds the rest)."""

    outcomes: dict[str, str] = field(default_factory=dict)
    messages: dict[str, str] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)
    incomplete: str | None = None
    counts: dict[str, int] = field(default_factory=dict)
    """What the runner's own summary line says (`passed`, `failed`, `skipped`, ...), to check
    the per-test outcomes against; empty when it printed none."""
    locations: dict[str, str] = field(default_factory=dict)
    """Failing id -> where it failed (`test/a.test.js:12:5`), where the runner prints it."""


@dataclass(frozen=True)
class Selected:
    """A runner's own arguments changed to run exactly the tests some names stand for."""

    args: list[str]
    targets: tuple[Target, ...]
    """Each name as the ids of this run spell what it covers (for the judge and the proof)."""


@dataclass(frozen=True)
class Unselectable:
    reason: str
    """Why the runner cannot run just those tests; the whole command runs, and is said so."""


@dataclass(frozen=True)
class RunSetup:
    """What every run the harness makes sets up for a runner, whatever the command looks like
    (the runner may be deep in a script): environment (pytest's `PYTEST_ADDOPTS`: run every
    test, name each test's file) and shell lines run first (asking for a report in
    `$CODER_REPORTS`, whose path only the sandbox knows)."""

    env: Mapping[str, str] = field(default_factory=dict)
    prelude: str = ""
    refused: str = ""
    """Output that says the setup itself failed (a plugin the command's own environment could
    not import); the run is made again with `fallback` over `env`."""
    fallback: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Default:
    """The command a newcomer would try on a project with no `test` script of its own, and
    what makes them try this runner: a file matching one of `test_files` anywhere in the tree
    (outside hidden and dependency directories), else one of `project_files` at its top. The
    runners are asked in table order, all by their test files first. `{python}` in `command`
    stands for the project's interpreter (its own `.venv`'s where it has one)."""

    command: str
    test_files: tuple[str, ...]
    project_files: tuple[str, ...] = ()


class Runner(Protocol):
    @property
    def name(self) -> str:
        """Table key and what the evidence calls it."""
        ...

    @property
    def artifacts(self) -> tuple[str, ...]:
        """What its runs write into the tree whatever its arguments say (its configuration
        may name them): `dir/` a directory of that name anywhere (`.tap/`, `coverage/`), a
        name a file anywhere (`*.tsbuildinfo`), `./path` a file or directory where it runs
        (`./junit.xml`). Never the model's doing, never committed, never a scratch file."""
        ...

    def writes(self, args: list[str]) -> tuple[str, ...]:
        """The paths its own arguments `args` tell it to write (`--junitxml=junit.xml`,
        `--outputFile.junit=out/junit.xml`), relative to where it runs: artifacts too."""
        ...

    @property
    def caches(self) -> tuple[str, ...]:
        """Directories its runs write under the project's dependency directory
        (`node_modules/<name>`): where that directory is the checkout's own, each gets a
        throwaway one, so a run never writes into what the owner installed."""
        ...

    @property
    def default(self) -> Default | None:
        """What it offers a project that names no test command (None: never the default)."""
        ...

    @property
    def config_files(self) -> tuple[str, ...]:
        """File names (globs) that change how it runs and reports tests (`conftest.py`,
        `jest.config.*`): a step that changes one has it named in its evidence."""
        ...

    @property
    def setup(self) -> RunSetup:
        """Applied to every run the harness makes of a test command."""
        ...

    def invoked_at(self, argv: list[str]) -> int | None:
        """When `argv` (one simple command, words as the shell sees them) runs this runner,
        the index of its first own argument (`npx vitest run x` -> 3); else None."""
        ...

    def select(
        self, args: list[str], names: Sequence[Name], project: Project
    ) -> Selected | Unselectable:
        """Its own arguments `args` changed to run exactly the tests `names` stand for, in
        every form a contract can name them, with what the harness needs from such a run
        (every test listed by id, no coverage gate one file cannot meet)."""
        ...

    def listing(self, args: list[str]) -> list[str]:
        """`args` (its own, where the command runs it directly) changed so that every test it
        runs gets an id in the output (unittest's `-v`); `args` when nothing is needed."""
        ...

    def is_test_file(self, path: str) -> bool:
        """Whether a repository path is a test file (or a test's helper: conftest.py) by this
        runner's conventions: what a proof lays over the code as it was before a step."""
        ...

    def sniff(self, lines: list[str]) -> float:
        """How much these lines look like this runner's output, 0 (not at all) to 1."""
        ...

    def read(self, lines: list[str]) -> Reading:
        """Per-test outcomes with stable ids, failure messages, failures of no test, and
        whether the runner says it stopped early. Pure; never raises on odd input."""
        ...

    def read_report(self, reports: Mapping[str, bytes]) -> dict[str, str] | None:
        """Outcomes from the structured report the harness asked for (files the command left
        in `$CODER_REPORTS`), or None when there is none: they replace the log's."""
        ...

    def ran_nothing(self, reading: Reading, exit_code: int | None, lines: list[str]) -> str | None:
        """How this runner said it ran no test at all (`no tests ran`, `Ran 0 tests`, exit
        5), in its own words; None when it ran some or cannot tell."""
        ...

    def stop_flags(self, args: list[str]) -> list[StopFlag]:
        """The runner's own stop-at-first-failure flags in `args` (`-x`, `--bail 2`,
        `--maxfail=1`, the x of `-xvs`), which the harness takes out of its own runs."""
        ...


class Grader(Protocol):
    """A runner that runs a benchmark instance's tests as the benchmark's official harness
    does, when the instance names its tests in this runner's own id spelling: a command over
    the test files with a report the harness asks for, its outcomes read from that report
    alone (never from the log, which a patch can print into)."""

    @property
    def name(self) -> str: ...

    @property
    def language(self) -> str:
        """What the bench's rows call the instances it grades (`python`)."""
        ...

    @property
    def report(self) -> str:
        """The report's file name in the command's reports directory."""
        ...

    @property
    def report_said(self) -> str:
        """How the evaluation names where its outcomes came from."""
        ...

    def grades(self, ids: Sequence[str]) -> bool:
        """Whether every id is spelled as this runner's own."""
        ...

    def graded_command(self, ids: Sequence[str], files: Sequence[str], reports: str) -> str:
        """The command that runs `files` (the test files the instance's test patch touches)
        and every file an id of `ids` lives in, writing its report into `reports` (a shell
        word: `$CODER_REPORTS`)."""
        ...

    def read_graded(self, data: bytes) -> dict[str, str] | None:
        """Test id -> outcome from the report; None when it cannot be read."""
        ...
