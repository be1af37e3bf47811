"""The CLI with awkward input and awkward surroundings: a closed pipe, a subdirectory, a huge plan."""

from __future__ import annotations

import json
import subprocess

from calcrepo import FIX_ADD, FIX_STEP, FIX_TURNS, make_calc_repo, plan, step
from clirun import coder, run_args, start_coder
from gitrepo import write_script
from smallfs import small_tmpfs


def test_a_closed_stdout_does_not_stop_the_run(tmp_path):
    """`coder run … | head -1`: the reader goes away after one line; the run goes on."""
    repo = make_calc_repo(tmp_path)
    go = tmp_path / "go"
    script = write_script(
        tmp_path / "s.json",
        [
            plan(FIX_STEP),
            {"tool": "run", "input": {"command": f"until [ -e {go} ]; do sleep 0.05; done"}},
            {"tool": "edit_file", "input": FIX_ADD},
            {"tool": "finish_step", "input": {"summary": "fixed"}},
        ],
    )
    out = tmp_path / "out"
    proc = start_coder(
        *run_args(repo, script, "--out", str(out), "--sandbox", "none", "--cmd-timeout", "60")
    )
    assert proc.stdout is not None and proc.stderr is not None
    assert proc.stdout.readline().startswith("coder contract run")
    proc.stdout.close()  # like head: gone before the run prints its steps
    go.touch()  # only now does the step go on and print
    assert proc.wait(timeout=120) == 0
    assert "Traceback" not in proc.stderr.read()
    result = json.loads((out / "result.json").read_text())
    assert result["status"] == "verified"
    assert "return a + b" in (out / "final.patch").read_text()
    assert '"run_finished"' in (out / "trace.jsonl").read_text()


def test_repo_given_as_a_subdirectory_runs_on_the_whole_repository(tmp_path):
    repo = make_calc_repo(tmp_path)
    script = write_script(tmp_path / "s.json", list(FIX_TURNS))
    done = coder(*run_args(repo / "tests", script, "--json"))
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert (repo / ".coder" / "runs" / result["run_id"] / "result.json").is_file()
    assert not (repo / "tests" / ".coder").exists()
    assert "calc.py" in result["patch"]  # a file outside the subdirectory


def test_check_plan_on_a_huge_plan_prints_fifty_problems_and_counts_the_rest(tmp_path):
    steps = [
        {
            "stepId": f"step-{i}",
            "intendedModification": {"files": [f"../outside-{i}.py"], "invariants": []},
            "rollbackPlan": {"gitCheckout": "HEAD~1"},
        }
        for i in range(3000)
    ]
    path = tmp_path / "plan.json"
    path.write_text(json.dumps({"goal": "g", "steps": steps}))
    proc = coder("check-plan", str(path))
    assert proc.returncode == 2
    lines = proc.stdout.splitlines()
    assert len(lines) == 51, lines[-3:]
    assert all("outside-" in line for line in lines[:50])
    assert lines[-1] == "… and 2950 more problem(s), 3000 in all"


def test_check_plan_of_a_valid_plan_lists_its_steps(tmp_path):
    path = tmp_path / "plan.json"
    path.write_text(json.dumps({"goal": "g", "steps": [step("a", ["calc.py"], [])]}))
    proc = coder("check-plan", str(path))
    assert proc.returncode == 0 and proc.stdout == "1. a: calc.py [scope only]\n"


def test_an_unwritable_record_path_is_bad_input_before_anything_starts(tmp_path):
    """`--record` is first written after the first model reply: a path that cannot be written
    must be said before the run starts, not as a traceback after it."""
    repo = make_calc_repo(tmp_path)
    script = write_script(tmp_path / "s.json", list(FIX_TURNS))
    (tmp_path / "afile").write_text("a file, not a directory\n")
    cases = {
        tmp_path / "afile" / "rec.json": "is not a directory",
        tmp_path: "is a directory",
        tmp_path / "ro" / "sub" / "rec.json": "cannot write in",
    }
    with small_tmpfs(tmp_path / "ro", read_only=True):
        for record, said in cases.items():
            done = coder(*run_args(repo, script, "--record", str(record)))
            assert done.returncode == 2, done.stdout + done.stderr
            assert said in done.stderr and len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert not (repo / ".coder").exists()
    branches = subprocess.run(
        ["git", "-C", str(repo), "branch"], capture_output=True, text=True, check=True
    ).stdout
    assert "coder/" not in branches
