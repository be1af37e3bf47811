"""End to end: the contract loop on real temporary git repositories with the scripted model."""

from __future__ import annotations

import json
from pathlib import Path

from calcrepo import FIX_ADD, FIX_STEP, plan, step
from gitrepo import git, snapshot

from coder.loop.runner import RunOptions, run_task
from coder.loop.state.trace import read_trace


def run(repo: Path, model: str, **kw) -> tuple:
    outcome = run_task(RunOptions(repo=repo, task="make add() add", model=model, **kw))
    return outcome.result, outcome.run_dir, read_trace(outcome.run_dir / "trace.jsonl")


def test_happy_path_verifies_commits_and_leaves_user_tree_alone(calc_repo, script):
    before = snapshot(calc_repo)
    result, run_dir, events = run(
        calc_repo,
        script(
            plan(FIX_STEP),
            {"tool": "edit_file", "input": FIX_ADD},
            {"tool": "finish_step", "input": {"summary": "fixed"}},
        ),
    )
    assert (result.status, result.stop_reason) == ("verified", "completed")
    assert [s.status for s in result.steps] == ["verified"]
    assert {i.kind: i.status for i in result.steps[0].invariants} == {
        "files_within_scope": "passed",
        "tests_pass": "passed",
        "signature_unchanged": "passed",
    }
    assert result.plan_versions == 1 and result.rollbacks == 0 and result.model_turns == 3
    assert "return a + b" in result.patch
    assert (run_dir / "final.patch").read_text() == result.patch
    assert json.loads((run_dir / "plan.v1.json").read_text())["steps"][0]["stepId"] == "fix-add"
    assert git(calc_repo, "show", f"{result.branch}:calc.py").count("return a + b") == 1
    assert snapshot(calc_repo) == before
    assert not list((calc_repo / ".git" / "coder-worktrees").glob("*"))
    types = [e["type"] for e in events]
    for expected in (
        "run_started",
        "model_call",
        "decision",
        "action",
        "observation",
        "plan_submitted",
        "step_started",
        "checkpoint",
        "verification",
        "step_verified",
        "run_finished",
    ):
        assert expected in types
    assert [e["seq"] for e in events] == list(range(1, len(events) + 1))


def test_a_step_commit_reads_as_history(calc_repo, script):
    """A fix can be merged as it is, so its commit says what the step was, what was done and
    what was checked; a step without a title is named by its id."""
    titled = {**FIX_STEP, "title": "Make add() add"}
    result, _, _ = run(
        calc_repo,
        script(
            plan(titled),
            {"tool": "edit_file", "input": FIX_ADD},
            {"tool": "finish_step", "input": {"summary": "add() returned a - b; now a + b."}},
        ),
    )
    assert result.status == "verified"
    message = git(calc_repo, "log", "-1", "--format=%B", result.branch).strip()
    subject, summary, trailers = message.split("\n\n")
    assert subject == "coder: Make add() add"
    assert summary == "add() returned a - b; now a + b."
    assert trailers.splitlines() == [
        "Coder-Step: fix-add",
        "Coder-Verified: files_within_scope, tests_pass, signature_unchanged",
    ]


def test_broken_signature_is_rolled_back_and_revised(calc_repo, script):
    broken = {
        "path": "calc.py",
        "old_text": "def add(a, b):\n    return a - b",
        "new_text": "def add(x, y):\n    return x + y",
    }
    result, run_dir, events = run(
        calc_repo,
        script(
            plan(FIX_STEP),
            {"tool": "edit_file", "input": broken},
            {"tool": "finish_step", "input": {"summary": "renamed and fixed"}},
            plan(FIX_STEP),
            {"tool": "edit_file", "input": FIX_ADD},
            {"tool": "finish_step", "input": {"summary": "fixed"}},
        ),
    )
    assert result.status == "verified"
    assert (result.rollbacks, result.plan_versions, result.revisions) == (1, 2, 1)
    assert result.steps[0].attempts == 2
    failed = [e for e in events if e["type"] == "verification" and e["status"] == "failed"]
    assert [e["kind"] for e in failed] == ["signature_unchanged"]
    assert "add(x, y)" in failed[0]["evidence"]
    rollback = next(e for e in events if e["type"] == "rollback")
    assert rollback["complete"] is True and rollback["paths"] == ["calc.py"]
    assert (run_dir / "plan.v2.json").is_file()
    assert "def add(a, b)" in git(calc_repo, "show", f"{result.branch}:calc.py")


def test_edit_outside_step_files_is_denied(calc_repo, script):
    result, _, events = run(
        calc_repo,
        script(
            plan(FIX_STEP),
            {
                "tool": "edit_file",
                "input": {"path": "README.md", "old_text": "calc", "new_text": "CALC"},
            },
            {"tool": "edit_file", "input": FIX_ADD},
            {"tool": "finish_step", "input": {"summary": "fixed"}},
        ),
    )
    denied = [e for e in events if e["type"] == "observation" and e["status"] == "denied"]
    assert len(denied) == 1 and "calc.py" in denied[0]["text"]
    assert result.status == "verified"
    assert git(calc_repo, "show", f"{result.branch}:README.md") == "calc\n"


def test_shell_edit_outside_scope_is_caught_from_the_diff(calc_repo, script):
    result, _, events = run(
        calc_repo,
        script(
            plan(FIX_STEP),
            {
                "calls": [
                    {"tool": "edit_file", "input": FIX_ADD},
                    {"tool": "run", "input": {"command": "echo drift >> README.md"}},
                ]
            },
            {"tool": "finish_step", "input": {"summary": "fixed"}},
            plan(FIX_STEP),
            {"tool": "edit_file", "input": FIX_ADD},
            {"tool": "finish_step", "input": {"summary": "fixed, no drift"}},
        ),
    )
    scope = [e for e in events if e["type"] == "verification" and e["kind"] == "files_within_scope"]
    assert [e["status"] for e in scope] == ["failed", "passed"]
    assert "README.md" in scope[0]["evidence"]
    assert result.status == "verified" and result.rollbacks == 1
    assert git(calc_repo, "show", f"{result.branch}:README.md") == "calc\n"


def test_text_turn_becomes_parse_error_and_the_run_goes_on(calc_repo, script):
    result, _, events = run(
        calc_repo,
        script(
            {"text": "I think I should plan first."},
            plan(FIX_STEP),
            {"tool": "edit_file", "input": FIX_ADD},
            {"tool": "finish_step", "input": {"summary": "fixed"}},
        ),
    )
    assert result.status == "verified" and result.model_turns == 4
    parse = [e for e in events if e["type"] == "decision" and e["decision"] == "parse_error"]
    assert len(parse) == 1
    feedback = next(e for e in events if e["type"] == "observation" and e["tool"] is None)
    assert "submit_plan" in feedback["text"] and "no tool call" in feedback["text"]


def test_script_exhausted_is_model_error_and_repo_unchanged(calc_repo, script):
    before = snapshot(calc_repo)
    result, _, _ = run(calc_repo, script(plan(FIX_STEP), {"tool": "edit_file", "input": FIX_ADD}))
    assert (result.status, result.stop_reason) == ("failed", "model_error")
    assert snapshot(calc_repo) == before
    assert git(calc_repo, "rev-parse", result.branch).strip() == result.base_commit


def test_max_turns_stops_with_turn_budget(calc_repo, script):
    result, _, _ = run(
        calc_repo,
        script(
            plan(FIX_STEP),
            {"tool": "read_file", "input": {"path": "calc.py"}},
            {"tool": "read_file", "input": {"path": "README.md"}},
            {"tool": "edit_file", "input": FIX_ADD},
        ),
        max_turns=2,
    )
    assert result.stop_reason == "turn_budget" and result.model_turns == 2


def test_invalid_plan_is_rejected_then_a_valid_one_accepted(calc_repo, script):
    bad = plan(step("fix-add", ["/etc/passwd"], ["make it nice"], deps=["nope"]))
    result, _, events = run(
        calc_repo,
        script(
            bad,
            plan(FIX_STEP),
            {"tool": "edit_file", "input": FIX_ADD},
            {"tool": "finish_step", "input": {"summary": "fixed"}},
        ),
    )
    rejected = [e for e in events if e["type"] == "plan_rejected"]
    assert len(rejected) == 1 and len(rejected[0]["problems"]) >= 3
    assert result.status == "verified" and result.plan_versions == 1


def test_ask_user_without_terminal_needs_input(calc_repo, script):
    result, _, _ = run(calc_repo, script({"tool": "ask_user", "input": {"question": "Which add?"}}))
    assert (result.status, result.stop_reason) == ("stopped", "needs_input")


def test_hanging_test_command_evidence_says_timed_out(calc_repo, script):
    hang = {"path": "calc.py", "old_text": "return a - b", "new_text": "while True:\n        pass"}
    result, _, events = run(
        calc_repo,
        script(
            plan(FIX_STEP),
            {"tool": "edit_file", "input": hang},
            {"tool": "finish_step", "input": {"summary": "oops"}},
        ),
        cmd_timeout_s=6,  # the baseline must finish under load; the hang never does
        max_revisions=0,
    )
    tests = next(e for e in events if e["type"] == "verification" and e["kind"] == "tests_pass")
    assert tests["status"] == "failed" and "timed out" in tests["evidence"]
    assert result.stop_reason == "revisions_exhausted"


def test_breaking_a_test_that_passed_at_base_fails_the_final_check(calc_repo, script):
    only_add = step(
        "fix-add", ["calc.py"], [{"kind": "tests_pass", "paths": ["tests/test_calc.py::test_add"]}]
    )
    breaks_scale = {
        "path": "calc.py",
        "old_text": "return value * factor",
        "new_text": "return value",
    }
    result, _, _ = run(
        calc_repo,
        script(
            plan(only_add),
            {
                "calls": [
                    {"tool": "edit_file", "input": FIX_ADD},
                    {"tool": "edit_file", "input": breaks_scale},
                ]
            },
            {"tool": "finish_step", "input": {"summary": "fixed"}},
        ),
        max_revisions=0,  # a failed final check would otherwise get a revision
    )
    assert result.stop_reason == "final_check_failed" and result.status == "failed"
    assert result.final_check is not None
    assert result.final_check.new_failures == ["tests/test_calc.py::test_scale"]


def test_api_key_never_reaches_commands_or_trace(calc_repo, script, monkeypatch):
    secret = "sk-ant-test-0123456789abcdef"
    monkeypatch.setenv("ANTHROPIC_API_KEY", secret)
    monkeypatch.setenv("GITHUB_TOKEN", secret + "-gh")
    result, run_dir, events = run(
        calc_repo,
        script(
            plan(
                step(
                    "probe",
                    ["calc.py"],
                    [{"kind": "command_succeeds", "command": "env; cat /proc/self/environ"}],
                )
            ),
            {
                "tool": "run",
                "input": {"command": "env; echo $ANTHROPIC_API_KEY; cat /proc/1/environ"},
            },
            {"tool": "finish_step", "input": {"summary": "looked"}},
        ),
    )
    outputs = [e for e in events if e["type"] in ("observation", "verification")]
    assert outputs
    for path in run_dir.iterdir():
        assert secret not in path.read_text(errors="replace")


FIX_SCRIPT = (
    plan(FIX_STEP),
    {"tool": "edit_file", "input": FIX_ADD},
    {"tool": "finish_step", "input": {"summary": "fixed"}},
)


def test_plan_and_react_baselines_share_tools_and_outputs(calc_repo, script):
    planned, run_dir, _ = run(calc_repo, script(*FIX_SCRIPT), mode="plan")
    assert planned.status == "verified" and planned.steps[0].status == "done_unverified"
    assert planned.steps[0].invariants == []
    reacted, _, _ = run(
        calc_repo,
        script(
            {"tool": "edit_file", "input": FIX_ADD},
            {"tool": "final_answer", "input": {"summary": "fixed"}},
        ),
        mode="react",
    )
    assert reacted.status == "verified" and reacted.mode == "react"
    assert "return a + b" in reacted.patch


def test_same_failing_call_is_refused_the_third_time_then_no_progress(calc_repo, script):
    miss = {"tool": "edit_file", "input": {"path": "calc.py", "old_text": "nope", "new_text": "x"}}
    result, _, events = run(calc_repo, script(plan(FIX_STEP), *[miss] * 12))
    texts = [e["text"] for e in events if e["type"] == "observation" and e["tool"] == "edit_file"]
    assert "not found" in texts[0] and "not found" in texts[1]
    assert texts[2].startswith("refused")
    assert result.stop_reason == "no_progress"


def test_three_replies_without_a_tool_call_in_a_row_stop_the_run(calc_repo, script):
    result, _, _ = run(calc_repo, script(*[{"text": "hmm"}] * 3, plan(FIX_STEP)))
    assert (result.stop_reason, result.model_turns) == ("model_error", 3)
    assert "in a row" in result.message


def test_stop_tool_ends_the_run_with_its_reason(calc_repo, script):
    result, _, _ = run(calc_repo, script({"tool": "stop", "input": {"reason": "task is unsafe"}}))
    assert (result.status, result.stop_reason) == ("stopped", "stopped_by_model")
    assert result.message == "task is unsafe"


def test_renaming_an_out_of_scope_file_into_scope_is_caught(calc_repo, script):
    rename = step("rename", ["calc2.py"], [])
    result, _, events = run(
        calc_repo,
        script(
            plan(rename),
            {
                "tool": "run",
                "input": {"command": "git mv calc.py calc2.py 2>/dev/null || mv calc.py calc2.py"},
            },
            {"tool": "finish_step", "input": {"summary": "renamed"}},
        ),
        max_revisions=0,
    )
    scope = next(
        e for e in events if e["type"] == "verification" and e["kind"] == "files_within_scope"
    )
    assert scope["status"] == "failed" and "calc.py" in scope["evidence"]
    assert result.stop_reason == "revisions_exhausted"
    assert git(calc_repo, "show", f"{result.branch}:calc.py")


def test_model_commands_reach_no_network_and_write_nothing_outside_the_worktree(
    calc_repo, script, tmp_path
):
    import socket
    import uuid

    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]
    outside = tmp_path / f"outside-{uuid.uuid4().hex}"
    host_tmp = Path("/tmp") / f"coder-escape-{uuid.uuid4().hex}"
    connect = (
        f"python -c \"import socket; socket.create_connection(('127.0.0.1', {port}), timeout=2)\""
    )
    try:
        result, _, events = run(
            calc_repo,
            script(
                plan(step("probe", ["calc.py"], [])),
                {
                    "calls": [
                        {"tool": "run", "input": {"command": connect}},
                        {"tool": "run", "input": {"command": f"echo x > {outside}"}},
                        {"tool": "run", "input": {"command": f"echo x > {host_tmp}"}},
                        {"tool": "run", "input": {"command": f"echo x >> {calc_repo}/README.md"}},
                    ]
                },
                {"tool": "stop", "input": {"reason": "done probing"}},
            ),
            sandbox="bwrap",
        )
    finally:
        listener.close()
    runs = [e for e in events if e["type"] == "observation" and e["tool"] == "run"]
    assert len(runs) == 4 and runs[0]["status"] == "error"
    assert "refused" in runs[0]["text"] or "unreachable" in runs[0]["text"]
    assert not outside.exists() and not host_tmp.exists()
    assert (calc_repo / "README.md").read_text() == "calc\n"


def test_a_catastrophic_text_pattern_fails_its_check_instead_of_hanging(
    calc_repo, script, monkeypatch
):
    from coder.checks import text as verifier

    monkeypatch.setattr(verifier, "TEXT_SEARCH_SECONDS", 1.0)
    slow = step("slow", ["calc.py"], [{"kind": "text_absent", "pattern": "(a|aa)+$"}])
    result, _, events = run(
        calc_repo,
        script(
            plan(slow),
            {"tool": "write_file", "input": {"path": "calc.py", "content": "a" * 40 + "!\n"}},
            {"tool": "finish_step", "input": {"summary": "x"}},
        ),
        max_revisions=0,
    )
    check = next(e for e in events if e["type"] == "verification" and e["kind"] == "text_absent")
    assert check["status"] == "failed" and "simpler pattern" in check["evidence"]
    assert result.stop_reason == "revisions_exhausted"


def test_always_protected_paths_hold_against_the_repository_config(calc_repo, script):
    (calc_repo / ".coder.toml").write_text('protected = []\ntest_cmd = "python -m pytest -q"\n')
    git(calc_repo, "add", ".coder.toml")
    git(calc_repo, "commit", "-qm", "config")
    workflow = step("wf", [".github/**"], [])
    result, _, events = run(
        calc_repo,
        script(
            plan(workflow),
            {
                "tool": "write_file",
                "input": {"path": ".github/workflows/x.yml", "content": "on: push\n"},
            },
            {"tool": "stop", "input": {"reason": "done"}},
        ),
        always_protected=[".github/**"],
    )
    writes = [e for e in events if e["type"] == "observation" and e["tool"] == "write_file"]
    assert writes[0]["status"] == "denied" and "protected" in writes[0]["text"]


def test_unconfined_commands_that_print_the_key_are_redacted(
    calc_repo, script, monkeypatch, tmp_path
):
    secret = "sk-ant-unconfined-0123456789"
    monkeypatch.setenv("ANTHROPIC_API_KEY", secret)
    stash = tmp_path / "found-it-somewhere"
    stash.write_text(secret)
    leak = f"cat {stash}"  # a command that got hold of the key without the model naming it
    result, run_dir, events = run(
        calc_repo,
        script(
            plan(
                step(
                    "leak",
                    ["calc.py"],
                    [{"kind": "command_succeeds", "command": f"{leak}; exit 1"}],
                )
            ),
            {"tool": "run", "input": {"command": leak}},
            {"tool": "finish_step", "input": {"summary": "x"}},
        ),
        sandbox="none",
        max_revisions=0,
    )
    shown = [e["text"] for e in events if e["type"] == "observation" and e["tool"] == "run"]
    assert shown and "[redacted]" in shown[0]
    failed = next(
        e for e in events if e["type"] == "verification" and e["kind"] == "command_succeeds"
    )
    assert failed["status"] == "failed"
    for path in run_dir.iterdir():
        assert secret not in path.read_text(errors="replace")


def test_encoded_forms_of_the_key_never_reach_the_trace_or_the_model(
    calc_repo, script, monkeypatch, tmp_path
):
    """`base64 <<<"$KEY"` and friends, at every alignment, wrapped or not."""
    secret = "sk-ant-encoded-" + "0123456789abcdefXYZ_-" * 4
    monkeypatch.setenv("ANTHROPIC_API_KEY", secret)
    stash = tmp_path / "found-it-somewhere"
    stash.write_text(secret)
    encoders = [
        f"base64 < {stash}",
        f"base64 -w0 < {stash}",
        f"(printf x; cat {stash}) | base64",
        f"(printf xy; cat {stash}) | base64 -w0",
        f"basenc --base64url < {stash}",
        f"xxd -p < {stash}",
        f"od -An -tx1 < {stash} | tr -d ' \\n'",
        f"python3 -c 'import sys, urllib.parse; print(urllib.parse.quote(open(sys.argv[1]).read()))' {stash}",
    ]
    result, run_dir, events = run(
        calc_repo,
        script(
            plan(step("leak", ["calc.py"], [])),
            {"calls": [{"tool": "run", "input": {"command": c}} for c in encoders]},
            {"tool": "stop", "input": {"reason": "done"}},
        ),
        sandbox="none",
        max_revisions=0,
    )
    shown = [e["text"] for e in events if e["type"] == "observation" and e["tool"] == "run"]
    assert len(shown) == len(encoders) and all("[redacted]" in text for text in shown)
    import base64

    raw = secret.encode()
    middle = secret[8:-8]
    forms = [middle, raw.hex()[16:-16], base64.b64encode(raw).decode()[8:-8]]
    for path in run_dir.iterdir():
        text = path.read_text(errors="replace").replace("\\n", "").replace("\n", "")
        for form in forms:
            assert form not in text, (path.name, form)
