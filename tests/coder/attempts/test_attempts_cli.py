"""`coder run --attempts N` as a person types it: bad input is one line and exit 2 with
nothing made, the expected spend is said before anything starts, `--approve` asks about it,
and `--max-cost` holds the whole run to its dollars."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pexpect
import pytest
from attempt_candidates import RIGHT
from calcrepo import make_calc_repo
from clirun import coder_argv, coder_env
from fake_model_servers import fake_openai, openai_completion, openai_tool_call
from gitrepo import git, snapshot, write_script

from coder.models.pricing import cost_usd


def coder_run(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    argv = coder_argv("run", "--task", "make add() add", "--repo", str(repo), *args)
    return subprocess.run(argv, capture_output=True, text=True, env=coder_env(), timeout=600)


@pytest.mark.parametrize(
    ("flags", "said"),
    [
        (["--model", "script:{s}", "--model", "script:{s}"], "several models go with --attempts N"),
        (["--model", "script:{s}", "--max-cost", "1"], "--max-cost goes with --attempts N"),
        (["--model", "script:{s}", "--ray"], "--ray goes with --attempts N"),
        (
            ["--model", "script:{s}", "--attempts", "2", "--max-cost", "1"],
            "--max-cost needs a list price, and there is none for script:",
        ),
        (
            ["--model", "script:{s}", "--attempts", "2", "--record", "r.json"],
            "--record records one run's replies; it does not go with --attempts",
        ),
        (
            ["--model", "script:{s}", "--attempts", "2", "--approve"],
            "--approve asks on a terminal before the attempts start, and there is none",
        ),
        (["--model", "script:{s}", "--model", "nosuch:x", "--attempts", "2"], "nosuch"),
    ],
)
def test_bad_input_is_one_line_and_nothing_is_made(tmp_path, flags, said):
    repo = make_calc_repo(tmp_path)
    script = write_script(tmp_path / "s.json", RIGHT)
    before = snapshot(repo)
    done = coder_run(repo, *[f.replace("{s}", str(script)) for f in flags])
    assert done.returncode == 2, done.stdout + done.stderr
    [line] = done.stderr.strip().splitlines()
    assert said in line
    assert snapshot(repo) == before
    assert not (repo / ".coder").exists()
    assert git(repo, "branch", "--list", "coder/*") == ""


def test_approve_shows_the_expected_spend_and_a_no_starts_nothing(tmp_path):
    repo = make_calc_repo(tmp_path)
    script = write_script(tmp_path / "s.json", RIGHT)
    args = ["-m", "coder", "run", "--task", "make add() add", "--repo", str(repo)]
    args += ["--model", f"script:{script}", "--attempts", "3", "--approve"]
    child = pexpect.spawn(sys.executable, args, env=coder_env(), encoding="utf-8", timeout=120)
    child.expect_exact("3 attempt(s) expect to spend about")
    child.expect_exact("[y/N]")
    child.sendline("n")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 1
    [run_dir] = (repo / ".coder" / "runs").iterdir()
    result = json.loads((run_dir / "result.json").read_text())
    assert (result["status"], result["stop_reason"]) == ("stopped", "rejected_by_user")
    assert [c["status"] for c in result["candidates"]] == ["not_run"] * 3
    assert result["tokens"] == {"input": 0, "output": 0}
    assert git(repo, "branch", "--list", "coder/*") == ""


def test_max_cost_cuts_each_attempts_budget_to_its_share_of_the_dollars(tmp_path):
    """gpt-4o-mini at list price, $0.0001 for two attempts: each may spend $0.00005, about 83
    tokens at the output rate, so each stops at its token budget after one call (120 tokens);
    the run as a whole stays within the dollars."""
    repo = make_calc_repo(tmp_path)
    call = openai_completion(
        tool_calls=[openai_tool_call("list_files", "{}")], prompt_tokens=100, completion_tokens=20
    )
    with fake_openai([call, call]) as server:
        done = coder_run(
            repo, "--model", "openai:gpt-4o-mini", "--base-url", server.base_url,
            "--attempts", "2", "--max-cost", "0.0001",
        )  # fmt: skip
        calls = len(server.requests)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "--max-cost $0.00: each attempt may spend $0.00" in done.stdout
    [run_dir] = (repo / ".coder" / "runs").iterdir()
    result = json.loads((run_dir / "result.json").read_text())
    assert [c["stop_reason"] for c in result["candidates"]] == ["token_budget"] * 2
    assert calls == 2
    tokens = result["tokens"]
    spent = cost_usd("openai:gpt-4o-mini", tokens["input"], tokens["output"])
    assert spent is not None and 0 < spent <= 0.0001
