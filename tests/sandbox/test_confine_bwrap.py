"""What only bubblewrap guarantees: no network, no writes outside the worktree, no way back
to the host's kernel settings, and a fork bomb that dies with its PID namespace."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import textwrap
import time
import uuid
from pathlib import Path

import pytest

from sandbox.cgroups import cgroups_available
from sandbox.confine import (
    BwrapSandbox,
    SandboxUnavailable,
    UnconfinedSandbox,
    bwrap_unavailable_reason,
    make_sandbox,
)
from sandbox.workspace import Workspace
from tests.sandbox.gitrepos import make_repo, run_git, snapshot

REPO_ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.skipif(
    bwrap_unavailable_reason() is not None,
    reason=f"bubblewrap cannot start on this host: {bwrap_unavailable_reason()}",
)


@pytest.fixture(params=["under-private-tmp", "visible-read-only"])
def workspace(request: pytest.FixtureRequest, tmp_path: Path) -> Workspace:
    """A user repository under /tmp (hidden by the sandbox's private /tmp) or elsewhere on
    the host (visible inside, read-only), like a repository in the user's home."""
    if request.param == "under-private-tmp":
        base = tmp_path
    else:
        base = Path(tempfile.mkdtemp(prefix="coder-sandbox-test-", dir="/var/tmp"))
    repo = make_repo(base / "repo", {"README.md": "user file\n", "src/a.py": "A = 1\n"})
    ws = Workspace.create(repo, "confined")
    yield ws
    ws.close()
    if base != tmp_path:
        shutil.rmtree(base)


@pytest.fixture
def listener() -> socket.socket:
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(8)
    server.setblocking(False)
    yield server
    server.close()


_CONNECT = (
    'python -c "import socket; '
    "socket.create_connection(('127.0.0.1', {port}), timeout=3); print('connected')\""
)


def test_no_tcp_to_a_host_listener(listener: socket.socket, tmp_path: Path) -> None:
    port = listener.getsockname()[1]
    result = make_sandbox("bwrap", tmp_path).run(
        _CONNECT.format(port=port), cwd=tmp_path, timeout_s=20
    )
    assert result.exit_code != 0
    assert "connected" not in result.output
    with pytest.raises(BlockingIOError):
        listener.accept()


def test_the_network_check_can_fail(listener: socket.socket, tmp_path: Path) -> None:
    """The same probe, unconfined, does reach the listener: the test above is not vacuous."""
    port = listener.getsockname()[1]
    result = UnconfinedSandbox(tmp_path).run(_CONNECT.format(port=port), cwd=tmp_path, timeout_s=20)
    assert "connected" in result.output
    listener.accept()[0].close()


def test_writes_outside_the_worktree_fail(workspace: Workspace) -> None:
    repo = workspace.repo
    host_tmp = Path("/tmp") / f"coder-escape-{uuid.uuid4().hex}"
    real_home_file = Path.home() / f".coder-escape-{uuid.uuid4().hex}"
    refused = [  # host paths, read-only or hidden behind read-only tmpfs
        repo / ".git" / "config",
        repo / ".git" / "HEAD",
        repo / ".git" / "hooks" / "pre-commit",
        "/run/coder/git/config",
        "/run/coder/git/hooks/pre-commit",
        workspace.path / "README.md",  # the worktree's host path is not where it is seen
        real_home_file,
        Path("/etc/coder-escape"),
        Path("/usr/local/bin/coder-escape"),
    ]
    user_tree = snapshot(repo)
    git_files = _git_files(repo, workspace.path)
    dot_git = (workspace.path / ".git").read_bytes()
    box = make_sandbox("bwrap", workspace.path)

    for target in refused:
        result = box.run(f"echo pwned >> '{target}'", cwd=workspace.path, timeout_s=10)
        assert result.exit_code != 0, f"wrote to {target}"
    inside = box.run(
        f"echo changed >> '{repo}/README.md'; echo x > '{host_tmp}'",
        cwd=workspace.path,
        timeout_s=10,
    )
    assert inside.exit_code == 0  # the checkout's path is the worktree; /tmp is private
    moved = box.run("rm -f .git; mv .git elsewhere", cwd=workspace.path, timeout_s=10)
    assert moved.exit_code != 0

    assert (workspace.path / "README.md").read_text() == "user file\nchanged\n"
    assert not host_tmp.exists()
    assert not real_home_file.exists()
    assert not Path("/etc/coder-escape").exists()
    assert snapshot(repo) == user_tree
    after = _git_files(repo, workspace.path)
    assert {p: b for p, b in after.items() if p in git_files} == git_files
    assert (workspace.path / ".git").read_bytes() == dot_git
    assert run_git(repo, "status", "--porcelain") == ""


def _git_files(repo: Path, worktree: Path) -> dict[Path, bytes]:
    """The repository's git directory, without the run's worktree that lives inside it."""
    files = (repo / ".git").rglob("*")
    return {p: p.read_bytes() for p in files if p.is_file() and not p.is_relative_to(worktree)}


def test_worktree_writes_land_and_git_sees_them(workspace: Workspace) -> None:
    box = make_sandbox("bwrap", workspace.path)
    result = box.run(
        "echo 'A = 2' > src/a.py && git diff --name-only", cwd=workspace.path, timeout_s=20
    )
    assert result.exit_code == 0, result.output
    assert result.output.strip() == "src/a.py"
    assert (workspace.path / "src" / "a.py").read_text() == "A = 2\n"


def test_kernel_settings_and_mounts_are_out_of_reach(tmp_path: Path) -> None:
    box = make_sandbox("bwrap", tmp_path)
    same_hostname = 'v=$(cat /proc/sys/kernel/hostname); echo "$v" > /proc/sys/kernel/hostname'
    for command in (same_hostname, "mount -o remount,rw /", "touch /dev/coder-escape"):
        result = box.run(command, cwd=tmp_path, timeout_s=10)
        assert result.exit_code != 0, command
    caps = box.run("grep CapEff /proc/self/status", cwd=tmp_path, timeout_s=10)
    assert caps.output.split() == ["CapEff:", "0000000000000000"]


def test_only_the_pid_namespace_sees_the_command(tmp_path: Path) -> None:
    result = make_sandbox("bwrap", tmp_path).run(
        "ls /proc | grep -c '^[0-9]'", cwd=tmp_path, timeout_s=10
    )
    assert int(result.output.strip()) < 10


_UNCAPPED_BOMB = textwrap.dedent(
    """
    import json, sys
    from pathlib import Path
    from sandbox.confine import BwrapSandbox
    from sandbox.limits import Limits
    root = Path(sys.argv[1])
    box = BwrapSandbox(root, limits=Limits(use_cgroup=False))
    r = box.run("bomb() { bomb | bomb & }; bomb; sleep 1000", cwd=root, timeout_s=2)
    print(json.dumps({"timed_out": r.timed_out, "duration": r.duration_s}))
    """
)


def test_pid_namespace_and_timeout_alone_stop_a_fork_bomb(tmp_path: Path) -> None:
    """Without the sandbox's own process cap (as on hosts without a pids cgroup): the bomb
    runs inside an outer cgroup this test makes, so the shared machine stays safe."""
    if "pids" not in cgroups_available():
        pytest.skip("no pids cgroup to hold an uncapped fork bomb; not run on a shared machine")
    outer = Path("/sys/fs/cgroup/pids") / f"coder-test-{uuid.uuid4().hex[:8]}"
    if not (outer.parent / "cgroup.procs").exists():
        pytest.skip("the outer safety cgroup needs cgroup v1 pids at /sys/fs/cgroup/pids")
    outer.mkdir()
    try:
        (outer / "pids.max").write_text("300\n")
        procs = str(outer / "cgroup.procs")

        def enter_outer_cgroup() -> None:
            with open(procs, "w") as handle:
                handle.write(str(os.getpid()))

        done = subprocess.run(
            [sys.executable, "-c", _UNCAPPED_BOMB, str(tmp_path)],
            cwd=REPO_ROOT,
            env={**os.environ, "PYTHONPATH": str(REPO_ROOT)},
            capture_output=True,
            text=True,
            timeout=60,
            preexec_fn=enter_outer_cgroup,
        )
        assert done.returncode == 0, done.stderr
        report = json.loads(done.stdout)
        assert report["timed_out"] is True
        # killed at its 2 s limit, not after the 1000 s it asks for (a busy machine is slow
        # to start and reap hundreds of processes: the bound leaves room for that)
        assert report["duration"] < 30
        deadline = time.monotonic() + 5
        while (outer / "cgroup.procs").read_text().strip() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert (outer / "cgroup.procs").read_text().strip() == ""  # nothing survived
        assert int((outer / "pids.peak").read_text()) > 50  # it really was a fork bomb
    finally:
        for pid in (outer / "cgroup.procs").read_text().split():
            os.kill(int(pid), 9)
        time.sleep(0.1)
        outer.rmdir()


def test_bwrap_mode_refuses_when_bwrap_cannot_start(tmp_path: Path) -> None:
    fake = tmp_path / "fake-bwrap"
    fake.write_text("#!/bin/sh\necho 'bwrap: No permissions to create new namespace' >&2\nexit 1\n")
    fake.chmod(0o755)
    with pytest.raises(SandboxUnavailable) as error:
        make_sandbox("bwrap", tmp_path, bwrap=str(fake))
    assert "No permissions to create new namespace" in str(error.value)
    assert "\n" not in str(error.value)


def test_auto_mode_refuses_and_says_how_to_opt_out(tmp_path: Path) -> None:
    """`auto` never falls back to running unconfined: exit 2 at the CLI, with the way out."""
    with pytest.raises(SandboxUnavailable) as error:
        make_sandbox("auto", tmp_path, bwrap=str(tmp_path / "missing-bwrap"))
    message = str(error.value)
    assert "\n" not in message
    assert "--sandbox none" in message and "missing-bwrap not found" in message
    assert make_sandbox("auto", tmp_path).name == "bwrap"


def test_unknown_mode_lists_the_known_ones(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="known: auto, bwrap, none"):
        make_sandbox("docker", tmp_path)


_HARNESS = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    from sandbox.confine import BwrapSandbox
    root = Path(sys.argv[1])
    print("starting", flush=True)
    BwrapSandbox(root).run(
        "while true; do date +%s%N > heartbeat; sleep 0.05; done", cwd=root, timeout_s=60
    )
    """
)


def test_a_killed_harness_takes_its_commands_along(tmp_path: Path) -> None:
    """SIGKILL leaves no Python cleanup: --die-with-parent and the PID namespace must do it."""
    proc = subprocess.Popen(
        [sys.executable, "-c", _HARNESS, str(tmp_path)],
        cwd=REPO_ROOT,
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(REPO_ROOT)},
    )
    assert proc.stdout is not None
    assert proc.stdout.readline().strip() == "starting"
    heartbeat = tmp_path / "heartbeat"
    deadline = time.monotonic() + 10
    while not heartbeat.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert heartbeat.exists()
    proc.kill()
    proc.wait(timeout=10)
    time.sleep(0.5)
    last = heartbeat.read_text()
    time.sleep(1.0)
    assert heartbeat.read_text() == last


def test_the_users_working_tree_is_hidden(visible_base: Path) -> None:
    repo = make_repo(visible_base / "repo", {"README.md": "user file\n", "src/a.py": "A = 1\n"})
    (repo / ".env").write_text("API_KEY=d0-n0t-l3ak\n")
    (repo / "notes.txt").write_text("untracked d0-n0t-l3ak\n")
    with Workspace.create(repo, "hidden") as ws:
        box = BwrapSandbox(ws.path)
        result = box.run(
            f"cat {repo}/.env {repo}/notes.txt; ls -a {repo}; grep -rs d0-n0t-l3ak {visible_base}",
            cwd=ws.path,
            timeout_s=20,
        )
        inside = box.run(
            "cat README.md src/a.py && git status --porcelain && git log --oneline | wc -l",
            cwd=ws.path,
            timeout_s=20,
        )
    assert "d0-n0t-l3ak" not in result.output
    assert "notes.txt\n" not in result.output and ".env\n" not in result.output
    assert inside.exit_code == 0, inside.output
    assert inside.output == "user file\nA = 1\n1\n"
