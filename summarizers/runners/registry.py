"""The test runners coder knows. An unknown name lists the known ones."""

from __future__ import annotations

import importlib

from summarizers.runners.base import Runner

_MODULES = ("pytest", "unittest", "node_test", "vitest", "jest", "mocha", "tap")
"""The runner modules `load()` imports; each registers its runner at import."""

RUNNERS: dict[str, Runner] = {}
"""Name -> runner; filled by `register` from each runner module, listed in `_MODULES`."""


def register(runner: Runner) -> Runner:
    RUNNERS[runner.name] = runner
    return runner


class UnknownRunner(KeyError):
    def __str__(self) -> str:
        return f"unknown test runner {self.args[0]!r}; known: {', '.join(sorted(RUNNERS))}"


def get_runner(name: str) -> Runner:
    try:
        return RUNNERS[name]
    except KeyError:
        raise UnknownRunner(name) from None


def load() -> dict[str, Runner]:
    """Every runner module imported (each registers itself): the registry, filled."""
    for module in _MODULES:
        importlib.import_module(f"summarizers.runners.{module}")
    return RUNNERS
