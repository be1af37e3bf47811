"""What one step may commit is bounded in total (--max-change), and result.json never holds a
patch of any size inline. Sparse files: a bound crossed without writing the bytes."""

from __future__ import annotations

import json
import subprocess

from calcrepo import FIX_ADD, make_calc_repo, plan, step
from clirun import coder, run_args
from gitrepo import write_script

BIG = {
    "tool": "run",
    "input": {"command": "mkdir -p data && truncate -s 600K data/a.bin data/b.bin"},
}


def _trace(out):
    return [json.loads(line) for line in (out / "trace.jsonl").read_text().splitlines()]


def test_a_step_over_the_change_bound_is_refused_and_says_which_bound(tmp_path):
    repo = make_calc_repo(tmp_path)
    big_step = step(
        "fix-add", ["calc.py", "data/**"], ["All unit tests in tests/test_calc.py must exit code 0"]
    )
    script = write_script(
        tmp_path / "s.json",
        [
            plan(big_step),
            BIG,
            {"tool": "edit_file", "input": FIX_ADD},
            {"tool": "finish_step", "input": {"summary": "fixed, with data"}},
        ],
    )
    out = tmp_path / "out"
    proc = coder(*run_args(repo, script, "--max-change", "1M", "--no-revise", "--out", str(out)))
    assert proc.returncode == 1 and "Traceback" not in proc.stderr, proc.stderr
    checks = [
        e for e in _trace(out) if e.get("type") == "verification" or e.get("kind") == "change_size"
    ]
    refused = [e for e in checks if e.get("kind") == "change_size"]
    assert refused and refused[0]["status"] == "failed", checks
    evidence = refused[0]["evidence"]
    assert "bytes in 3 files" in evidence and "data/a.bin (614400 bytes)" in evidence, evidence
    assert "over the bound of 1048576 bytes one step may commit" in evidence
    result = json.loads((out / "result.json").read_text())
    branch = result["branch"]
    listed = subprocess.run(
        ["git", "ls-tree", "-r", "--name-only", branch], cwd=repo, capture_output=True, text=True
    ).stdout
    assert "data/a.bin" not in listed


def test_react_mode_discards_a_change_over_the_bound_with_an_observation(tmp_path):
    repo = make_calc_repo(tmp_path)
    script = write_script(
        tmp_path / "s.json",
        [BIG, {"tool": "final_answer", "input": {"summary": "done"}}],
    )
    out = tmp_path / "out"
    proc = coder(
        *run_args(repo, script, "--mode", "react", "--max-change", "1M", "--out", str(out))
    )
    assert proc.returncode == 1 and "Traceback" not in proc.stderr, proc.stderr
    notes = [
        e["text"] for e in _trace(out) if e.get("type") == "observation" and e.get("tool") is None
    ]
    assert any("over the bound of 1048576 bytes one step may commit" in n for n in notes), notes
    assert not (out / "final.patch").read_bytes()


def test_result_json_points_at_final_patch_instead_of_holding_a_large_one(tmp_path):
    from coder.loop.run.outputs import inline_patch

    patch = tmp_path / "final.patch"
    patch.write_bytes(b"diff --git a/x b/x\n" + b"+" * 5000 + b"\n")
    assert inline_patch(patch, cap=1000) == (
        f"(the patch is {patch.stat().st_size} bytes, over the 1000 shown here: see final.patch)\n"
    )
    assert inline_patch(patch, cap=10_000) == patch.read_text()
