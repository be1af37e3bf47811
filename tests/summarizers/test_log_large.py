"""A 5 MB log must compact quickly: the filter is linear in the size of the log."""

from __future__ import annotations

import time

import pytest
from logdata import read_log

from summarizers.logs import compact_log
from summarizers.runners.reader import read_log as read_runs
from summarizers.tokens import estimate_tokens

FIVE_MB = 5 * 1024 * 1024
LIMIT_S = 10.0
"""CPU seconds, not wall time: another process busy on a shared machine does not count, and a
quadratic step would still take minutes. Medians and ratios are in benchmarks/."""


def _big_pytest_log() -> str:
    """A real -v log scaled up: many passing lines, many failure blocks, one summary."""
    block = read_log("pytest_tb_auto.log")
    failures = block[block.index("=== FAILURES ===") : block.index("=== warnings summary")]
    failures = failures.split("\n", 1)[1]
    parts = ["============================= test session starts ==============================\n"]
    summary = []
    k = 0
    while sum(len(p) for p in parts) < FIVE_MB - 200_000:
        parts.append(f"tests/test_gen_{k}.py::test_ok_{k} PASSED{' ' * 40}[ 50%]\n" * 40)
        parts.append(failures.replace("test_add", f"test_add_{k}"))
        summary.append(f"FAILED tests/test_calc.py::test_add_{k} - assert -1 == 5")
        k += 1
    parts.append(
        "=========================== short test summary info ============================\n"
    )
    parts.append("\n".join(summary) + "\n")
    parts.append(f"==== {k} failed, {40 * k} passed in 100.00s ====\n")
    return "".join(parts)


@pytest.mark.parametrize(
    "make",
    [
        _big_pytest_log,
        lambda: "".join(f"line {i}: error: thing {i % 97} broke\n" for i in range(180_000)),
        lambda: "x" * FIVE_MB,
        lambda: "ok\n" * (FIVE_MB // 3),
    ],
    ids=["pytest", "generic-errors", "one-line", "repeated"],
)
def test_five_megabytes_compact_fast_and_within_budget(make) -> None:  # type: ignore[no-untyped-def]
    text = make()
    assert len(text) >= FIVE_MB - 300_000
    started = time.process_time()
    result = compact_log(text, budget=2000, exit_code=1)
    elapsed = time.process_time() - started
    assert elapsed < LIMIT_S, f"{elapsed:.1f}s"
    assert result.tokens <= 2000 and result.text.strip()


def test_big_pytest_log_keeps_all_ids_it_can_and_says_how_many_it_could_not() -> None:
    text = _big_pytest_log()
    result = compact_log(text, budget=2000)
    assert len(result.failing) > 300
    assert result.failing[0] in result.text
    assert any(item.startswith("ids of ") for item in result.omitted)
    assert estimate_tokens(result.text) <= 2000


def test_outcomes_of_a_five_megabyte_log_are_fast() -> None:
    text = _big_pytest_log()
    started = time.process_time()
    outcomes = read_runs(text).outcomes
    assert time.process_time() - started < LIMIT_S
    assert outcomes["tests/test_gen_0.py::test_ok_0"] == "passed"
    assert outcomes["tests/test_calc.py::test_add_0"] == "failed"
