"""What a repository's `.coder.toml` may set (issue 32): it never chooses the model, lowers
limits but never raises them, and its values never outlast the user's `--timeout`. Real git,
real bubblewrap, the real anthropic SDK against a local server, `coder` as a subprocess for
the runs that must end in time."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest
from calcrepo import FIX_ADD, FIX_STEP, plan
from clirun import coder_argv, coder_env
from fake_model_servers import anthropic_message, anthropic_tool_use, fake_anthropic
from gitrepo import git, write_script

from coder.loop.runner import RunOptions, run_task
from coder.loop.state.trace import read_trace
from sandbox.confine import bwrap_unavailable_reason

needs_bwrap = pytest.mark.skipif(
    bwrap_unavailable_reason() is not None, reason="bubblewrap cannot start here"
)
FINISH = {"tool": "final_answer", "input": {"summary": "nothing to do"}}


def _commit(repo: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_text(text)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "config")


def test_a_repository_never_chooses_the_model(calc_repo, monkeypatch) -> None:
    """The repository's own scripted replies would make its change, verify it and ship it."""
    own = [plan(FIX_STEP), {"tool": "edit_file", "input": FIX_ADD}, FINISH]
    _commit(
        calc_repo,
        {
            ".coder.toml": 'model = "script:.model.json"\n',
            ".model.json": json.dumps({"turns": own}),
        },
    )
    stop = anthropic_message(tool_calls=[anthropic_tool_use("stop", {"reason": "not mine"})])
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-settings-test-key")
    warnings: list[str] = []
    with fake_anthropic([stop]) as server:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.base_url)
        outcome = run_task(RunOptions(repo=calc_repo, task="fix add", warn=warnings.append))
    assert len(server.requests) == 1  # the user's default model was asked, and only it
    assert outcome.result.model.startswith("anthropic:")
    assert outcome.result.stop_reason == "stopped_by_model" and "+" not in outcome.result.patch
    said = [w for w in warnings if "names a model" in w]
    assert said == [
        "the repository's configuration names a model; ignored: only --model on the "
        "command line chooses the model"
    ]
    started = read_trace(outcome.run_dir / "trace.jsonl")[0]
    assert started["model"].startswith("anthropic:") and said[0] in started["settings"]


def test_a_repository_may_lower_limits_and_never_raise_them(calc_repo, script) -> None:
    _commit(
        calc_repo,
        {
            ".coder.toml": (
                "cmd_timeout = 100000\nmax_turns = 1000\nmax_revisions = 50\n"
                "context_tokens = 10000000\nmask_threshold = 9000000\nmax_reply_tokens = 700\n"
            )
        },
    )
    warnings: list[str] = []
    outcome = run_task(
        RunOptions(
            repo=calc_repo, task="t", model=script(FINISH), mode="react", warn=warnings.append
        )
    )
    started = read_trace(outcome.run_dir / "trace.jsonl")[0]
    limits = started["limits"]
    assert (limits["cmd_timeout_s"], limits["max_turns"], limits["max_revisions"]) == (120, 60, 3)
    assert (limits["context_tokens"], limits["max_reply_tokens"]) == (24000, 700)
    assert limits["mask_threshold"] in (None, 24000)
    raised = [w for w in warnings if "a repository may lower a limit, never raise it" in w]
    assert [w.split(" = ")[0].rsplit(" ", 1)[-1] for w in raised] == [
        "context_tokens",
        "max_turns",
        "max_revisions",
        "cmd_timeout",
        "mask_threshold",
    ]
    assert "sets cmd_timeout = 100000, above the 120 this run has" in raised[3]
    assert "(--cmd-timeout on the command line does)" in raised[3]
    assert all(w in started["settings"] for w in raised)
    flagged = run_task(
        RunOptions(
            repo=calc_repo, task="t", model=script(FINISH), mode="react", cmd_timeout_s=500.0
        )
    )
    assert read_trace(flagged.run_dir / "trace.jsonl")[0]["limits"]["cmd_timeout_s"] == 500.0


QUICK = (
    "import unittest\n\n\nclass Quick(unittest.TestCase):\n    def test_ok(self):\n        pass\n"
)
TIMEOUT_CASES = {
    "setup": (
        {".coder.toml": "cmd_timeout = 100000\nsetup_cmd = 'exec sleep 100000'\n"},
        "python -m pytest -q",
        5,
        "in setup_cmd",
    ),
    "baseline": (
        {".coder.toml": "cmd_timeout = 100000\n"},
        "exec sleep 100000",
        5,
        "in the baseline",
    ),
    "final-check": (
        {".coder.toml": "cmd_timeout = 100000\n", "tests/test_quick.py": QUICK},
        "test -f hang && exec sleep 100000; python -m unittest -v tests/test_quick.py",
        20,
        "in the final check",
    ),
}
"""What hangs: the config that asks for more time, the test command, --timeout, where it
stopped. The final check's run writes `hang` and answers at once; its baseline runs first
(unittest: quick to start on a loaded machine). Each `.coder.toml` also stands in for the
calc repository's own `cmd_timeout = 20`, so that the run's --timeout is what must cut."""
GRACE_S = 45.0
"""How long past --timeout a run may take to end on a loaded machine (before the fix: 120 s
or more, a hanging setup_cmd forever)."""


@needs_bwrap
@pytest.mark.parametrize("case", list(TIMEOUT_CASES))
def test_the_timeout_bounds_the_run_from_its_start(calc_repo, tmp_path, case) -> None:
    files, test_cmd, timeout, where = TIMEOUT_CASES[case]
    if files:
        _commit(calc_repo, files)
    turns = [{"tool": "write_file", "input": {"path": "hang", "content": "x\n"}}, FINISH]
    script = write_script(tmp_path / "s.json", turns)
    argv = coder_argv(
        "run", "--task", "t", "--repo", str(calc_repo), "--model", f"script:{script}",
        "--mode", "react", "--test-cmd", test_cmd, "--timeout", str(timeout), "--json",
    )  # fmt: skip
    started = time.monotonic()
    proc = subprocess.Popen(
        argv,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=coder_env(),
        start_new_session=True,
    )
    try:
        out, err = proc.communicate(timeout=timeout + GRACE_S)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        pytest.fail(f"--timeout {timeout} did not end the run within {GRACE_S:.0f}s more")
    wall = time.monotonic() - started
    assert proc.returncode == 1, err
    result = json.loads(out)
    assert (result["status"], result["stop_reason"]) == ("stopped", "timeout"), result["message"]
    assert where in result["message"], result["message"]
    assert timeout - 1 <= wall < timeout + GRACE_S
    branches = git(calc_repo, "branch", "--list", "coder/*").strip()
    if case == "final-check":  # the model was reached: the branch stays, as for `coder resume`
        assert result["model_turns"] == 2 and result["baseline"]["passed"] == 1, result
        assert branches == result["branch"]
    else:
        assert branches == ""  # a run that never reached the model leaves no branch
    assert git(calc_repo, "worktree", "list").count("\n") == 1  # the worktree is gone
    assert git(calc_repo, "status", "--porcelain") == ""
