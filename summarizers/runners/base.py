"""What a runner module provides: the `Runner` protocol. Adding a runner is one module that
satisfies it and one entry in `registry.RUNNERS`."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

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


class Runner(Protocol):
    name: str
    """Registry key and what the evidence calls it: `pytest`, `vitest`, `jest`, ..."""

    def sniff(self, lines: list[str]) -> float:
        """How much these lines look like this runner's output, 0 (not at all) to 1."""
        ...

    def read(self, lines: list[str]) -> Reading:
        """Per-test outcomes with stable ids, failure messages, failures of no test, and
        whether the runner says it stopped early. Pure; never raises on odd input."""
        ...

    def invoked_at(self, argv: list[str]) -> int | None:
        """When `argv` (one simple command, words as the shell sees them) runs this runner,
        the index of its first own argument (`npx vitest run x` -> 3); else None."""
        ...

    def stop_flags(self, args: list[str]) -> list[StopFlag]:
        """The runner's own stop-at-first-failure flags in `args` (`-x`, `--bail 2`,
        `--maxfail=1`, the x of `-xvs`), which the harness takes out of its own runs: this is
        the one place that knows them (coder/verdict/stopflags.py cuts what it is told)."""
        ...

    def path_args(
        self, args: list[str], paths: list[str], *, major: int | None = None
    ) -> list[str]:
        """The runner's own arguments changed to run only `paths` (test files or ids).
        `major`: the runner's major version where the project pins it (node-tap 16 and 18+
        spell the same flag differently); a runner that needs none ignores it."""
        ...
