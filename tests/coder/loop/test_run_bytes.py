"""End to end: odd bytes in files and in file names; a run commits exactly what it meant to."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from calcrepo import PYPROJECT, step
from gitrepo import git, make_repo

from coder.loop.runner import RunOptions, run_task
from coder.loop.state.trace import read_trace

PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\r\n\r"
LEGACY = "# café\r\nname = 'Zoë'\r\nother = 1\r\n".encode("latin-1")


def _show(repo: Path, rev: str) -> bytes:
    return subprocess.run(["git", "show", rev], cwd=repo, capture_output=True, check=True).stdout


def test_latin1_crlf_and_binary_files_survive_a_verified_run(tmp_path, script):
    repo = make_repo(tmp_path / "repo", {"pyproject.toml": PYPROJECT, "README.md": "x\n"})
    (repo / "legacy.txt").write_bytes(LEGACY)
    (repo / "logo.png").write_bytes(PNG)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "odd files")
    files = ["legacy.txt", "logo.png"]
    model = script(
        {"tool": "submit_plan", "input": {"goal": "g", "steps": [step("s", files, [])]}},
        {"tool": "read_file", "input": {"path": "legacy.txt"}},
        {"tool": "read_file", "input": {"path": "logo.png"}},
        {
            "tool": "edit_file",
            "input": {"path": "logo.png", "old_text": "IHDR", "new_text": "IHDR"},
        },
        {
            "tool": "edit_file",
            "input": {"path": "legacy.txt", "old_text": "other = 1", "new_text": "bad = '\udcff'"},
        },
        {
            "tool": "edit_file",
            "input": {"path": "legacy.txt", "old_text": "'Zoë'", "new_text": "'Zoë'\nnew = 'à'"},
        },
        {"tool": "finish_step", "input": {"summary": "done"}},
    )
    outcome = run_task(RunOptions(repo=repo, task="t", model=model, test_cmd="true"))
    result = outcome.result
    assert (result.status, result.stop_reason) == ("verified", "completed"), result.message
    assert _show(repo, f"{result.branch}:logo.png") == PNG
    expected = "# café\r\nname = 'Zoë'\r\nnew = 'à'\r\nother = 1\r\n".encode("latin-1")
    assert _show(repo, f"{result.branch}:legacy.txt") == expected
    events = read_trace(outcome.run_dir / "trace.jsonl")
    answers = [e for e in events if e["type"] == "observation" and e.get("tool") == "edit_file"]
    assert [a["status"] for a in answers] == ["error", "error", "ok"]
    assert "binary" in answers[0]["text"] and "latin-1" in answers[1]["text"]
    reads = [e for e in events if e["type"] == "observation" and e.get("tool") == "read_file"]
    assert "café" in reads[0]["text"] and "binary" in reads[1]["text"]
    assert json.loads((outcome.run_dir / "result.json").read_text())["status"] == "verified"
    assert (outcome.run_dir / "final.patch").read_bytes().count(b"new = '\xe0'\r\n") == 1


def test_a_step_touching_a_file_whose_name_holds_a_newline_rolls_back_and_the_run_goes_on(
    tmp_path, script
):
    odd = "notes\nabout.txt"
    repo = make_repo(tmp_path / "repo", {"pyproject.toml": PYPROJECT, "a.txt": "a\n", odd: "n\n"})
    touch_odd = {"tool": "run", "input": {"command": "printf 'drift\\n' > notes*"}}
    edit_a = {"tool": "edit_file", "input": {"path": "a.txt", "old_text": "a", "new_text": "b"}}
    a_step = step("edit-a", ["a.txt"], [])
    model = script(
        {"tool": "submit_plan", "input": {"goal": "g", "steps": [a_step]}},
        edit_a,
        touch_odd,
        {"tool": "finish_step", "input": {"summary": "also touched notes"}},
        {"tool": "submit_plan", "input": {"goal": "g", "steps": [a_step]}},
        edit_a,
        {"tool": "finish_step", "input": {"summary": "a only"}},
    )
    outcome = run_task(RunOptions(repo=repo, task="t", model=model, test_cmd="true"))
    result = outcome.result
    assert (result.status, result.rollbacks) == ("verified", 1), result.message
    events = read_trace(outcome.run_dir / "trace.jsonl")
    rollback = next(e for e in events if e["type"] == "rollback")
    assert odd in rollback["paths"] and rollback["complete"]
    assert _show(repo, f"{result.branch}:{odd}") == b"n\n"
    assert _show(repo, f"{result.branch}:a.txt") == b"b\n"


def test_lone_surrogates_in_the_task_and_a_stop_reason_do_not_break_the_outputs(calc_repo, script):
    outcome = run_task(
        RunOptions(
            repo=calc_repo,
            task="fix caf\udce9",  # what a non-UTF-8 argv decodes to
            model=script({"tool": "stop", "input": {"reason": "cannot \udcff go on"}}),
        )
    )
    result = json.loads((outcome.run_dir / "result.json").read_text(encoding="utf-8"))
    assert (result["task"], result["message"]) == ("fix caf\ufffd", "cannot \ufffd go on")
    assert read_trace(outcome.run_dir / "trace.jsonl")[-1]["type"] == "run_finished"
