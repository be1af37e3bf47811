"""The behaviour every sandbox mode promises (exit codes, cwd, output, environment, timeouts,
limits). Each test runs once per mode; bwrap-only guarantees live in test_confine_bwrap.py."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from clirun import interruptible

from sandbox.cgroups import cgroups_available
from sandbox.confine import Sandbox, bwrap_unavailable_reason, make_sandbox
from sandbox.limits import Limits
from sandbox.workspace import Workspace
from tests.sandbox.gitrepos import make_repo

MODES = ["bwrap", "none"]
SandboxFactory = Callable[..., Sandbox]


@pytest.fixture(params=MODES)
def mode(request: pytest.FixtureRequest) -> str:
    if request.param == "bwrap":
        reason = bwrap_unavailable_reason()
        if reason:
            pytest.skip(f"bubblewrap cannot start on this host: {reason}")
    return request.param


@pytest.fixture
def root(tmp_path: Path) -> Path:
    path = tmp_path / "root"
    (path / "sub").mkdir(parents=True)
    return path


@pytest.fixture
def box(mode: str, root: Path) -> Sandbox:
    return make_sandbox(mode, root)


@pytest.fixture
def make(mode: str) -> SandboxFactory:
    return lambda root, **kw: make_sandbox(mode, root, **kw)


def test_mode_name(box: Sandbox, mode: str) -> None:
    assert box.name == mode


@pytest.mark.parametrize(
    ("command", "code"),
    [("true", 0), ("exit 3", 3), ("false", 1), ("kill -9 $$", 137), ("no-such-tool-xyz", 127)],
)
def test_exit_codes(box: Sandbox, root: Path, command: str, code: int) -> None:
    result = box.run(command, cwd=root, timeout_s=10)
    assert result.exit_code == code
    assert result.command == command
    assert not result.timed_out and not result.killed


def test_cwd_is_honoured(box: Sandbox, root: Path) -> None:
    assert box.run("pwd", cwd=root / "sub", timeout_s=10).output.strip() == str(root / "sub")
    assert box.run("pwd", cwd=Path("sub"), timeout_s=10).output.strip() == str(root / "sub")


def test_cwd_outside_the_root_is_a_caller_error(box: Sandbox, root: Path) -> None:
    with pytest.raises(ValueError, match="outside the sandbox root"):
        box.run("true", cwd=root.parent, timeout_s=10)


def test_stdout_and_stderr_are_merged_in_order(box: Sandbox, root: Path) -> None:
    result = box.run("echo one; echo two >&2; echo three", cwd=root, timeout_s=10)
    assert result.output == "one\ntwo\nthree\n"


def test_worktree_is_writable(box: Sandbox, root: Path) -> None:
    result = box.run("echo made > sub/new.txt", cwd=root, timeout_s=10)
    assert result.exit_code == 0
    assert (root / "sub" / "new.txt").read_text() == "made\n"


def test_secrets_are_not_visible(box: Sandbox, root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    secrets = {
        "ANTHROPIC_API_KEY": "sk-ant-test-do-not-leak-1234",
        "GITHUB_TOKEN": "ghp_do_not_leak_5678",
        "DB_PASSWORD": "do-not-leak-pw-9012",
        "AWS_SECRET_ACCESS_KEY": "do-not-leak-aws-3456",
    }
    for name, value in secrets.items():
        monkeypatch.setenv(name, value)
    result = box.run(
        'env; echo "key=${ANTHROPIC_API_KEY:-unset}"; cat /proc/self/environ',
        cwd=root,
        timeout_s=10,
        env={"EXTRA_SETTING": "visible", "LEAK": secrets["ANTHROPIC_API_KEY"]},
    )
    assert result.exit_code == 0
    assert "key=unset" in result.output
    assert "EXTRA_SETTING=visible" in result.output
    for name, value in secrets.items():
        assert name not in result.output
        assert value not in result.output


def test_home_and_tmp_are_private_and_writable(box: Sandbox, root: Path) -> None:
    result = box.run(
        'echo hi > "$HOME/f" && cat "$HOME/f" && echo t > "$TMPDIR/t" && echo "home=$HOME"',
        cwd=root,
        timeout_s=10,
    )
    assert result.exit_code == 0, result.output
    home = result.output.split("home=")[1].strip()
    assert home != str(Path.home())
    assert not Path(home).exists()  # gone with the command (or never on the host)


def test_python_writes_no_bytecode(box: Sandbox, root: Path) -> None:
    (root / "mod.py").write_text("VALUE = 41 + 1\n")
    result = box.run("python -c 'import mod; print(mod.VALUE)'", cwd=root, timeout_s=30)
    assert result.output.strip() == "42"
    assert not (root / "__pycache__").exists()


def test_python_and_node_from_the_host_run(box: Sandbox, root: Path) -> None:
    result = box.run(
        "python -c 'import sys; print(sys.version_info[0])' && node -e 'console.log(6*7)'",
        cwd=root,
        timeout_s=30,
    )
    assert result.output.split() == ["3", "42"], result.output


def test_git_status_and_diff_work_in_a_worktree(mode: str, tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {"a.txt": "one\n"})
    with Workspace.create(repo, "inside") as ws:
        (ws.path / "a.txt").write_text("two\n")
        box = make_sandbox(mode, ws.path)
        result = box.run("git status --porcelain && git diff --stat", cwd=ws.path, timeout_s=30)
        assert result.exit_code == 0, result.output
        assert " M a.txt" in result.output
        assert "1 file changed" in result.output


def test_timeout_kills_a_sleeper_in_time(box: Sandbox, root: Path) -> None:
    started = time.monotonic()
    result = box.run("echo before; sleep 1000", cwd=root, timeout_s=1)
    assert time.monotonic() - started < 4
    assert result.timed_out and result.killed
    assert result.exit_code == 124
    assert result.output == "before\n"


def test_background_leftovers_do_not_hold_the_run(box: Sandbox, root: Path) -> None:
    started = time.monotonic()
    result = box.run("sleep 1000 & echo started", cwd=root, timeout_s=30)
    assert time.monotonic() - started < 5
    assert result.exit_code == 0
    assert result.output == "started\n"
    assert not result.timed_out
    # they die as the command exits (PID namespace, or the none mode's subreaper): the
    # harness never has to wait out its grace period and kill them
    assert not result.killed


_LATE_WRITER = "{launch}sh -c 'sleep {delay}; echo late > late.txt' >/dev/null 2>&1 &"


@pytest.mark.parametrize("launch", ["", "setsid "], ids=["same-session", "setsid"])
@pytest.mark.parametrize("ending", ["exit", "timeout"])
def test_redirected_leftovers_cannot_write_after_the_command(
    make: SandboxFactory, root: Path, launch: str, ending: str
) -> None:
    """A leftover that does not hold the output pipe must still die with the command, or it
    could change the worktree after the verifier looked at it. Without a pids cgroup (as on
    hosts that offer none), so that only the process handling is under test."""
    box = make(root, limits=Limits(use_cgroup=False))
    if ending == "exit":
        command, timeout_s = _LATE_WRITER.format(launch=launch, delay=0.5) + " echo started", 30
    else:  # the writer would write well after the timeout killed the command
        command = _LATE_WRITER.format(launch=launch, delay=0.8) + " echo started; sleep 100"
        timeout_s = 0.3
    result = box.run(command, cwd=root, timeout_s=timeout_s)
    assert result.output == "started\n"
    assert result.timed_out is (ending == "timeout")
    time.sleep(1.0)
    assert not (root / "late.txt").exists()
    if ending == "exit":  # the same writer, waited for, does write
        control = box.run(
            _LATE_WRITER.format(launch=launch, delay=0.5) + " wait", cwd=root, timeout_s=30
        )
        assert control.exit_code == 0
        assert (root / "late.txt").read_text() == "late\n"


def test_a_setsid_leftover_dies_with_the_pids_cgroup(make: SandboxFactory, root: Path) -> None:
    if "pids" not in cgroups_available():
        pytest.skip("no pids cgroup on this host: the test above covers the other path")
    box = make(root)
    command = _LATE_WRITER.format(launch="setsid ", delay=0.5) + " echo started"
    result = box.run(command, cwd=root, timeout_s=30)
    assert result.output == "started\n"
    time.sleep(1.0)
    assert not (root / "late.txt").exists()


def test_output_flood_is_capped_head_and_tail(box: Sandbox, root: Path) -> None:
    result = box.run("printf START; yes | head -c 50000000; printf END", cwd=root, timeout_s=60)
    cap = Limits().output_cap
    assert result.exit_code == 0
    assert result.dropped_bytes == 5 + 50_000_000 + 3 - cap
    assert result.output.startswith("STARTy\ny\n")
    assert result.output.endswith("y\ny\nEND")
    assert f"[... {result.dropped_bytes} bytes of output dropped ...]" in result.output
    assert len(result.output.encode()) < cap + 100


def test_allocating_past_the_memory_bound_fails(make: SandboxFactory, root: Path) -> None:
    box = make(root, limits=Limits(memory_bytes=256 << 20))
    result = box.run(
        "python -c 'b = bytearray(1 << 30); print(\"allocated\")'", cwd=root, timeout_s=60
    )
    assert result.exit_code != 0
    assert "allocated" not in result.output
    if "memory" in cgroups_available():
        assert result.bound == "memory"
        assert "memory bound (256 MiB" in result.bound_message
    else:
        assert "MemoryError" in result.output


def test_memory_is_bounded_for_the_whole_command(make: SandboxFactory, root: Path) -> None:
    """Three processes of 150 MiB each: under a per-process limit all would live."""
    if "memory" not in cgroups_available():
        pytest.skip("no memory cgroup here: only RLIMIT_AS, which is per process")
    box = make(root, limits=Limits(memory_bytes=256 << 20))
    hold = "python -c 'import time; b = bytearray(150 << 20); time.sleep(5)'"
    result = box.run(f"{hold} & {hold} & {hold} & wait; echo done", cwd=root, timeout_s=60)
    assert result.bound == "memory", result
    small = box.run(f"{hold.replace('150', '50').replace('5)', '0)')}", cwd=root, timeout_s=60)
    assert small.exit_code == 0 and small.bound is None


def test_fork_bomb_ends_in_time(make: SandboxFactory, mode: str, root: Path) -> None:
    if mode == "none" and "pids" not in cgroups_available():
        pytest.skip(
            "no pids cgroup here: an unconfined fork bomb would only be stopped by its "
            "timeout, and this machine is shared, so it is not run"
        )
    box = make(root, limits=Limits(max_processes=64))
    started = time.monotonic()
    result = box.run("bomb() { bomb | bomb & }; bomb; sleep 1000", cwd=root, timeout_s=2)
    assert time.monotonic() - started < 8
    assert result.timed_out and result.killed
    probe = box.run("echo alive", cwd=root, timeout_s=10)  # the host can still fork
    assert probe.output == "alive\n"


def test_a_command_that_cannot_start_is_a_result(make: SandboxFactory, tmp_path: Path) -> None:
    root = tmp_path / "gone"
    root.mkdir()
    box = make(root)
    root.rmdir()
    result = box.run("true", cwd=root, timeout_s=10)
    assert result.exit_code != 0


_INTERRUPTED_RUN = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    from sandbox.confine import make_sandbox
    root = Path(sys.argv[2])
    box = make_sandbox(sys.argv[1], root)
    print("starting", flush=True)
    box.run("while true; do date +%s%N > heartbeat; sleep 0.05; done", cwd=root, timeout_s=60)
    """
)


def _heartbeat_stops(path: Path, within_s: float) -> bool:
    deadline = time.monotonic() + within_s
    last = path.read_text() if path.exists() else ""
    while time.monotonic() < deadline:
        time.sleep(0.5)
        now = path.read_text() if path.exists() else ""
        if now == last:
            return True
        last = now
    return False


def test_ctrl_c_in_the_harness_ends_the_command(mode: str, root: Path) -> None:
    repo_root = Path(__file__).resolve().parents[2]
    proc = subprocess.Popen(
        [sys.executable, "-c", _INTERRUPTED_RUN, mode, str(root)],
        cwd=repo_root,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env={**os.environ, "PYTHONPATH": str(repo_root)},
        preexec_fn=interruptible,
    )
    assert proc.stdout is not None
    assert proc.stdout.readline().strip() == "starting"
    heartbeat = root / "heartbeat"
    deadline = time.monotonic() + 60
    while not heartbeat.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert heartbeat.exists()
    proc.send_signal(signal.SIGINT)
    proc.wait(timeout=20)
    assert _heartbeat_stops(heartbeat, within_s=5)
