"""The cells of the conformance matrix and the verdict each must get, from the specification.

A cell is a runner row × a way of naming the tests (the selection form) × a state of the base
× a change the model makes. Each cell's expected verdicts come from DESIGN.md ("Plan and step
contract", "Baseline", "Logs as their runners write them") and issue 30 items 1-5, never from
what coder does today:

- a right fix passes its step and the final check; a wrong fix fails the step;
- a new test that fails before and passes after proves the step, named by file (the tests the
  step added or changed there), directory, glob, or id in any spelling; a new test that passes
  before proves nothing;
- a deleted test fails the step (and so the run) unless a `tests_removed` names it, and a
  `tests_removed` of a test that ran at the base holds only where the task asks for the
  removal (issue 32), whether or not the baseline's reporter names that test;
- a test red at the base for another reason is discounted in `tests_pass` and in the proof;
- a hook or lint red at the base the same way fails neither the step nor the final check, and
  the final check's evidence names it; one green at the base and red now fails the run;
- what a runner writes in the tree is never blamed on the model: no complaint about files
  outside the step, no rollback, nothing of it in the change;
- a coverage gate on the whole suite does not fail a run scoped to one file;
- output with no per-test lines is judged by exit code and counts, never "passed (0 tests)";
- a runner coder does not know runs whole, judged by exit code and counts, and says so.

Which cells: not the cross product, the cells where the behaviour can differ; 209 in all.
- On a green base (127 cells of the known runners) the form decides what runs, so the changes that pass or fail
  through the selection meet every form the row has (file, directory, glob, the runner's own
  id where it differs from the printed one, the printed id): right fix, wrong fix (a selection
  that runs nothing must not pass it), proving test. A vacuous or deleted test is caught, or
  not, by the same proof and the same missing-test check whatever named it: by file and by
  printed id. A deletion named by `tests_removed`, asked for by the task or not: by file.
- Each other state meets the changes it can turn, by file (the form the real cases used) and,
  for the proof beside a red test, by directory: a test red in the same file × right fix,
  proving test (file, directory), vacuous test; a hook red at the base × right fix, proving
  test; a hook green at the base × a change that trips it; artifacts in the tree × right fix,
  proving test (the proof's own runs write them too); a coverage gate × right fix, proving
  test; no per-test lines × right fix, wrong fix, proving test.
- A row without a way to show a state has no cell there: no coverage gate for pytest
  (no pytest-cov here), unittest, vitest (no coverage provider installed) or node 20's runner;
  unittest's default output is already the quiet one, and its runs write nothing in the tree.
- node-tap takes several times the others' time a run: its passing changes meet every form, and
  every other change and state is met once, by file (`SLOW`).
- A runner coder does not know (AVA) runs whole whatever names the tests: by file only, the four
  changes on a green base, a right fix under a red hook, and a tripped hook.
A few cells per runner (`FAST`) run in the default suite; the rest carry the `bench` mark.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import pytest
from matrix_runners import RUNNERS, Case, Runner

Form = Literal["file", "dir", "glob", "own id", "printed id"]
State = Literal[
    "green", "red in file", "red hook", "green hook", "artifacts", "coverage gate", "quiet"
]
Change = Literal[
    "right fix", "wrong fix", "proving test", "vacuous test", "deleted test",
    "deleted, removed", "deleted, waived", "trips hook",
]  # fmt: skip

FORMS: tuple[Form, ...] = ("file", "dir", "glob", "own id", "printed id")

POSITIVE = Case("calc", "absolute of a positive", "absolute", 3, 3)
ZERO = Case("calc", "absolute of zero", "absolute", 0, 0)
NEGATIVE = Case("calc", "absolute of a negative", "absolute", -2, 2)
"""The test that proves the bug: absolute() returns its argument."""
FIVE = Case("calc", "absolute of five", "absolute", 5, 5)
"""A test that passes before the fix too: it proves nothing."""
HALF_RED = Case("calc", "half of four", "half", 4, 2)
"""Red at the base for another reason (half() is wrong and no step fixes it)."""
OTHER = [
    Case("other", "double of two", "double", 2, 4),
    Case("other", "half of zero", "half", 0, 0),
]

NAMED: dict[Change, Case] = {
    "right fix": POSITIVE,
    "wrong fix": POSITIVE,
    "proving test": NEGATIVE,
    "vacuous test": FIVE,
    "deleted test": ZERO,
    "deleted, removed": ZERO,
    "deleted, waived": ZERO,
    "trips hook": POSITIVE,
}
"""The test an id form names, per change: the one the change breaks, adds or deletes."""


def base_cases(state: State) -> list[Case]:
    """The calc test file at the base."""
    cases = [POSITIVE, ZERO]
    return cases + [HALF_RED] if state == "red in file" else cases


def changed_cases(state: State, change: Change) -> list[Case] | None:
    """The calc test file after the change; None: the change leaves it alone."""
    cases = base_cases(state)
    if change == "proving test":
        return cases + [NEGATIVE]
    if change == "vacuous test":
        return cases + [FIVE]
    if change in ("deleted test", "deleted, removed", "deleted, waived"):
        return [c for c in cases if c != ZERO]
    return None


@dataclass(frozen=True)
class Expected:
    step: str | None
    """The `tests_pass` status: "passed", "failed", or None (the spec does not fix it)."""
    proof: str | None
    """The `tests_fail_before` status, for cells with a proof."""
    final: str
    """"verified" or "not verified" (result.json status and the final check)."""


def expected(change: Change) -> Expected:
    """The verdicts are the same in every state of the base and for every runner: what a state
    adds (evidence that names a hook, no blame for artifacts) is checked beside them."""
    proof = {"proving test": "passed", "vacuous test": "failed"}.get(change)
    if change in ("trips hook", "deleted, waived"):
        return Expected(None, None, "not verified")
    if change in ("wrong fix", "deleted test"):
        return Expected("failed", proof, "not verified")
    final = "not verified" if change == "vacuous test" else "verified"
    return Expected("passed", proof, final)


@dataclass(frozen=True)
class Cell:
    runner: Runner
    form: Form
    state: State
    change: Change

    @property
    def id(self) -> str:
        return f"{self.runner.name} | {self.form} | {self.state} | {self.change}"

    @property
    def expected(self) -> Expected:
        return expected(self.change)

    def selection(self) -> str:
        """How this cell's invariants name the tests."""
        r = self.runner
        if self.form == "file":
            return r.files[0]
        if self.form == "dir":
            return r.test_dir
        if self.form == "glob":
            return r.glob
        spell = r.own_id if self.form == "own id" else r.printed_id
        assert spell is not None, self.id
        return spell(r.files[0], NAMED[self.change])


GREEN: dict[Change, tuple[Form, ...]] = {
    "right fix": FORMS,
    "wrong fix": FORMS,
    "proving test": FORMS,
    "vacuous test": ("file", "printed id"),
    "deleted test": ("file", "printed id"),
    "deleted, removed": ("file",),
    "deleted, waived": ("file",),
}
"""On a green base: which forms each change meets (a vacuous or deleted test is caught, or not,
by the same proof and the same missing-test check whatever named it: by file and by id)."""
STATES: dict[State, tuple[tuple[Form, Change], ...]] = {
    "red in file": (
        ("file", "right fix"),
        ("file", "proving test"),
        ("dir", "proving test"),
        ("file", "vacuous test"),
    ),
    "red hook": (("file", "right fix"), ("file", "proving test")),
    "green hook": (("file", "trips hook"),),
    "artifacts": (("file", "right fix"), ("file", "proving test")),
    "coverage gate": (("file", "right fix"), ("file", "proving test")),
    "quiet": (("file", "right fix"), ("file", "wrong fix"), ("file", "proving test")),
}
UNKNOWN: dict[State, tuple[Change, ...]] = {
    "green": ("right fix", "wrong fix", "proving test", "vacuous test"),
    "red hook": ("right fix",),
    "green hook": ("trips hook",),
}
"""A runner coder does not know runs whole: by file only, where its verdict is defined."""


def _forms(runner: Runner, forms: tuple[Form, ...]) -> list[Form]:
    return [f for f in forms if f != "own id" or runner.own_id is not None]


def _has_state(runner: Runner, state: State) -> bool:
    return {
        "quiet": runner.quiet is not None,
        "artifacts": runner.artifacts is not None,
        "coverage gate": runner.gate is not None,
    }.get(state, True)


SLOW: set[tuple[Form, State, Change]] = {
    ("file", "green", "wrong fix"),
    ("file", "green", "deleted test"),
    ("file", "red in file", "proving test"),
    ("file", "red hook", "right fix"),
    ("file", "artifacts", "right fix"),
    ("file", "coverage gate", "right fix"),
    ("file", "quiet", "right fix"),
}
"""A slow runner's cells beyond the passing changes by every form on a green base: each other
change and state once, by file (node-tap takes several times the others' time a run)."""


def _slow_keeps(cell: Cell) -> bool:
    passing = cell.change in ("right fix", "proving test") and cell.state == "green"
    return passing or (cell.form, cell.state, cell.change) in SLOW


def all_cells() -> list[Cell]:
    cells: list[Cell] = []
    for runner in RUNNERS:
        if not runner.known:
            for state, changes in UNKNOWN.items():
                cells += [Cell(runner, "file", state, change) for change in changes]
            continue
        mine = [
            Cell(runner, form, "green", change)
            for change, forms in GREEN.items()
            for form in _forms(runner, forms)
        ]
        for state, pairs in STATES.items():
            if _has_state(runner, state):
                mine += [Cell(runner, form, state, change) for form, change in pairs]
        if runner.slow:
            mine = [c for c in mine if _slow_keeps(c)]
        cells += mine
    return cells


FAST: tuple[tuple[Form, State, Change], ...] = (
    ("file", "green", "right fix"),
    ("printed id", "green", "proving test"),
)
"""The default suite's slice: per runner, a right fix by file and a proof by printed id (the
slow runner and the unknown one: the first only). The rest carries the `bench` mark."""


def _fast(cell: Cell) -> bool:
    key = (cell.form, cell.state, cell.change)
    if cell.runner.slow or not cell.runner.known:
        return key == FAST[0]
    return key in FAST


KNOWN_WRONG: dict[str, str] = {}
"""Cells whose verdict is still wrong, each with why: the cell keeps asserting the verdict the
specification gives and runs as a strict expected failure, so it fails the day it comes right
(then it leaves this table). Empty: every cell holds."""


def _marks(cell: Cell) -> tuple:
    marks: tuple = () if _fast(cell) else (pytest.mark.bench,)
    if cell.id in KNOWN_WRONG:
        marks += (pytest.mark.xfail(strict=True, reason=KNOWN_WRONG[cell.id]),)
    return marks


def params(states: tuple[State, ...], forms: tuple[Form, ...] = FORMS) -> list:
    """The cells of these states (and forms) as pytest params, the slow ones marked `bench`."""
    chosen = [c for c in all_cells() if c.state in states and c.form in forms]
    return [pytest.param(c, id=c.id, marks=_marks(c)) for c in chosen]
