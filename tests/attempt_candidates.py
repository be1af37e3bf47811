"""Scripted candidates for "make add() add" on the calc repository (tests/calcrepo.py), each
playing a different attempt: one right, one wrong that still verifies, one that fails.

- RIGHT fixes add() and proves a regression test with negative numbers.
- WRONG_BUT_VERIFYING returns `abs(a) + abs(b)`: its own proven test (2 + 2) and the existing
  test_add pass, so it verifies alone, but the right candidate's proven test fails on it.
  Its change is smaller than RIGHT's, so only the proofs can tell them apart.
- FAILING breaks scale() in its step, which `tests_pass` catches; asked to revise, it stops.
"""

from __future__ import annotations

from calcrepo import FIX_ADD, plan, step

RIGHT_TEST = (
    "\n\ndef test_add_negative():\n"
    '    """Negative numbers add too (the bug subtracted)."""\n'
    "    assert add(-1, -2) == -3\n"
    "    assert add(-5, 5) == 0\n"
)
WRONG_TEST = "\n\ndef test_add_small():\n    assert add(2, 2) == 4\n"
ABS_FIX = {"path": "calc.py", "old_text": "return a - b", "new_text": "return abs(a) + abs(b)"}
PROVEN_STEP = step(
    "fix-add",
    ["calc.py", "tests/test_calc.py"],
    [
        "the new tests in tests/test_calc.py fail before this step and pass after",
        "All unit tests in tests/test_calc.py must exit code 0",
    ],
)


def append_test(text: str) -> dict:
    return {
        "tool": "edit_file",
        "input": {
            "path": "tests/test_calc.py",
            "old_text": "    assert scale(value=2, factor=3) == 6\n",
            "new_text": "    assert scale(value=2, factor=3) == 6\n" + text,
        },
    }


def fix_turns(test: str, fix: dict) -> list[dict]:
    return [
        plan(PROVEN_STEP),
        append_test(test),
        {"tool": "edit_file", "input": fix},
        {"tool": "finish_step", "input": {"summary": "fixed add, with a regression test"}},
    ]


RIGHT = fix_turns(RIGHT_TEST, FIX_ADD)
WRONG_BUT_VERIFYING = fix_turns(WRONG_TEST, ABS_FIX)
FAILING = [
    plan(step("fix-add", ["calc.py"], ["All unit tests in tests/test_calc.py must exit code 0"])),
    {
        "tool": "edit_file",
        "input": {"path": "calc.py", "old_text": "value * factor", "new_text": "value + factor"},
    },
    {"tool": "finish_step", "input": {"summary": "changed scale by mistake"}},
    {"tool": "stop", "input": {"reason": "I cannot see how to fix it"}},
]

HALF_WAY = [
    plan(
        step("fix-add", ["calc.py"], ["All unit tests in tests/test_calc.py must exit code 0"]),
        step(
            "rescale",
            ["calc.py"],
            ["All unit tests in tests/test_calc.py must exit code 0"],
            deps=["fix-add"],
        ),
    ),
    {"tool": "edit_file", "input": FIX_ADD},
    {"tool": "finish_step", "input": {"summary": "fixed add"}},
    {
        "tool": "edit_file",
        "input": {"path": "calc.py", "old_text": "value * factor", "new_text": "value + factor"},
    },
    {"tool": "finish_step", "input": {"summary": "rescaled, wrongly"}},
    {"tool": "stop", "input": {"reason": "out of ideas"}},
]
"""Verifies its first step, fails its second, and stops: closer than FAILING, not verified."""


def react_turns(*edits: dict) -> list[dict]:
    """A react player: its edits, then its answer (react has no plan and no step proofs)."""
    return [*edits, {"tool": "final_answer", "input": {"summary": "fixed add"}}]


REACT_RIGHT = react_turns(append_test(RIGHT_TEST), {"tool": "edit_file", "input": FIX_ADD})
"""Fixes add() and adds a test that fails on the base (a - b) and passes on its fix."""
REACT_WRONG = react_turns({"tool": "edit_file", "input": ABS_FIX})
"""`abs(a) + abs(b)`: test_add passes, so the final check passes; no test of its own."""
REACT_RIGHT_NO_TEST = react_turns({"tool": "edit_file", "input": FIX_ADD})
REACT_WRONG_VACUOUS = react_turns(
    append_test("\n\ndef test_add_zero():\n    assert add(0, -2) == 2\n"),
    {"tool": "edit_file", "input": ABS_FIX},
)
"""`abs(a) + abs(b)` with a test that passes on the base too (0 - -2 is 2) and fails on the
right fix: were it taken for a proof, the right candidate would look broken."""
