"""The test runners coder knows. An unknown name lists the known ones."""

from __future__ import annotations

from summarizers.runners.base import Runner

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


_MODULES = ("pytest", "unittest", "node_test")
"""The runner modules `load` imports (each registers itself); add a new runner's here."""


def load() -> dict[str, Runner]:
    """Every known runner, by name (importing a runner module registers it)."""
    import importlib

    for name in _MODULES:
        importlib.import_module(f"summarizers.runners.{name}")
    return RUNNERS
