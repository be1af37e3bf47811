"""`coder plan`, `coder run --plan/--no-revise/--approve` as a person types them, without a
terminal: real subprocesses, real exit codes, one line for bad input and nothing changed."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from calcrepo import CALC, FIX_STEP, PYPROJECT, TESTS, plan, step
from clirun import coder, run_args
from gitrepo import git, make_repo, snapshot, write_script
from plansupport import ADD_SUB, FIX_TURNS, SUB_TURNS, plan_file


def calc(tmp_path: Path) -> Path:
    return make_repo(
        tmp_path / "repo",
        {"calc.py": CALC, "tests/test_calc.py": TESTS, "pyproject.toml": PYPROJECT},
    )


def unchanged(repo: Path, before: dict) -> bool:
    return snapshot(repo) == before and "coder/" not in git(repo, "branch")


def test_plan_prints_the_table_writes_the_file_and_run_plan_runs_it(tmp_path):
    repo = calc(tmp_path)
    before = snapshot(repo)
    planner = write_script(tmp_path / "p.json", [plan(FIX_STEP, ADD_SUB)])
    proc = coder(
        "plan", "--task", "fix add, add sub", "--repo", str(repo), "--model", f"script:{planner}"
    )
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "fix-add" in out and "add-sub" in out and "depends on" in out
    assert "tests pass in tests/test_calc.py" in out and "a match for /def sub/ in calc.py" in out
    written = next((repo / ".coder" / "plans").glob("*.json"))
    assert f"plan written to {written}" in " ".join(out.split())
    assert f"coder run --plan {written} --task 'fix add, add sub'" in " ".join(out.split())
    assert unchanged(repo, before)
    assert not list((repo / ".git" / "coder-worktrees").glob("*"))
    assert coder("check-plan", str(written)).returncode == 0

    executor = write_script(tmp_path / "e.json", [*FIX_TURNS, *SUB_TURNS])
    proc = coder(*run_args(repo, executor, "--plan", str(written), "--json"))
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    assert (result["status"], result["plan_source"], result["plan_sources"]) == (
        "verified",
        "user",
        ["user"],
    )
    assert [s["stepId"] for s in result["steps"]] == ["fix-add", "add-sub"]


def test_plan_says_it_is_a_plan_and_its_record_replays_to_the_same_plan(tmp_path):
    repo = calc(tmp_path)
    base = git(repo, "rev-parse", "HEAD")
    planner = write_script(tmp_path / "p.json", [plan(FIX_STEP, ADD_SUB)])
    recorded, first, second = tmp_path / "rec.json", tmp_path / "1.json", tmp_path / "2.json"
    proc = coder(
        "plan", "--task", "t", "--repo", str(repo), "--model", f"script:{planner}",
        "--out", str(first), "--record", str(recorded),
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith(f"coder plan from {base[:10]};"), proc.stdout
    assert [t["tool"] for t in json.loads(recorded.read_text())["turns"]] == ["submit_plan"]
    proc = coder(
        "plan", "--task", "t", "--repo", str(repo), "--model", f"script:{recorded}",
        "--out", str(second),
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert second.read_text() == first.read_text()
    session = next((repo / ".coder" / "runs").iterdir())
    shown = coder("show", str(session))
    assert shown.returncode == 0, shown.stderr
    assert " ".join(shown.stdout.split()).startswith(
        "coder plan session, planned: plan v1: 2 step(s), nothing changed"
    ), shown.stdout
    assert "no result.json: the run did not finish" not in shown.stdout


def test_plan_exits_like_run_when_the_model_stops(tmp_path):
    repo = calc(tmp_path)
    stops = write_script(tmp_path / "p.json", [{"tool": "stop", "input": {"reason": "unclear"}}])
    proc = coder("plan", "--task", "x", "--repo", str(repo), "--model", f"script:{stops}")
    assert proc.returncode == 1 and "no plan: unclear" in proc.stdout
    assert coder("plan", "--task", "x", "--repo", str(repo), "--model", "nosuch:m").returncode == 2
    assert not (repo / ".coder" / "plans").exists()


def test_run_plan_reports_every_problem_as_check_plan_does(tmp_path):
    repo = calc(tmp_path)
    before = snapshot(repo)
    bad = plan_file(tmp_path / "bad.json", step("a b", ["../x.py"], ["nice code"], deps=["gone"]))
    model = write_script(tmp_path / "s.json", FIX_TURNS)
    proc = coder(*run_args(repo, model, "--plan", str(bad)))
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    expected = coder("check-plan", str(bad)).stdout.splitlines()
    lines = proc.stderr.splitlines()
    assert [line for line in lines if not line.startswith("error:")] == expected
    assert lines[-1] == f"error: --plan {bad} is not a valid plan (4 problems, above)"
    assert unchanged(repo, before) and not (repo / ".coder").exists()
    not_json = tmp_path / "x.json"
    not_json.write_text("{goal")
    proc = coder(*run_args(repo, model, "--plan", str(not_json)))
    assert proc.returncode == 2 and f"{not_json}:1:2: not valid JSON" in proc.stderr


def test_approve_without_a_terminal_is_exit_2_unless_the_plan_is_given(tmp_path):
    repo = calc(tmp_path)
    before = snapshot(repo)
    model = write_script(tmp_path / "s.json", [plan(FIX_STEP), *FIX_TURNS])
    proc = coder(*run_args(repo, model, "--approve"), stdin=subprocess.DEVNULL)
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1 and "--approve asks on a terminal" in proc.stderr
    assert unchanged(repo, before)
    given = plan_file(tmp_path / "plan.json", FIX_STEP)
    model = write_script(tmp_path / "s.json", FIX_TURNS)
    proc = coder(
        *run_args(repo, model, "--approve", "--plan", str(given)), stdin=subprocess.DEVNULL
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "plan v1 approved (given with --plan)" in proc.stdout


def test_no_revise_contradicts_max_revisions(tmp_path):
    repo = calc(tmp_path)
    model = write_script(tmp_path / "s.json", FIX_TURNS)
    proc = coder(*run_args(repo, model, "--no-revise", "--max-revisions", "2"))
    assert proc.returncode == 2 and "contradict" in proc.stderr


def test_resume_bad_input_is_one_line_exit_2(tmp_path):
    repo = calc(tmp_path)
    for target, needle in ((tmp_path / "nope", "no such run directory"), (repo, "no state.json")):
        proc = coder("resume", str(target))
        assert proc.returncode == 2 and needle in proc.stderr, proc.stderr
        assert len(proc.stderr.strip().splitlines()) == 1 and "Traceback" not in proc.stderr
