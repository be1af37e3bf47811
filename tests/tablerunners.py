"""Small real `Runner` objects for tests of how a command is taken apart (scope_to_paths),
independent of what each runner module's own `path_args` does: each knows its program names,
and `path_args` replaces trailing path arguments with the paths."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from summarizers.runners import registry
from summarizers.runners.base import Reading


@dataclass
class TableRunner:
    name: str
    programs: tuple[str, ...] = ()
    module: str | None = None
    subcommands: tuple[str, ...] = ()

    def sniff(self, lines: list[str]) -> float:
        return 0.0

    def read(self, lines: list[str]) -> Reading:
        return Reading()

    def stop_flags(self, args: list[str]) -> list[int]:
        return []

    def invoked_at(self, argv: list[str]) -> int | None:
        program = argv[0].rsplit("/", 1)[-1]
        if self.module and program.startswith("python") and argv[1:3] == ["-m", self.module]:
            return 3
        if program in self.programs:
            return 2 if argv[1:2] and argv[1] in self.subcommands else 1
        return None

    def path_args(
        self, args: list[str], paths: list[str], *, major: int | None = None
    ) -> list[str]:
        kept = list(args)
        while kept and not kept[-1].startswith("-") and any(c in kept[-1] for c in "/.*"):
            kept.pop()
        return kept + paths


RUNNERS = [
    TableRunner("pytest", ("pytest", "py.test"), module="pytest"),
    TableRunner("unittest", module="unittest"),
    TableRunner("vitest", ("vitest",), subcommands=("run",)),
    TableRunner("jest", ("jest",)),
    TableRunner("mocha", ("mocha",)),
    TableRunner("tap", ("tap", "tape")),
]


def registered(monkeypatch: pytest.MonkeyPatch, *names: str) -> None:
    """The named runners in the registry: the real modules where they are registered, a table
    runner (for this test only) where not yet."""
    load = getattr(registry, "load", None)
    if callable(load):
        load()
    for runner in RUNNERS:
        if runner.name in names and runner.name not in registry.RUNNERS:
            monkeypatch.setitem(registry.RUNNERS, runner.name, runner)
