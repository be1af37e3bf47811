"""Evidence names its object: a signature or API check says which definition it compared
(file and line), and a name defined twice in one file says which one counted (the last, the
one that takes effect at import)."""

from __future__ import annotations

from calcrepo import FIX_ADD, plan, step
from gitrepo import git

from coder.loop.runner import RunOptions, run_task
from coder.loop.state.trace import read_trace

FINISH = {"tool": "finish_step", "input": {"summary": "done"}}
TWICE = """\
def add(a, b):
    return a - b


def scale(value, factor=2):
    return value * factor


def add(a, b):
    return a - b
"""


def checks_of(repo, model) -> dict:
    outcome = run_task(RunOptions(repo=repo, task="t", model=model, max_revisions=0))
    events = read_trace(outcome.run_dir / "trace.jsonl")
    return {e["kind"]: e for e in events if e["type"] == "verification" and e.get("step")}


def test_a_signature_check_names_the_file_and_line_it_compared(calc_repo, script):
    checks = checks_of(
        calc_repo,
        script(
            plan(
                step(
                    "fix",
                    ["calc.py"],
                    [
                        {"kind": "signature_unchanged", "symbol": "add"},
                        {"kind": "signature_compatible", "symbol": "scale", "file": "calc.py"},
                        {"kind": "public_api_unchanged", "file": "calc.py"},
                    ],
                )
            ),
            {"tool": "edit_file", "input": FIX_ADD},
            FINISH,
        ),
    )
    assert checks["signature_unchanged"]["evidence"] == (
        "add in calc.py (line 1 at the checkpoint, line 1 now): add(a, b)"
    )
    assert checks["signature_compatible"]["evidence"].startswith(
        "scale in calc.py (line 5 at the checkpoint, line 5 now): "
    )
    assert checks["public_api_unchanged"]["evidence"] == (
        "calc.py: unchanged, 2 public symbol(s): add (line 1), scale (line 5)"
    )


def test_a_name_defined_twice_says_which_definition_was_compared(calc_repo, script):
    (calc_repo / "calc.py").write_text(TWICE)
    git(calc_repo, "commit", "-qam", "add defined twice")
    widen = {
        "path": "calc.py",
        "old_text": "def add(a, b):\n    return a - b\n",
        "new_text": "def add(a, b, c):\n    return a + b + c\n",
    }
    last_only = {**widen, "old_text": "\n\ndef add(a, b):\n    return a - b\n"}
    widen_last = {**last_only, "new_text": "\n\ndef add(a, b, c):\n    return a + b + c\n"}
    checks = checks_of(
        calc_repo,
        script(
            plan(step("widen", ["calc.py"], [{"kind": "signature_unchanged", "symbol": "add"}])),
            {"tool": "edit_file", "input": widen_last},
            FINISH,
        ),
    )
    evidence = checks["signature_unchanged"]["evidence"]
    assert checks["signature_unchanged"]["status"] == "failed"
    assert "add in calc.py (line 9 at the checkpoint, line 9 now) changed" in evidence
    assert (
        "add is defined 2 times in calc.py at the checkpoint (lines 1, 9); compared line 9, "
        "the definition that takes effect" in evidence
    )
