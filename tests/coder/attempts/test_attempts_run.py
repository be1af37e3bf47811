"""`coder run --attempts N` end to end: scripted candidates through real git, real
bubblewrap and real pytest, the selection choosing by the proofs they exchange."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from attempt_candidates import (
    FAILING,
    HALF_WAY,
    REACT_RIGHT,
    REACT_RIGHT_NO_TEST,
    REACT_WRONG,
    REACT_WRONG_VACUOUS,
    RIGHT,
    WRONG_BUT_VERIFYING,
)
from calcrepo import make_calc_repo
from clirun import coder_argv, coder_env
from gitrepo import git, snapshot, write_script

from coder.loop.state.trace import read_trace

RUN_TIMEOUT_S = 600


def coder_run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        coder_argv(*args), capture_output=True, text=True, env=coder_env(), timeout=RUN_TIMEOUT_S
    )


def scripts(tmp_path: Path, *players: list[dict]) -> list[str]:
    flags = []
    for index, turns in enumerate(players, 1):
        flags += ["--model", f"script:{write_script(tmp_path / f'player{index}.json', turns)}"]
    return flags


def test_the_verifier_selects_the_candidate_whose_change_passes_the_others_proofs(tmp_path):
    """Attempt 2 verifies on its own and changes fewer lines, but the right candidate's proven
    test fails on its tree: attempt 1 is selected. Attempt 3 does not verify."""
    repo = make_calc_repo(tmp_path)
    before = snapshot(repo)
    done = coder_run(
        "run", "--task", "make add() add", "--repo", str(repo), "--attempts", "3",
        "--jobs", "2", *scripts(tmp_path, RIGHT, WRONG_BUT_VERIFYING, FAILING),
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    [run_dir] = (repo / ".coder" / "runs").iterdir()
    result = json.loads((run_dir / "result.json").read_text())
    assert (result["status"], result["selected"]) == ("verified", 1)
    rows = {c["attempt"]: c for c in result["candidates"]}
    assert [rows[i]["status"] for i in (1, 2, 3)] == ["verified", "verified", "stopped"]
    assert rows[3]["stop_reason"] == "stopped_by_model"
    assert (rows[1]["proofs_passed"], rows[1]["proofs_total"]) == (1, 1)
    assert (rows[2]["proofs_passed"], rows[2]["proofs_total"]) == (0, 1)
    assert rows[2]["changed_lines"] < rows[1]["changed_lines"]
    assert [rows[i]["selected"] for i in (1, 2, 3)] == [True, False, False]
    assert all(rows[i]["model"].endswith(f"player{i}.json") for i in (1, 2, 3))
    assert result["tokens"]["input"] == sum(c["tokens"]["input"] for c in rows.values())
    run_id = result["run_id"]
    # the run's branch holds the winner; each attempt's branch is its own run id's
    a1 = json.loads((run_dir / "a1" / "result.json").read_text())
    assert a1["branch"] == f"coder/{run_id}-a1"
    assert git(repo, "rev-parse", f"coder/{run_id}").strip() == a1["final_commit"]
    assert "return a + b" in git(repo, "show", f"coder/{run_id}:calc.py")
    assert "abs(a)" in git(repo, "show", f"coder/{run_id}-a2:calc.py")
    assert (run_dir / "final.patch").read_text() == (run_dir / "a1" / "final.patch").read_text()
    assert snapshot(repo) == before
    assert not list((repo / ".git" / "coder-worktrees").glob("*"))
    events = read_trace(run_dir / "trace.jsonl")
    [exchange] = [e for e in events if e["type"] == "cross_proof" and e["tree_of"] == 2]
    assert exchange["failing"] == ["tests/test_calc.py::test_add_negative"]
    [selection] = [e for e in events if e["type"] == "selection"]
    assert selection["reasons"][-1].startswith("attempt 1 won: it breaks fewer")
    [started] = [e for e in events if e["type"] == "run_started"]
    spent = result["tokens"]["input"] + result["tokens"]["output"]
    assert 0.5 <= started["expected_tokens"] / spent <= 2, (started["expected_tokens"], spent)
    assert "attempt 1 of 3 selected" in done.stdout
    shown = subprocess.run(
        coder_argv("show", str(run_dir)), capture_output=True, text=True, env=coder_env()
    )
    assert shown.returncode == 0, shown.stderr
    assert "attempt 1 won: it breaks fewer other candidates' proofs" in shown.stdout
    assert "0/1" in shown.stdout and "1/1" in shown.stdout
    applied = subprocess.run(
        coder_argv("apply", str(run_dir)), capture_output=True, text=True, env=coder_env()
    )
    assert applied.returncode == 0, applied.stdout + applied.stderr
    assert "return a + b" in (repo / "calc.py").read_text()


def test_with_no_verified_attempt_the_run_is_not_verified_and_names_the_closest(tmp_path):
    repo = make_calc_repo(tmp_path)
    done = coder_run(
        "run", "--task", "make add() add", "--repo", str(repo), "--attempts", "2",
        *scripts(tmp_path, FAILING, HALF_WAY),
    )  # fmt: skip
    assert done.returncode == 1, done.stdout + done.stderr
    [run_dir] = (repo / ".coder" / "runs").iterdir()
    result = json.loads((run_dir / "result.json").read_text())
    assert (result["status"], result["selected"]) == ("stopped", None)
    assert result["stop_reason"] == "stopped_by_model"
    assert result["message"].startswith("no attempt verified; attempt 2 came closest")
    assert not any(c["selected"] for c in result["candidates"])
    a2 = json.loads((run_dir / "a2" / "result.json").read_text())
    assert git(repo, "rev-parse", f"coder/{result['run_id']}").strip() == a2["final_commit"]
    assert "attempt 2 came closest (1 step(s) verified" in done.stdout


def test_the_remaining_attempts_stop_once_two_verified_candidates_agree(tmp_path):
    """One at a time: attempts 1 and 2 both verify and pass each other's proven test, so
    attempt 3 never starts."""
    repo = make_calc_repo(tmp_path)
    done = coder_run(
        "run", "--task", "make add() add", "--repo", str(repo), "--attempts", "3",
        "--jobs", "1", *scripts(tmp_path, RIGHT, RIGHT, RIGHT),
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    [run_dir] = (repo / ".coder" / "runs").iterdir()
    result = json.loads((run_dir / "result.json").read_text())
    assert [c["status"] for c in result["candidates"]] == ["verified", "verified", "not_run"]
    assert result["selected"] == 1
    events = read_trace(run_dir / "trace.jsonl")
    assert [e["attempts"] for e in events if e["type"] == "attempts_agreed"] == [[1, 2]]
    assert not (run_dir / "a3").exists()
    assert git(repo, "branch", "--list", f"coder/{result['run_id']}-a3") == ""
    assert "attempts 1 and 2 agree" in done.stdout


def test_react_candidates_prove_by_the_tests_they_added_and_the_selection_runs_them(tmp_path):
    """React has no step proofs: a candidate's own added test that fails on the base and passes
    on its tree is its proof, run on the other candidate's tree. The wrong fix changes fewer
    lines, but breaks the right one's test, so the right one is selected. test_add, red at the
    base and untouched by either, is nobody's proof."""
    repo = make_calc_repo(tmp_path)
    done = coder_run(
        "run", "--task", "make add() add", "--repo", str(repo), "--mode", "react",
        "--attempts", "2", "--jobs", "1", *scripts(tmp_path, REACT_WRONG, REACT_RIGHT),
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    [run_dir] = (repo / ".coder" / "runs").iterdir()
    result = json.loads((run_dir / "result.json").read_text())
    assert (result["status"], result["selected"]) == ("verified", 2)
    rows = {c["attempt"]: c for c in result["candidates"]}
    assert [rows[i]["proven"] for i in (1, 2)] == [0, 1]
    assert (rows[1]["proofs_passed"], rows[1]["proofs_total"]) == (0, 1)
    assert rows[1]["changed_lines"] < rows[2]["changed_lines"]
    events = read_trace(run_dir / "trace.jsonl")
    own = {e["attempt"]: e for e in events if e["type"] == "own_proofs"}
    assert own[2]["proven"] == ["tests/test_calc.py::test_add_negative"]
    assert own[1]["proven"] == []
    [exchange] = [e for e in events if e["type"] == "cross_proof" and e["total"]]
    assert (exchange["proofs_of"], exchange["tree_of"]) == (2, 1)
    assert exchange["failing"] == ["tests/test_calc.py::test_add_negative"]
    assert "attempt 2 of 2 selected (it breaks fewer" in result["message"]
    # what the run said it expected to spend, before it began, against what it spent
    [started] = [e for e in events if e["type"] == "run_started"]
    spent = result["tokens"]["input"] + result["tokens"]["output"]
    assert 0.5 <= started["expected_tokens"] / spent <= 2, (started["expected_tokens"], spent)
    shown = subprocess.run(
        coder_argv("show", str(run_dir)), capture_output=True, text=True, env=coder_env()
    )
    assert shown.returncode == 0, shown.stderr
    assert "attempt 2's proofs are the tests it added (tests/test_calc.py)" in shown.stdout
    assert "attempt 2 won: it breaks fewer other candidates' proofs" in shown.stdout


def test_a_react_candidates_test_that_passes_on_the_base_too_is_no_proof(tmp_path):
    """The wrong candidate's new test passes on the base (and on its own tree) and fails on
    the right fix: taken for a proof it would make the right candidate look broken. It proves
    nothing, so it is not run against the others, and the smaller change, the right one, wins."""
    repo = make_calc_repo(tmp_path)
    done = coder_run(
        "run", "--task", "make add() add", "--repo", str(repo), "--mode", "react",
        "--attempts", "2", "--jobs", "1",
        *scripts(tmp_path, REACT_RIGHT_NO_TEST, REACT_WRONG_VACUOUS),
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    [run_dir] = (repo / ".coder" / "runs").iterdir()
    result = json.loads((run_dir / "result.json").read_text())
    assert result["selected"] == 1
    rows = {c["attempt"]: c for c in result["candidates"]}
    assert [rows[i]["proven"] for i in (1, 2)] == [0, 0]
    assert [(rows[i]["proofs_passed"], rows[i]["proofs_total"]) for i in (1, 2)] == [
        (0, 0),
        (0, 0),
    ]
    events = read_trace(run_dir / "trace.jsonl")
    assert not [e for e in events if e["type"] == "cross_proof" and e["total"]]
    [selection] = [e for e in events if e["type"] == "selection"]
    [note] = [r for r in selection["reasons"] if r.startswith("attempt 2's tests")]
    assert "test_add_zero: passed before the change too" in note
    assert selection["reasons"][-1].startswith("attempt 1 won: the proofs tie and its change")
