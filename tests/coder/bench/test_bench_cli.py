"""`coder bench` flags for SWE-bench and Ray: what goes together, and one line when it does not."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from swebench_repos import INSTANCES, SCRIPTS

from coder.cli import ray_flag_value

ROOT = Path(__file__).resolve().parents[3]


def coder(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-m", "coder", "bench", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["--ray"], ["--ray=local"]),
        (["--ray", "--workers", "2"], ["--ray=local", "--workers", "2"]),
        (["--ray", "fixtures"], ["--ray=local", "fixtures"]),
        (["--ray", "auto"], ["--ray", "auto"]),
        (["--ray", "10.1.2.3:6379"], ["--ray", "10.1.2.3:6379"]),
        (["--ray", "ray://head:10001"], ["--ray", "ray://head:10001"]),
        (["--ray=auto"], ["--ray=auto"]),
    ],
)
def test_ray_takes_an_optional_address(argv, expected):
    assert ray_flag_value(["bench", *argv]) == ["bench", *expected]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--repos", "."], "--repos goes with --swebench FILE"),
        (["--hints"], "--hints goes with --swebench FILE"),
        (
            ["--swebench", str(SCRIPTS / "suite.jsonl"), "--model", f"script:{SCRIPTS}"],
            "no repos/ beside it to build the clones from; name the local clones with --repos DIR",
        ),
        (["--swebench", str(INSTANCES), "--repos", "."], "--swebench needs --model"),
        (
            [
                "--swebench",
                str(INSTANCES),
                "--repos",
                "/nonexistent",
                "--model",
                f"script:{SCRIPTS}",
            ],
            "--repos /nonexistent: no such directory",
        ),
        (
            ["--swebench", "missing.jsonl", "--repos", ".", "--model", f"script:{SCRIPTS}"],
            "missing.jsonl: no such file",
        ),
        (
            [
                *("--swebench", str(INSTANCES), "--repos", ".", "--model", f"script:{SCRIPTS}"),
                *("--predictions", "out.json"),
            ],
            "name a .jsonl file",
        ),
    ],
)
def test_flags_that_do_not_go_together_are_one_line_and_exit_2(args, message, tmp_path):
    done = coder(*args, cwd=tmp_path)
    assert done.returncode == 2, done.stdout + done.stderr
    text = " ".join((done.stdout + done.stderr).split())
    assert message in text
    assert list(tmp_path.iterdir()) == []
