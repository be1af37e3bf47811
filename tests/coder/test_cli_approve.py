"""`coder run --approve` in a real terminal (a pseudo-terminal driven by pexpect): the plan is
shown, and the person runs it, edits it in $EDITOR, or stops the run."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pexpect
from calcrepo import CALC, FIX_ADD, FIX_STEP, PYPROJECT, TESTS, plan
from clirun import coder_env
from gitrepo import git, make_repo, write_script
from plansupport import BROKEN_ADD, FIX_TURNS, editor, plan_file

ASK = "[r]un it, [e]dit it, or [s]top?"


def calc(tmp_path: Path) -> Path:
    return make_repo(
        tmp_path / "repo",
        {"calc.py": CALC, "tests/test_calc.py": TESTS, "pyproject.toml": PYPROJECT},
    )


def spawn(repo: Path, script: Path, out: Path, *extra: str, editor_cmd: str = "false"):
    args = ["-m", "coder", "run", "--task", "fix add", "--repo", str(repo)]
    args += ["--model", f"script:{script}", "--out", str(out), "--approve", *extra]
    env = {**coder_env(), "EDITOR": editor_cmd, "VISUAL": ""}
    return pexpect.spawn(
        sys.executable, args, env=env, encoding="utf-8", timeout=120, dimensions=(50, 220)
    )


def finish(child) -> int:
    child.expect(pexpect.EOF)
    child.close()
    return child.exitstatus


def events(out: Path, kind: str) -> list[dict]:
    lines = (out / "trace.jsonl").read_text().splitlines()
    return [e for e in map(json.loads, lines) if e["type"] == kind]


def test_run_it_and_every_revision_is_asked_again(tmp_path):
    repo, out = calc(tmp_path), tmp_path / "run"
    given = plan_file(tmp_path / "plan.json", FIX_STEP)
    script = write_script(
        tmp_path / "s.json",
        [
            {"tool": "edit_file", "input": BROKEN_ADD},
            {"tool": "finish_step", "input": {"summary": "oops"}},
            plan(FIX_STEP),
            *FIX_TURNS,
        ],
    )
    child = spawn(repo, script, out, "--plan", str(given))
    child.expect_exact("plan v1 approved (given with --plan)")
    child.expect_exact("fix-add")  # the revision, shown as a table before it is asked about
    child.expect_exact(f"plan v2: {ASK}")
    child.sendline("r")
    assert finish(child) == 0
    result = json.loads((out / "result.json").read_text())
    assert (result["status"], result["revisions"]) == ("verified", 1)
    assert [(e["version"], e["by"]) for e in events(out, "plan_approved")] == [
        (1, "plan_file"),
        (2, "terminal"),
    ]


def test_stop_ends_the_run_before_any_step(tmp_path):
    repo, out = calc(tmp_path), tmp_path / "run"
    script = write_script(tmp_path / "s.json", [plan(FIX_STEP), *FIX_TURNS])
    child = spawn(repo, script, out)
    child.expect_exact("checked after the step")
    child.expect_exact(f"plan v1: {ASK}")
    child.sendline("s")
    assert finish(child) == 1
    result = json.loads((out / "result.json").read_text())
    assert (result["status"], result["stop_reason"]) == ("stopped", "rejected_by_user")
    assert result["steps"] == [] and result["model_turns"] == 1
    assert git(repo, "rev-list", "--count", f"{result['base_commit']}..{result['branch']}") == "0\n"
    assert [e["version"] for e in events(out, "plan_declined")] == [1]
    assert not events(out, "step_started")


def test_edit_says_why_a_failed_edit_changed_nothing_and_runs_the_valid_one(tmp_path):
    repo, out = calc(tmp_path), tmp_path / "run"
    script = write_script(tmp_path / "s.json", [plan(FIX_STEP), *FIX_TURNS])
    escaping = {
        "goal": "g",
        "steps": [{**FIX_STEP, "intendedModification": {"files": ["../calc.py"]}}],
    }
    modification = FIX_STEP["intendedModification"]
    checked = [*modification["invariants"], {"kind": "max_changed_lines", "n": 4}]
    edited = {"goal": "fix add, reviewed", "steps": [{**FIX_STEP, "title": "Fix add()",
              "intendedModification": {**modification, "invariants": checked}}]}  # fmt: skip
    actions = [{"exit": 3}, {"write": "{not json"}, {"json": escaping}, {"json": edited}]
    child = spawn(repo, script, out, editor_cmd=editor(tmp_path, actions))
    for said in (
        "the editor exited with status 3; plan v1 is unchanged",
        "your edit is not valid JSON (line 1, column 2: Expecting property name enclosed in "
        "double quotes); plan v1 is unchanged",
        "your edit is not a valid plan; plan v1 is unchanged: steps[0] (fix-add)."
        "intendedModification.files[0]: '../calc.py' contains '..'",
        "your edit is plan v2",
    ):
        child.expect_exact(f"plan v1: {ASK}")
        child.sendline("e")
        child.expect_exact(said)
        assert not (out / "plan.v2.json").exists() or said == "your edit is plan v2"
    child.expect_exact("at most 4 changed lines")  # v2, shown before it is asked about
    child.expect_exact(f"plan v2: {ASK}")
    child.sendline("run")
    assert finish(child) == 0
    result = json.loads((out / "result.json").read_text())
    assert result["status"] == "verified" and result["plan_sources"] == ["model", "user"]
    assert json.loads((out / "plan.v2.json").read_text()) == edited
    assert json.loads((out / "plan.v1.json").read_text()) == plan(FIX_STEP)["input"]
    kinds = [i["kind"] for i in result["steps"][0]["invariants"]]
    assert "max_changed_lines" in kinds
    assert [(e["version"], e["from_version"]) for e in events(out, "plan_edited")] == [(2, 1)]
    assert [e["version"] for e in events(out, "plan_approved")] == [2]


def test_asking_is_bounded(tmp_path):
    repo, out = calc(tmp_path), tmp_path / "run"
    script = write_script(
        tmp_path / "s.json", [plan(FIX_STEP), {"tool": "edit_file", "input": FIX_ADD}]
    )
    child = spawn(repo, script, out, editor_cmd=editor(tmp_path, [{"exit": 1}] * 5))
    child.expect_exact(f"plan v1: {ASK}")
    child.sendline("maybe")
    child.expect_exact("'maybe' is not an answer; type r, e or s")
    for _ in range(5):
        child.expect_exact(f"plan v1: {ASK}")
        child.sendline("e")
        child.expect_exact("the editor exited with status 1")
    assert finish(child) == 1
    result = json.loads((out / "result.json").read_text())
    assert result["stop_reason"] == "needs_input"  # the person never chose stop
    assert result["message"] == "no decision on plan v1 after 6 prompts; nothing of it ran"
    assert result["plan_versions"] == 1 and result["steps"] == []
