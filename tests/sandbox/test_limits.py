"""Both ways of applying limits (exec through prlimit, or a preexec_fn where prlimit is
missing) put the command under the same memory cap and in the same process cap."""

from __future__ import annotations

from pathlib import Path

import pytest

import sandbox.limits as limits_module
from sandbox.cgroups import cgroups_available
from sandbox.confine import UnconfinedSandbox
from sandbox.limits import Limits


@pytest.fixture(params=["prlimit", "preexec"])
def applier(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    if request.param == "preexec":
        monkeypatch.setattr(limits_module, "_which", lambda name: None)
    elif limits_module._which("prlimit") is None:
        pytest.skip("prlimit (util-linux) is not installed here")
    return request.param


def test_memory_cap_without_a_cgroup(applier: str, tmp_path: Path) -> None:
    """RLIMIT_AS: the fallback where the host offers no memory cgroup."""
    box = UnconfinedSandbox(tmp_path, limits=Limits(memory_bytes=1 << 30, use_cgroup=False))
    result = box.run("python -c 'bytearray(2 << 30)'", cwd=tmp_path, timeout_s=30)
    assert "MemoryError" in result.output
    ok = box.run("python -c 'print(len(bytearray(64 << 20)))'", cwd=tmp_path, timeout_s=30)
    assert ok.output.strip() == str(64 << 20)


def test_core_dumps_are_off(applier: str, tmp_path: Path) -> None:
    result = UnconfinedSandbox(tmp_path).run("ulimit -c", cwd=tmp_path, timeout_s=10)
    assert result.output.strip() == "0"


def test_command_joins_its_own_pids_cgroup(applier: str, tmp_path: Path) -> None:
    if "pids" not in cgroups_available():
        pytest.skip("no pids cgroup on this host")
    box = UnconfinedSandbox(tmp_path, limits=Limits(max_processes=37))
    result = box.run(
        "where=$(grep -E '[:,]pids[:,]' /proc/self/cgroup | cut -d: -f3); "
        'echo "$where"; cat "/sys/fs/cgroup/pids$where/pids.max"',
        cwd=tmp_path,
        timeout_s=10,
    )
    assert "coder-sandbox/" in result.output
    assert result.output.strip().endswith("37")
