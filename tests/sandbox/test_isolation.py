"""`--sandbox none`: no command can read the model's key from any process's environment."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from sandbox.isolation import pid_namespace_prefix
from sandbox.unconfined import UnconfinedSandbox

REPO_ROOT = Path(__file__).resolve().parents[2]
KEY = "sk-ant-isolation-test-0123456789abcdef"

_HARNESS = textwrap.dedent(
    """\
    import sys
    from pathlib import Path
    import sandbox.unconfined as unconfined
    if sys.argv[2] == "no-namespace":  # the host without one: the control
        unconfined.pid_namespace_prefix = lambda: None
    root = Path(sys.argv[1])
    box = unconfined.UnconfinedSandbox(root)
    hunt = "grep -l -a KEY_PART /proc/[0-9]*/environ 2>/dev/null; cat /proc/$PPID/environ"
    result = box.run(hunt.replace("KEY_PART", sys.argv[3]), cwd=root, timeout_s=30)
    print(result.output)
    """
)


def _hunt(tmp_path: Path, variant: str) -> str:
    """A harness holding the key, started from a shell that holds it too (as a user's
    would), runs a command that looks for it in every process it can see."""
    done = subprocess.run(
        [
            "bash",
            "-c",
            'python3 -c "$HARNESS" "$@"; true',
            "shell",
            str(tmp_path),
            variant,
            KEY[-12:],
        ],
        cwd=REPO_ROOT,
        env={
            **os.environ,
            "ANTHROPIC_API_KEY": KEY,
            "HARNESS": _HARNESS,
            "PYTHONPATH": str(REPO_ROOT),
        },
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_no_process_environment_holds_the_key_for_a_command(tmp_path: Path) -> None:
    if pid_namespace_prefix() is None:
        pytest.skip("this host allows no PID namespace: the run says so instead")
    assert KEY[-12:] not in _hunt(tmp_path, "namespace")


def test_the_hunt_finds_the_key_without_a_namespace(tmp_path: Path) -> None:
    """The control: the same command without the PID namespace reads the user's shell."""
    if os.geteuid() != 0:
        pytest.skip("as a user, other processes of that user are readable only when dumpable")
    found = _hunt(tmp_path, "no-namespace")
    assert "/proc/" in found  # the shell that started the harness still holds the key


def test_the_harness_makes_itself_undumpable(tmp_path: Path) -> None:
    probe = (
        "import ctypes; from pathlib import Path; from sandbox.unconfined import UnconfinedSandbox; "
        "UnconfinedSandbox(Path(__import__('sys').argv[1])); "
        "print(ctypes.CDLL(None).prctl(3, 0, 0, 0, 0))"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe, str(tmp_path)],
        cwd=REPO_ROOT,
        env={**os.environ, "PYTHONPATH": str(REPO_ROOT)},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.stdout.strip() == "0", done.stderr  # PR_GET_DUMPABLE


def test_a_command_sees_only_its_own_processes(tmp_path: Path) -> None:
    if pid_namespace_prefix() is None:
        pytest.skip("this host allows no PID namespace")
    box = UnconfinedSandbox(tmp_path)
    result = box.run(
        "ls /proc | grep -c '^[0-9]'; grep CapEff /proc/self/status", cwd=tmp_path, timeout_s=30
    )
    count, *caps = result.output.split()
    assert int(count) < 10
    if os.geteuid() == 0:
        assert caps == ["CapEff:", "0000000000000000"]


def test_a_host_without_a_namespace_is_told(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    import sandbox.unconfined as unconfined

    monkeypatch.setattr(unconfined, "pid_namespace_prefix", lambda: None)
    box = unconfined.UnconfinedSandbox(tmp_path)
    assert any("no PID namespace" in note for note in box.notes)
