"""What a conversation is shown carries what is new: a restored attempt as the files now read
around the change (nothing to re-read), a revise request with the plan's notes once and the
invariant grammar only when the conversation has not had it, a retried step with the last
failure of only the checks its plan still has."""

from __future__ import annotations

import json

from calcrepo import FIX_ADD, FIX_STEP, plan
from fake_model_servers import anthropic_message, anthropic_tool_use, fake_anthropic

from coder.loop.runner import RunOptions, run_task
from coder.loop.state.trace import read_trace
from contracts.compiler import COMPILABLE_FORMS

WRONG_FIX = {
    "path": "calc.py",
    "old_text": "def add(a, b):\n    return a - b",
    "new_text": 'def add(a, b):\n    """Add two numbers."""\n    return a * b',
}
RIGHT_AFTER_RESTORE = {"path": "calc.py", "old_text": "return a * b", "new_text": "return a + b"}


def test_restore_attempt_answers_with_the_restored_files_around_the_change(calc_repo, script):
    outcome = run_task(
        RunOptions(
            repo=calc_repo,
            task="make add() add",
            model=script(
                plan(FIX_STEP),
                {"tool": "edit_file", "input": WRONG_FIX},
                {"tool": "finish_step", "input": {"summary": "documented add"}},
                plan(FIX_STEP),
                {"tool": "restore_attempt", "input": {}},
                {"tool": "edit_file", "input": RIGHT_AFTER_RESTORE},
                {"tool": "finish_step", "input": {"summary": "fixed add"}},
            ),
        )
    )
    assert outcome.result.status == "verified", outcome.result.message
    events = read_trace(outcome.run_dir / "trace.jsonl")
    restored = next(
        e for e in events if e["type"] == "observation" and e["tool"] == "restore_attempt"
    )
    assert restored["text"] == (
        "restored from the attempt of fix-add: calc.py (modified)\n"
        "calc.py now reads, around the change:\n"
        "    1| def add(a, b):\n"
        '    2|     """Add two numbers."""\n'
        "    3|     return a * b\n"
        "    4| \n"
        "    5| \n"
        "    6| def scale(value, factor=2):"
    )
    reads = [e for e in events if e["type"] == "action" and e["tool"] == "read_file"]
    assert reads == []


def _sent(calc_repo, monkeypatch, calls):
    """Run contract mode with a model that makes `calls` in order; every request it was sent."""
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-new-test")
    replies = [anthropic_message(tool_calls=[anthropic_tool_use(t, a)]) for t, a in calls]
    with fake_anthropic(replies) as server:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.base_url)
        result = run_task(
            RunOptions(repo=calc_repo, task="make add() add", model="anthropic:claude-test")
        ).result
    return result, server.bodies()


def _text(body) -> str:
    return json.dumps(body["messages"], ensure_ascii=False)


def _last_result(body) -> str:
    block = next(b for b in body["messages"][-1]["content"] if b["type"] == "tool_result")
    return block["content"]


NOTES = "NOTES-MARK: add() subtracts at calc.py:2;\nscale() is fine, leave it."
UNCOMPILED = "the code reads nicely"
FORMS_HEAD = "Invariant strings that compile"


def _plan(*invariants, notes=NOTES):
    step = {**FIX_STEP, "intendedModification": {"files": ["calc.py"], "invariants": invariants}}
    return {"goal": "add() adds", "notes": notes, "steps": [step]}


def test_a_revise_request_carries_the_notes_once_and_the_grammar_only_when_new(
    calc_repo, monkeypatch
):
    tests = "All unit tests in tests/test_calc.py must exit code 0"
    broken = {**FIX_ADD, "new_text": "return (a, b)"}
    result, sent = _sent(
        calc_repo,
        monkeypatch,
        [
            ("submit_plan", _plan(UNCOMPILED)),  # 0: refused in the plan phase
            ("submit_plan", _plan(tests)),  # 1
            ("edit_file", broken),  # 2: the step fails
            ("finish_step", {"summary": "tried"}),  # 3
            ("submit_plan", _plan(tests, UNCOMPILED)),  # 4: the revision, refused
            ("submit_plan", _plan(tests, UNCOMPILED + " again")),  # 5: refused again
            ("submit_plan", _plan(tests)),  # 6
            ("edit_file", FIX_ADD),  # 7
            ("finish_step", {"summary": "fixed"}),  # 8
        ],
    )
    assert result.status == "verified", result.message
    forms = COMPILABLE_FORMS[0]
    assert _text(sent[0]).count(forms) == 1, "the plan briefing has the grammar"
    planned_refusal = _last_result(sent[1])
    assert "no rule compiles" in planned_refusal and forms not in planned_refusal
    assert "(compilable forms: see above)" in planned_refusal
    revise = _text(sent[4])
    assert "Phase: REVISE" in revise
    assert revise.count("NOTES-MARK") == 1, "the notes once, not again inside the plan"
    assert forms not in revise and FORMS_HEAD not in revise
    first, second = _last_result(sent[5]), _last_result(sent[6])
    assert first.count(forms) == 1 and FORMS_HEAD in first, "new to this conversation"
    assert forms not in second and "(compilable forms: see above)" in second


def test_a_retried_step_is_shown_the_failures_only_of_checks_its_plan_still_has(
    calc_repo, monkeypatch
):
    tests = {"kind": "tests_pass", "paths": ["tests/test_calc.py"]}
    never = {"kind": "command_succeeds", "command": "grep -q NEVER-THERE calc.py"}
    result, sent = _sent(
        calc_repo,
        monkeypatch,
        [
            ("submit_plan", _plan(tests, never)),
            ("edit_file", FIX_ADD),
            ("finish_step", {"summary": "fixed add"}),  # command_succeeds fails
            ("submit_plan", _plan(tests)),  # the revision drops it
            ("restore_attempt", {}),
            ("finish_step", {"summary": "fixed add"}),
        ],
    )
    assert result.status == "verified", result.message
    revision, retry = _text(sent[3]), _text(sent[4])
    assert "[failed] command_succeeds" in revision, "the revision is told everything"
    assert "Last failure of this step" in retry
    assert "command_succeeds" not in retry and "NEVER-THERE" not in retry
    assert "[passed] tests_pass" in retry
    assert "1 check(s) of invariants the revised plan no longer has are left out" in retry
    assert "What the failed attempt did" in retry
