"""Small real `Runner` objects for tests of how a command is taken apart (select_tests),
independent of what each runner module's own `select` does: each knows its program names,
and `select` replaces trailing path arguments with the names as written."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from summarizers.runners.base import Default, Reading, RunSetup, Selected, Unselectable
from summarizers.runners.model import spelled_target
from summarizers.runners.names import TEST, Name, Project


@dataclass
class TableRunner:
    name: str
    programs: tuple[str, ...] = ()
    module: str | None = None
    subcommands: tuple[str, ...] = ()
    artifacts: tuple[str, ...] = ()
    config_files: tuple[str, ...] = ()
    setup: RunSetup = RunSetup()
    caches: tuple[str, ...] = ()
    default: Default | None = None

    def sniff(self, lines: list[str]) -> float:
        return 0.0

    def read(self, lines: list[str]) -> Reading:
        return Reading()

    def stop_flags(self, args: list[str]) -> list[int]:
        return []

    def writes(self, args: list[str]) -> tuple[str, ...]:
        return ()

    def invoked_at(self, argv: list[str]) -> int | None:
        program = argv[0].rsplit("/", 1)[-1]
        if self.module and program.startswith("python") and argv[1:3] == ["-m", self.module]:
            return 3
        if program in self.programs:
            return 2 if argv[1:2] and argv[1] in self.subcommands else 1
        return None

    def select(
        self, args: list[str], names: Sequence[Name], project: Project
    ) -> Selected | Unselectable:
        kept = list(args)
        while kept and not kept[-1].startswith("-") and any(c in kept[-1] for c in "/.*"):
            kept.pop()
        paths = [
            project.relative(n.path) + (n.text[len(n.path) :] if n.kind == TEST else "")
            for n in names
        ]
        return Selected(kept + paths, tuple(spelled_target(n.text) for n in names))

    def listing(self, args: list[str]) -> list[str]:
        return args

    def is_test_file(self, path: str) -> bool:
        python = path.endswith(".py")
        return python if self.module in ("pytest", "unittest") else not python

    def read_report(self, reports: Mapping[str, bytes]) -> dict[str, str] | None:
        return None

    def ran_nothing(self, reading: Reading, exit_code: int | None, lines: list[str]) -> None:
        return None


RUNNERS = [
    TableRunner("pytest", ("pytest", "py.test"), module="pytest"),
    TableRunner("unittest", module="unittest"),
    TableRunner("vitest", ("vitest",), subcommands=("run",)),
    TableRunner("jest", ("jest",)),
    TableRunner("mocha", ("mocha",)),
    TableRunner("tap", ("tap", "tape")),
]
