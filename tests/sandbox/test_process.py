"""The runner's own paths, including the one for kernels without pidfd."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from sandbox.process import TIMEOUT_EXIT_CODE, run_process


@pytest.fixture(params=["pidfd", "polling"])
def exit_watch(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    if request.param == "polling":
        monkeypatch.delattr(os, "pidfd_open")
    return request.param


def _run(command: str, cwd: Path, timeout_s: float, cap: int = 1 << 20):
    return run_process(
        ["bash", "-c", command], cwd=cwd, env=dict(os.environ), timeout_s=timeout_s, output_cap=cap
    )


def test_exit_and_output(exit_watch: str, tmp_path: Path) -> None:
    result = _run("echo out; echo err >&2; exit 5", tmp_path, 10)
    assert (result.exit_code, result.output, result.timed_out) == (5, "out\nerr\n", False)


def test_timeout(exit_watch: str, tmp_path: Path) -> None:
    started = time.monotonic()
    result = _run("sleep 1000", tmp_path, 0.5)
    assert time.monotonic() - started < 3
    assert result.exit_code == TIMEOUT_EXIT_CODE and result.timed_out and result.killed


def test_leftovers_die_as_the_command_exits(exit_watch: str, tmp_path: Path) -> None:
    started = time.monotonic()
    result = _run("sleep 1000 & echo $!", tmp_path, 30)
    assert time.monotonic() - started < 3
    assert result.exit_code == 0 and not result.killed and not result.timed_out
    assert _dies(int(result.output))


def _alive(pid: int) -> bool:
    """Running, as opposed to gone or a zombie (init may be slow to reap, or never)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat[stat.rindex(")") + 2] != "Z"


def _dies(pid: int, within_s: float = 10.0) -> bool:
    """Whether `pid` is gone within a bound: the kill was sent when the command exited, but on
    a loaded machine it may land a little later. A leftover that was never killed (sleep
    1000) is still alive at the bound."""
    deadline = time.monotonic() + within_s
    while _alive(pid):
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.01)
    return True


def test_leftovers_that_redirected_their_output_die_too(exit_watch: str, tmp_path: Path) -> None:
    result = _run("sh -c 'sleep 0.5; echo late > late.txt' >/dev/null 2>&1 & echo $!", tmp_path, 30)
    assert result.exit_code == 0
    assert _dies(int(result.output))  # had it lived, it would have written late.txt first
    assert not (tmp_path / "late.txt").exists()


def test_closed_stdout_does_not_end_the_wait(exit_watch: str, tmp_path: Path) -> None:
    result = _run("exec >&- 2>&-; sleep 0.3; echo late > marker", tmp_path, 10)
    assert result.exit_code == 0
    assert (tmp_path / "marker").read_text() == "late\n"


def test_missing_executable_is_a_result(tmp_path: Path) -> None:
    result = run_process(["/nonexistent/tool"], cwd=tmp_path, env={}, timeout_s=5, output_cap=100)
    assert result.exit_code == 127
    assert "could not start" in result.output
