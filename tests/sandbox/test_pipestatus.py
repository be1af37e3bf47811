"""A command's exit status counts a failure anywhere in its last pipeline, in real bash and in
every sandbox mode, without changing what the command does while it runs."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from sandbox.confine import make_sandbox
from sandbox.pipestatus import with_pipeline_status

CASES = [
    ("false | tail -1", 1),  # the hidden failure a live model finished a step on
    ("nosuchcommand 2>&1 | tail -2", 127),
    ('sh -c "exit 2" | cat | head -1', 2),
    ('sh -c "exit 4" | sh -c "exit 0" | cat', 4),
    ("(exit 5) | cat", 5),
    ("echo hi; false | cat", 1),
    ("seq 100000 | head -1", 0),  # seq is stopped by SIGPIPE: not a failure
    ("seq 100000 | grep -q 5", 0),
    ("echo a | grep -q b", 1),
    ("false | cat; echo after", 0),  # only the last pipeline counts, as written
    ("false | cat; exit 0", 0),  # an explicit exit is kept
    ("exit 3", 3),
    ("true", 0),
    ("false", 1),
    ("cat <<EOF | cat\nx\nEOF", 0),
    ('echo "unterminated', 2),
]


@pytest.mark.parametrize(("command", "status"), CASES)
def test_exit_status_of_the_last_pipeline(command: str, status: int) -> None:
    done = subprocess.run(["bash", "-c", with_pipeline_status(command)], capture_output=True)
    assert done.returncode == status


def test_a_chain_after_a_cut_pipe_still_runs() -> None:
    """What `set -o pipefail` would break: head stops seq, and the chain goes on."""
    command = "seq 100000 | head -1 && echo next"
    done = subprocess.run(["bash", "-c", with_pipeline_status(command)], capture_output=True)
    assert (done.returncode, done.stdout) == (0, b"1\nnext\n")
    strict = subprocess.run(["bash", "-o", "pipefail", "-c", command], capture_output=True)
    assert strict.returncode == 141 and b"next" not in strict.stdout


def test_errors_keep_their_line_numbers() -> None:
    done = subprocess.run(
        ["bash", "-c", with_pipeline_status("true\nnosuchcommand")], capture_output=True
    )
    assert b"line 2: nosuchcommand" in done.stderr


@pytest.mark.parametrize("mode", ["bwrap", "none"])
def test_in_the_sandbox(mode: str, tmp_path: Path) -> None:
    sandbox = make_sandbox(mode, tmp_path, warn=lambda _: None)
    hidden = sandbox.run(with_pipeline_status("false | tail -1"), cwd=tmp_path, timeout_s=10)
    cut = sandbox.run(with_pipeline_status("seq 100000 | head -1"), cwd=tmp_path, timeout_s=10)
    assert (hidden.exit_code, cut.exit_code, cut.output.strip()) == (1, 0, "1")
