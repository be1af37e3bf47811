"""A command's bounds: file size, the worktree's growth, processes; which one it hit, in
words; nothing over the file bound committed; what a killed harness left, removed."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Callable
from pathlib import Path

import pytest

from sandbox.bwrap import SCRATCH_PREFIX
from sandbox.cgroups import cgroup_parents, cgroups_available
from sandbox.checkpoint import ChangeTooLarge, Checkpoints
from sandbox.confine import Sandbox, bwrap_unavailable_reason, make_sandbox
from sandbox.limits import Limits
from sandbox.unconfined import PRIVATE_PREFIX
from tests.sandbox.gitrepos import make_repo, run_git

REPO_ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(params=["bwrap", "none"])
def make(request: pytest.FixtureRequest) -> Callable[..., Sandbox]:
    if request.param == "bwrap" and bwrap_unavailable_reason():
        pytest.skip(f"bubblewrap cannot start here: {bwrap_unavailable_reason()}")
    return lambda root, **kw: make_sandbox(request.param, root, **kw)


def test_a_file_stops_at_the_file_size_bound(make: Callable[..., Sandbox], tmp_path: Path) -> None:
    box = make(tmp_path, limits=Limits(file_bytes=1 << 20))
    shell = box.run("head -c 3000000 /dev/zero > big; echo rc=$?", cwd=tmp_path, timeout_s=30)
    python = box.run(
        "python3 -c \"open('big2', 'wb').write(b'x' * (3 << 20))\"", cwd=tmp_path, timeout_s=30
    )
    assert (tmp_path / "big").stat().st_size == 1 << 20
    assert shell.bound == "file_size" and python.bound == "file_size"
    assert "File too large" in python.output
    assert "file size bound (1 MiB)" in shell.bound_message


def test_the_worktree_stops_growing_at_the_growth_bound(
    make: Callable[..., Sandbox], tmp_path: Path
) -> None:
    """The writer never stops by itself, so only the watcher can end it, however busy the
    machine (a bounded loop could finish between two looks of the watcher)."""
    box = make(tmp_path, limits=Limits(growth_bytes=24 << 20))
    writer = "i=0; while true; do i=$((i+1)); head -c 8000000 /dev/zero > f$i; sync f$i; done"
    result = box.run(writer, cwd=tmp_path, timeout_s=120)
    assert result.bound == "growth" and not result.timed_out, result
    assert result.killed
    assert "wrote more than 24 MiB into the worktree" in result.bound_message


def test_back_dated_files_count_towards_the_growth_bound(
    make: Callable[..., Sandbox], tmp_path: Path
) -> None:
    """Growth is what the worktree holds, not what has a recent mtime."""
    box = make(tmp_path, limits=Limits(growth_bytes=16 << 20))
    writer = (
        "i=0; while true; do i=$((i+1)); head -c 4000000 /dev/zero > f$i; "
        "touch -d 2000-01-01 f$i; sync f$i; done"
    )
    result = box.run(writer, cwd=tmp_path, timeout_s=60)
    assert result.bound == "growth" and not result.timed_out, result


def test_space_another_process_frees_does_not_widen_the_growth_bound(
    make: Callable[..., Sandbox], tmp_path: Path
) -> None:
    """512 MB freed on the same file system as the command starts writing: the command is
    still stopped near its 16 MiB bound, not after filling what was freed."""
    worktree = tmp_path / "wt"
    worktree.mkdir()
    ballast = tmp_path / "ballast"
    with open(ballast, "wb") as f:
        os.posix_fallocate(f.fileno(), 0, 512 << 20)  # real blocks, no writing
    box = make(worktree, limits=Limits(growth_bytes=16 << 20))
    writer = (
        "touch started; while [ ! -e go ]; do sleep 0.01; done; "
        "i=0; while true; do i=$((i+1)); head -c 2000000 /dev/zero > f$i; sync f$i; done"
    )
    results: list[object] = []
    runner = threading.Thread(
        target=lambda: results.append(box.run(writer, cwd=worktree, timeout_s=60))
    )
    runner.start()
    try:
        deadline = time.monotonic() + 30
        while not (worktree / "started").exists() and time.monotonic() < deadline:
            time.sleep(0.01)
        ballast.unlink()
    finally:
        (worktree / "go").touch()
        runner.join(timeout=90)
    result = results[0]
    written = sum(p.stat().st_size for p in worktree.glob("f*"))
    assert result.bound == "growth" and not result.timed_out, result  # type: ignore[attr-defined]
    assert written < 256 << 20, written


def test_the_process_bound_is_reported(make: Callable[..., Sandbox], tmp_path: Path) -> None:
    if "pids" not in cgroups_available():
        pytest.skip("no pids cgroup on this host")
    box = make(tmp_path, limits=Limits(max_processes=24))
    result = box.run("for i in $(seq 60); do sleep 3 & done; wait", cwd=tmp_path, timeout_s=30)
    assert result.bound == "pids", result
    assert "bound of 24 processes" in result.bound_message


def test_an_ordinary_command_hits_no_bound(make: Callable[..., Sandbox], tmp_path: Path) -> None:
    result = make(tmp_path).run("echo fine > f && cat f", cwd=tmp_path, timeout_s=30)
    assert result.bound is None and result.bound_message == ""


def test_no_file_over_the_bound_is_ever_committed(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {"small.txt": "s\n", "grows.txt": "g\n"})
    checkpoints = Checkpoints(repo, max_file_bytes=1000)
    (repo / "new-big.bin").write_bytes(b"x" * 2000)
    (repo / "grows.txt").write_bytes(b"y" * 5000)
    (repo / "fine.txt").write_text("ok\n")
    sha = checkpoints.commit("step")
    committed = run_git(repo, "show", "--name-only", "--format=", sha).split()
    assert committed == ["fine.txt"]
    assert sorted(checkpoints.left_out) == ["grows.txt", "new-big.bin"]
    assert not (repo / "new-big.bin").exists()
    assert (repo / "grows.txt").read_text() == "g\n"
    assert run_git(repo, "status", "--porcelain") == ""


def test_a_change_over_the_commit_bound_is_not_committed_nor_staged(tmp_path: Path) -> None:
    """Many files each under the file bound, over the step's bound together (sparse files:
    the sizes are real to git and to lstat, the disk holds nothing)."""
    repo = make_repo(tmp_path / "repo", {"small.txt": "s\n"})
    head = run_git(repo, "rev-parse", "HEAD").strip()
    checkpoints = Checkpoints(repo, max_file_bytes=1 << 20, max_change_bytes=1 << 20)
    for name in ("a.bin", "b.bin", "c.bin"):
        with open(repo / name, "wb") as f:
            f.truncate(600 << 10)
    problem = checkpoints.oversized_change()
    assert problem is not None
    assert (
        "1843200 bytes in 3 files, over the bound of 1048576 bytes one step may commit" in problem
    )
    with pytest.raises(ChangeTooLarge, match="over the bound of 1048576 bytes"):
        checkpoints.commit("step")
    assert run_git(repo, "rev-parse", "HEAD").strip() == head
    assert checkpoints.patch_since(head).startswith("(not shown: the change is 1843200 bytes")
    (repo / "b.bin").unlink()
    (repo / "c.bin").unlink()
    assert checkpoints.oversized_change() is None
    checkpoints.commit("fits")
    assert run_git(repo, "show", "--name-only", "--format=", "HEAD").split() == ["a.bin"]


@pytest.mark.parametrize("mode", ["bwrap", "none"])
def test_scratch_left_by_a_killed_harness_is_removed(mode: str, tmp_path: Path) -> None:
    """bwrap's git config copies, none mode's private HOME: named after the harness's pid."""
    if mode == "bwrap" and bwrap_unavailable_reason():
        pytest.skip("needs bubblewrap")
    prefix = SCRATCH_PREFIX if mode == "bwrap" else PRIVATE_PREFIX
    dead = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True
    )
    base = Path(tempfile.gettempdir())
    stale = base / f"{prefix}{dead.stdout.strip()}-{uuid.uuid4().hex[:6]}"
    live = base / f"{prefix}{os.getpid()}-{uuid.uuid4().hex[:6]}"
    for path in (stale, live):
        path.mkdir()
        (path / "config-0").write_text("[remote]\n")
        old = time.time() - 3600
        os.utime(path, (old, old))
    try:
        make_sandbox(mode, tmp_path)
        assert not stale.exists()
        assert live.exists()  # its harness (this process) still runs
    finally:
        for path in (stale, live):
            if path.exists():
                for child in path.iterdir():
                    child.unlink()
                path.rmdir()


def test_empty_cgroups_left_by_a_killed_harness_are_removed() -> None:
    parents = cgroup_parents()
    if not parents:
        pytest.skip("no cgroup of ours on this host")
    stale = [parent.path / f"stale-{uuid.uuid4().hex[:8]}" for parent in parents]
    for group in stale:
        group.mkdir()
        old = time.time() - 3600
        os.utime(group, (old, old))
    try:
        done = subprocess.run(  # the next harness: a fresh process probes the parents
            [
                sys.executable,
                "-c",
                "from sandbox.cgroups import cgroups_available; cgroups_available()",
            ],
            cwd=REPO_ROOT,
            env={**os.environ, "PYTHONPATH": str(REPO_ROOT)},
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert done.returncode == 0, done.stderr
        assert [g for g in stale if g.exists()] == []
    finally:
        for group in stale:
            if group.exists():
                group.rmdir()
