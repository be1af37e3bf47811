"""A rolled-back attempt lives outside the user's repository: no ref, no object in its store,
nothing a later run's commands can read back; a file in it that held a secret the harness
holds is not kept, and restore_attempt says so. Real runs, real git, real bubblewrap."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from calcrepo import FIX_ADD, plan, step

from coder.loop.runner import RunOptions, run_task
from coder.loop.state.trace import read_trace

KEY = "sk-ant-TESTKEY-0123456789abcdef"
FILES = ["calc.py", "notes.txt", "scratch.md"]
WRITE_KEY = {"tool": "write_file", "input": {"path": "notes.txt", "content": f"token {KEY}\n"}}
WRITE_SCRATCH = {
    "tool": "write_file",
    "input": {"path": "scratch.md", "content": "SCRATCH-MARKER only the attempt had\n"},
}
LOOK = (
    "git cat-file --batch-all-objects --batch | grep -a -c -e SCRATCH-MARKER -e TESTKEY "
    "-e YEKTSET; git for-each-ref --format='%(refname)'"
)


def _objects(repo: Path) -> bytes:
    return subprocess.run(
        ["git", "cat-file", "--batch-all-objects", "--batch"],
        cwd=repo,
        capture_output=True,
        check=True,
    ).stdout


def _observations(run_dir: Path, tool: str) -> list[dict]:
    events = read_trace(run_dir / "trace.jsonl")
    return [e for e in events if e["type"] == "observation" and e.get("tool") == tool]


def test_a_rolled_back_attempt_leaves_nothing_in_the_repository(
    calc_repo: Path, script, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    fix = step("fix-add", FILES, ["tests in tests/test_calc.py pass"])
    first = run_task(
        RunOptions(
            repo=calc_repo,
            task="make add() add",
            model=script(
                plan(fix),
                WRITE_KEY,
                WRITE_SCRATCH,
                {"tool": "edit_file", "input": FIX_ADD},
                {"tool": "finish_step", "input": {"summary": "fixed, noted the token"}},
                plan(fix),
                {"tool": "restore_attempt", "input": {"paths": ["calc.py", "notes.txt"]}},
                {"tool": "finish_step", "input": {"summary": "fixed"}},
            ),
        )
    )
    assert first.result.status == "verified", first.result.message
    [restored] = _observations(first.run_dir, "restore_attempt")
    assert restored["text"].startswith("restored from the attempt of fix-add: calc.py (modified)")
    assert (
        "not restored, not kept from the attempt: notes.txt (it held a secret the harness holds)"
        in restored["text"]
    )
    refs = subprocess.run(
        ["git", "for-each-ref", "--format=%(refname)"], cwd=calc_repo, capture_output=True
    ).stdout.decode()
    assert "refs/coder/attempts" not in refs
    stored = _objects(calc_repo)
    assert b"SCRATCH-MARKER" not in stored
    assert b"TESTKEY" not in stored and b"YEKTSET" not in stored
    assert not list((calc_repo / ".git" / "coder-worktrees").glob("*.attempts"))

    later = run_task(
        RunOptions(
            repo=calc_repo,
            task="look around",
            model=script(
                plan(step("look", ["calc.py"], ["tests in tests/test_calc.py pass"])),
                {"tool": "run", "input": {"command": LOOK}},
                {"tool": "stop", "input": {"reason": "looked"}},
            ),
        )
    )
    [looked] = _observations(later.run_dir, "run")
    lines = looked["text"].splitlines()
    assert "0" in lines, looked["text"]
    assert not any("refs/coder/attempts" in line for line in lines), looked["text"]
