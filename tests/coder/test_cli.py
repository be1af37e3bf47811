"""The CLI as a person uses it: a real subprocess, real exit codes."""

from __future__ import annotations

import json
import re
import signal
import subprocess
import time

import pytest
from calcrepo import FIX_ADD, FIX_STEP, make_calc_repo, plan, step
from clirun import coder, coder_argv, coder_env, run_args, start_coder
from gitrepo import snapshot, write_script


def test_run_verified_exits_0_and_json_prints_result(tmp_path):
    repo = make_calc_repo(tmp_path)
    script = write_script(
        tmp_path / "s.json",
        [
            plan(FIX_STEP),
            {"tool": "edit_file", "input": FIX_ADD},
            {"tool": "finish_step", "input": {"summary": "fixed"}},
        ],
    )
    proc = coder(
        "run", "--task", "fix add", "--repo", str(repo), "--model", f"script:{script}", "--json"
    )
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    assert result["status"] == "verified" and result["stop_reason"] == "completed"
    show = coder("show", str(repo / ".coder" / "runs" / result["run_id"]))
    assert show.returncode == 0
    assert "fix-add" in show.stdout and "signature_unchanged" in show.stdout


def test_unverified_run_exits_1_with_reason(tmp_path):
    repo = make_calc_repo(tmp_path)
    script = write_script(tmp_path / "s.json", [plan(FIX_STEP)])
    proc = coder("run", "--task", "fix add", "--repo", str(repo), "--model", f"script:{script}")
    assert proc.returncode == 1
    assert "model_error" in proc.stdout


def test_bad_inputs_exit_2_with_one_line_and_change_nothing(tmp_path):
    plain = tmp_path / "plain"
    plain.mkdir()
    proc = coder("run", "--task", "x", "--repo", str(plain), "--model", "script:/nonexistent.json")
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    repo = make_calc_repo(tmp_path)
    before = snapshot(repo)
    for args in (
        ["--model", "script:/nonexistent.json"],
        ["--model", "nosuch:model"],
        ["--mode", "yolo", "--model", "script:/x.json"],
        ["--max-memory", "lots", "--model", "script:/x.json"],
        ["--max-file-size", "0", "--model", "script:/x.json"],
    ):
        proc = coder("run", "--task", "x", "--repo", str(repo), *args)
        assert proc.returncode == 2, (args, proc.stderr)
        assert "Traceback" not in proc.stderr and proc.stderr.strip()
    assert snapshot(repo) == before
    assert (
        "coder/"
        not in subprocess.run(["git", "branch"], cwd=repo, capture_output=True, text=True).stdout
    )


def test_an_unknown_sandbox_is_said_alike_by_every_command(tmp_path):
    repo = make_calc_repo(tmp_path)
    said = "error: --sandbox must be one of auto, bwrap, none, not 'docker'"
    for argv in (
        ["run", "--task", "x", "--repo", str(repo), "--model", "script:/x.json"],
        ["plan", "--task", "x", "--repo", str(repo), "--model", "script:/x.json"],
        ["resume", str(tmp_path), "--model", "script:/x.json"],
        ["ci", "review", "--repo", str(repo), "--base", "HEAD", "--head", "HEAD"],
        ["ci", "fix", "--repo", str(repo)],
    ):
        proc = coder(*argv, "--sandbox", "docker")
        assert (proc.returncode, proc.stderr.strip()) == (2, said), argv


def test_no_model_and_no_key_is_a_clear_usage_error(tmp_path):
    repo = make_calc_repo(tmp_path)
    proc = coder("run", "--task", "x", "--repo", str(repo))
    assert proc.returncode == 2 and "ANTHROPIC_API_KEY" in proc.stderr


@pytest.mark.parametrize(
    ("signum", "code", "said"),
    [
        (signal.SIGINT, 130, "interrupted by the user"),
        (signal.SIGTERM, 130, "terminated (SIGTERM)"),
    ],
)
def test_a_signal_mid_run_exits_with_a_complete_run_dir_and_no_worktree(
    tmp_path, signum, code, said
):
    repo = make_calc_repo(tmp_path)
    script = write_script(
        tmp_path / "s.json",
        [
            plan(step("slow", ["calc.py"], [])),
            {"tool": "run", "input": {"command": "sleep 60"}},
        ],
    )
    out = tmp_path / "out"
    proc = start_coder(*run_args(repo, script, "--out", str(out), "--cmd-timeout", "90"))
    trace = out / "trace.jsonl"
    deadline = time.monotonic() + 60
    while not (trace.is_file() and '"tool": "run"' in trace.read_text()):
        assert time.monotonic() < deadline and proc.poll() is None, proc.stderr
        time.sleep(0.05)
    proc.send_signal(signum)
    stdout, stderr = proc.communicate(timeout=30)  # well before `sleep 60` would end
    assert proc.returncode == code, stderr
    result = json.loads((out / "result.json").read_text())
    assert (result["stop_reason"], result["message"]) == ("interrupted", said)
    assert f"stopped (interrupted): {said}" in stdout
    assert f"to continue it: coder resume {out}" in stdout
    assert "Traceback" not in stderr
    assert '"run_finished"' in trace.read_text()
    assert not list((repo / ".git" / "coder-worktrees").glob("*"))


def test_check_plan_seed_example_reports_exactly_the_missing_dependency(tmp_path):
    seed = {
        "goal": "Move auth tokens to the new schema",
        "steps": [
            {
                "stepId": "migrate-auth-tokens",
                "title": "Rewrite token storage",
                "dependencies": ["schema-migration-applied"],
                "intendedModification": {
                    "files": ["src/auth.ts", "test/auth.test.ts"],
                    "invariants": [
                        "Zero breaking changes to verifyCredential signature",
                        "All unit tests in auth.test.ts must exit code 0",
                        {"kind": "command_succeeds", "command": "npx tsc --noEmit"},
                    ],
                },
                "rollbackPlan": {"gitCheckout": "HEAD~1", "discardPaths": ["src/auth.ts"]},
            }
        ],
    }
    path = tmp_path / "plan.json"
    path.write_text(json.dumps(seed))
    proc = coder("check-plan", str(path))
    assert proc.returncode == 2
    lines = [line for line in proc.stdout.splitlines() if line.strip()]
    assert len(lines) == 1 and "schema-migration-applied" in lines[0]
    path.write_text("{not json")
    proc = coder("check-plan", str(path))
    assert proc.returncode == 2 and "Traceback" not in proc.stdout + proc.stderr


def test_schema_and_compact_commands(tmp_path):
    for name in ("plan", "script", "result"):
        proc = coder("schema", name)
        assert proc.returncode == 0 and json.loads(proc.stdout)
    assert coder("schema", "nope").returncode == 2
    log = "\n".join(
        ["." * 80] * 2000
        + [
            "FAILED tests/test_x.py::test_y - AssertionError: 1 != 2",
            "1 failed, 2000 passed in 1.00s",
        ]
    )
    proc = coder("compact", "-", "--budget", "200", input=log)
    assert proc.returncode == 0
    assert "tests/test_x.py::test_y" in proc.stdout and len(proc.stdout) < len(log) / 10


def test_progress_is_plain_lines_without_a_terminal(tmp_path):
    repo = make_calc_repo(tmp_path)
    script = write_script(
        tmp_path / "s.json",
        [
            plan(FIX_STEP),
            {"tool": "edit_file", "input": {**FIX_ADD, "new_text": "return (a, b)"}},
            {"tool": "finish_step", "input": {"summary": "oops"}},
            plan(FIX_STEP),
            {"tool": "edit_file", "input": FIX_ADD},
            {"tool": "finish_step", "input": {"summary": "fixed"}},
        ],
    )
    proc = coder("run", "--task", "fix add", "--repo", str(repo), "--model", f"script:{script}")
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert "\x1b[" not in proc.stdout
    assert any(line.startswith("plan v1: 1 step(s): fix-add") for line in lines)
    assert any(line.startswith("step 1/1 fix-add (attempt 1)") for line in lines)
    assert any("✗ tests_pass" in line for line in lines)
    assert any("rolled back fix-add to HEAD~1" in line for line in lines)
    assert any(line.startswith("revision 1 → plan v2") for line in lines)
    assert any(line.startswith("verified (completed)") for line in lines)


def test_markup_in_model_text_prints_as_written(tmp_path):
    repo = make_calc_repo(tmp_path)
    script = write_script(
        tmp_path / "s.json", [{"tool": "stop", "input": {"reason": "blocked [/] on list[int]"}}]
    )
    proc = coder(
        "run",
        "--task",
        "x",
        "--repo",
        str(repo),
        "--model",
        f"script:{script}",
        "--out",
        str(tmp_path / "o"),
    )
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    assert "blocked [/] on list[int]" in proc.stdout
    show = coder("show", str(tmp_path / "o"))
    assert show.returncode == 0 and "blocked [/] on list[int]" in show.stdout


def test_output_is_not_wrapped_at_80_columns_without_a_terminal(tmp_path):
    env = {k: v for k, v in coder_env().items() if k not in ("COLUMNS", "TERMINAL_WIDTH")}
    helped = subprocess.run(
        coder_argv("run", "--help"), capture_output=True, text=True, env=env, timeout=60
    )
    assert helped.returncode == 0
    line = next(x for x in helped.stdout.splitlines() if "--max-reply-tokens" in x)
    assert "Longest reply per model call (default: from the server)." in line
    repo = make_calc_repo(tmp_path)
    script = write_script(tmp_path / ("a-long-directory-name-" * 3 + ".json"), [plan(FIX_STEP)])
    proc = coder(
        "run",
        "--task",
        "fix add",
        "--repo",
        str(repo),
        "--model",
        f"script:{script}",
        "--max-reply-tokens",
        "300",
        "--context-tokens",
        "5000",
    )
    assert proc.returncode == 1, proc.stderr
    started = next(x for x in proc.stdout.splitlines() if x.startswith("coder contract run on"))
    assert len(started) > 80 and started.endswith("tests `python -m pytest -q`")
    assert (
        "model calls hold 5,000 tokens of context and 300 of reply (flags or config)" in proc.stdout
    )
    finished = next(x for x in proc.stdout.splitlines() if x.startswith("failed (model_error)"))
    assert re.search(r"all 1 were used · [\d,]+ tokens · [\d.]+s$", finished)


def test_a_test_command_that_cannot_run_exits_2_with_one_line(tmp_path):
    repo = make_calc_repo(tmp_path)
    before = snapshot(repo)
    script = write_script(tmp_path / "s.json", [plan(FIX_STEP)])
    proc = coder(
        "run",
        "--task",
        "fix add",
        "--repo",
        str(repo),
        "--model",
        f"script:{script}",
        "--test-cmd",
        ".venv/bin/python -m pytest",
    )
    assert proc.returncode == 2, proc.stdout + proc.stderr
    error = [line for line in proc.stderr.splitlines() if line.strip()]
    assert len(error) == 1 and "`.venv/bin/python -m pytest` cannot run" in error[0]
    assert "No such file or directory" in error[0] and "plan v1" not in proc.stdout
    assert snapshot(repo) == before


def test_the_terminal_says_what_already_fails(tmp_path):
    repo = make_calc_repo(tmp_path)
    script = write_script(tmp_path / "s.json", [{"tool": "stop", "input": {"reason": "seen"}}])
    proc = coder("run", "--task", "fix add", "--repo", str(repo), "--model", f"script:{script}")
    assert proc.returncode == 1, proc.stderr
    line = next(x for x in proc.stdout.splitlines() if x.startswith("baseline "))
    assert "`python -m pytest -q`" in line
    assert line.endswith("1 passed, 1 already failing: tests/test_calc.py::test_add")
    run_dir = "".join(proc.stdout.split("run directory: ")[-1].split())  # wrapped at 80
    show = coder("show", run_dir)
    assert show.returncode == 0
    assert "baseline: `python -m pytest -q` exit 1 · 1 passed · 1 already failing" in show.stdout


@pytest.mark.parametrize("mode", ["react", "reflect"])
def test_bound_flags_reach_the_commands_the_model_runs(tmp_path, mode):
    """--max-file-size is the bound a `run` hits, and the model is told it in words."""
    repo = make_calc_repo(tmp_path)
    big = {"tool": "run", "input": {"command": "head -c 3000000 /dev/zero > big.bin"}}
    done = {"tool": "final_answer", "input": {"summary": "tried"}}
    turns = [big, done] + ([{"tool": "critique_done", "input": {"verdict": "ok"}}] * 2)
    script = write_script(tmp_path / "s.json", turns)
    out = tmp_path / "out"
    proc = coder(
        *run_args(repo, script, "--mode", mode, "--max-file-size", "1M", "--out", str(out))
    )
    assert proc.returncode in (0, 1) and "Traceback" not in proc.stderr, proc.stderr
    runs = [
        json.loads(line)
        for line in (out / "trace.jsonl").read_text().splitlines()
        if '"tool": "run"' in line and '"observation"' in line
    ]
    assert "a file it wrote reached the file size bound (1 MiB)" in runs[0]["text"]
