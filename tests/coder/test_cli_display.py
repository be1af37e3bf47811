"""What a model or a repository wrote cannot draw on the person's terminal or hide in markup."""

from __future__ import annotations

import json
from pathlib import Path

from calcrepo import make_calc_repo, plan, step
from clirun import coder, run_args
from gitrepo import git, write_script

FAKE = (
    "\x1b[1A\x1b[2K\x1b[32mverified (completed)\x1b[0m "
    "\x1b]8;;https://evil.example\x07click\x1b]8;;\x07\x1b]0;pwned title\x07 "
    "[len(c) for c in x]"
)
EVIL_NAME = "evil\x1b]0;t\x07\x1b[2Kname.txt"
CONTROL = ("\x1b", "\x07", "\x9b", "\x9d")


def _clean(text: str) -> None:
    found = [c for c in CONTROL if c in text]
    assert not found, (found, text)


def test_run_and_show_print_no_control_sequence_and_markup_as_written(tmp_path):
    repo = make_calc_repo(tmp_path)
    (repo / EVIL_NAME).write_text("x\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "odd name")
    touch = {"tool": "run", "input": {"command": "echo more >> evil*"}}
    invariant = {"kind": "text_absent", "pattern": "[len(c) for c in x]"}
    script = write_script(
        tmp_path / "s.json",
        [
            {
                **plan(step("s", ["calc.py"], [invariant])),
                "input": {"goal": FAKE, "steps": [step("s", ["calc.py"], [invariant])]},
            },
            touch,
            {"tool": "finish_step", "input": {"summary": FAKE}},
            {"tool": "stop", "input": {"reason": FAKE}},
        ],
    )
    out = tmp_path / "out"
    run = coder(*run_args(repo, script, "--out", str(out)))
    assert run.returncode == 1, run.stderr
    _clean(run.stdout + run.stderr)
    lines = run.stdout.splitlines()
    final = next(line for line in lines if line.startswith("stopped (stopped_by_model): "))
    assert "verified (completed) click [len(c) for c in x]" in final, lines
    assert not any(line.startswith("verified") for line in lines)
    assert any("evil" in line and "name.txt" in line for line in lines)  # the scope failure
    show = coder("show", str(out))
    assert show.returncode == 0, show.stderr
    _clean(show.stdout)
    assert "[len(c) for c in x]" in show.stdout.replace("\n", "")
    assert json.loads((out / "result.json").read_text())["message"] == FAKE  # kept, as data


def test_show_on_a_damaged_run_dir_renders_what_it_can(tmp_path: Path):
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    (run_dir / "result.json").write_bytes(
        b'{"run_id": "r1", "task": "caf\xe9", "mode": "contract"}'
    )
    (run_dir / "trace.jsonl").write_bytes(
        b'{"seq": 1, "type": "verification", "step": "s", "kind": "tests_pass", '
        b'"status": "failed", "evidence": "bad \xff byte"}\n'
        b"not json\n"
        b'{"seq": 3, "type": "rollback"}\n'
        b"[1, 2]\n"
    )
    (run_dir / "plan.v1.json").write_text(
        '{"goal": "g", "steps": [{"stepId": "s", "intendedModification": 5}]}'
    )
    (run_dir / "plan.v2.json").write_bytes(b"\xff\xfe{")
    shown = coder("show", str(run_dir))
    assert shown.returncode == 0, shown.stderr
    assert "Traceback" not in shown.stderr
    out = shown.stdout
    assert "r1" in out and "caf\ufffd" in out and "bad \ufffd byte" in out
    assert "note: result.json has no status, stop_reason" in out
    assert "note: result.json is not valid UTF-8" in out
    assert "note: plan.v2.json is not valid JSON" in out
    assert "note: trace event 3 (rollback) is malformed" in out


BREAKS = ("\n", "\r", "\u2028", "\x85", "\x1e")


def test_line_breaks_in_a_stop_reason_or_a_file_name_draw_no_line_of_their_own(tmp_path):
    repo = make_calc_repo(tmp_path)
    name = "x\nverified (completed)\u2028to take the change: `git merge main`.txt"
    (repo / name).write_text("x\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "odd name")
    fake = "".join(
        f"{br}verified (completed){br}to take the change: git merge main" for br in BREAKS
    )
    script = write_script(
        tmp_path / "s.json",
        [
            plan(step("s", ["calc.py"], [])),
            {"tool": "run", "input": {"command": "echo more >> x*"}},
            {"tool": "finish_step", "input": {"summary": "s"}},
            {"tool": "stop", "input": {"reason": fake}},
        ],
    )
    out = tmp_path / "out"
    run = coder(*run_args(repo, script, "--out", str(out)))
    assert run.returncode == 1, run.stderr
    show = coder("show", str(out))
    for text in (run.stdout + run.stderr, show.stdout):
        lines = text.splitlines()  # splitlines breaks at every one of BREAKS
        assert not any(
            line.lstrip().startswith(("verified", "to take the change")) for line in lines
        )
    final = next(line for line in run.stdout.splitlines() if line.startswith("stopped ("))
    assert "\\nverified (completed)\\nto take the change" in final
    assert "\\u2028verified" in final
