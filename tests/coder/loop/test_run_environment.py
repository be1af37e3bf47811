"""A run on a repository as its owner has it: the environment, setup_cmd, and configuration
that can tighten confinement but never loosen it. Real git, real bubblewrap, scripted model."""

from __future__ import annotations

from pathlib import Path

import pytest
from calcrepo import FIX_ADD, plan, step
from gitrepo import git, snapshot

from coder.loop.runner import RunOptions, UsageError, run_task
from coder.loop.state.trace import read_trace
from sandbox.confine import bwrap_unavailable_reason

needs_bwrap = pytest.mark.skipif(
    bwrap_unavailable_reason() is not None, reason="bubblewrap cannot start here"
)
FINISH = {"tool": "final_answer", "input": {"summary": "nothing to do"}}


def _commit(repo: Path, files: dict[str, str], message: str = "config") -> None:
    for rel, text in files.items():
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_text(text)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", message)


def _run(repo: Path, model: str, warnings: list[str] | None = None, **kw):  # type: ignore[no-untyped-def]
    sink = warnings if warnings is not None else []
    outcome = run_task(RunOptions(repo=repo, task="t", model=model, warn=sink.append, **kw))
    return outcome.result, read_trace(outcome.run_dir / "trace.jsonl")


@needs_bwrap
def test_repository_config_cannot_turn_the_sandbox_off(calc_repo, script) -> None:
    _commit(calc_repo, {".coder.toml": 'sandbox = "none"\ntest_cmd = "python -m pytest -q"\n'})
    warnings: list[str] = []
    _, events = _run(calc_repo, script(FINISH), warnings, mode="react")
    started = next(e for e in events if e["type"] == "run_started")
    assert started["sandbox"] == "bwrap"
    assert any('sandbox = "none"' in w and "ignored" in w for w in warnings)


def test_repository_config_cannot_drop_the_default_protection(calc_repo, script) -> None:
    _commit(
        calc_repo, {".coder.toml": 'protected = ["docs/**"]\ntest_cmd = "python -m pytest -q"\n'}
    )
    warnings: list[str] = []
    wide = step("wide", [".github/**", ".coder.toml", "docs/**"], [])
    _, events = _run(
        calc_repo,
        script(
            plan(wide),
            {
                "calls": [
                    {
                        "tool": "write_file",
                        "input": {"path": ".github/x.yml", "content": "on: push\n"},
                    },
                    {
                        "tool": "write_file",
                        "input": {"path": ".coder.toml", "content": 'sandbox = "none"\n'},
                    },
                    {"tool": "write_file", "input": {"path": "docs/a.md", "content": "a\n"}},
                ]
            },
            {"tool": "stop", "input": {"reason": "done"}},
        ),
        warnings,
    )
    writes = [e for e in events if e["type"] == "observation" and e["tool"] == "write_file"]
    assert [w["status"] for w in writes] == ["denied", "denied", "denied"]
    assert any(
        "cannot drop protected paths (.github/**, .coder.toml, .worktreeinclude, .coder)" in w
        for w in warnings
    )


def test_a_step_that_changes_the_tool_coder_table_fails_scope(calc_repo, script) -> None:
    pytest_only = {
        "path": "pyproject.toml",
        "old_text": "[tool.pytest.ini_options]",
        "new_text": "[tool.pytest.ini_options]\nconsole_output_style = 'classic'",
    }
    loosen = {
        "path": "pyproject.toml",
        "old_text": "cmd_timeout = 20",
        "new_text": "cmd_timeout = 9999",
    }
    first = step("fix", ["calc.py", "pyproject.toml"], [])
    second = step("loosen", ["pyproject.toml"], [], deps=["fix"])
    result, events = _run(
        calc_repo,
        script(
            plan(first, second),
            {
                "calls": [
                    {"tool": "edit_file", "input": FIX_ADD},
                    {"tool": "edit_file", "input": pytest_only},
                ]
            },
            {"tool": "finish_step", "input": {"summary": "fixed, pytest tweaked"}},
            {"tool": "edit_file", "input": loosen},
            {"tool": "finish_step", "input": {"summary": "more time"}},
        ),
        max_revisions=0,
    )
    scope = [e for e in events if e["type"] == "verification" and e["kind"] == "files_within_scope"]
    assert [s["status"] for s in scope] == ["passed", "failed"]
    assert "pyproject.toml [tool.coder] (protected)" in scope[1]["evidence"]
    assert result.stop_reason == "revisions_exhausted"


@needs_bwrap
def test_setup_cmd_runs_confined_before_the_baseline(calc_repo, script) -> None:
    generate = "python -c \"open('generated.py', 'w').write('FACTOR = 2\\\\n')\""
    _commit(
        calc_repo,
        {
            ".gitignore": "generated.py\n",
            ".coder.toml": f"setup_cmd = '''{generate}'''\ntest_cmd = 'python -m pytest -q'\n",
            "tests/test_generated.py": "from generated import FACTOR\n\ndef test_f():\n    assert FACTOR == 2\n",
        },
    )
    _, events = _run(calc_repo, script(FINISH), mode="react")
    kinds = [e["type"] for e in events]
    assert kinds.index("setup") < kinds.index("model_call")
    setup = next(e for e in events if e["type"] == "setup")
    assert setup["status"] == "ok"
    assert not (calc_repo / "generated.py").exists()  # made in the worktree, not the checkout
    final = next(e for e in events if e["type"] == "verification" and e["kind"] == "final_check")
    assert "test_generated.py::test_f" not in final.get("new_failures", [])


@pytest.mark.parametrize(
    ("setup_cmd", "timeout", "says"),
    [
        (
            "echo building; echo 'gcc: missing header' >&2; exit 3",
            None,
            "failed with exit 3: gcc: missing header",
        ),
        ("no-such-build-tool --all", None, "command not found (exit 127)"),
        ("sleep 60", 1.0, "did not finish within 1s"),
        ("echo changed >> README.md", None, "changed files git sees (README.md)"),
    ],
    ids=["fails", "missing", "hangs", "touches-tracked"],
)
def test_a_setup_cmd_that_cannot_prepare_is_a_one_line_exit_2(
    calc_repo, script, tmp_path, setup_cmd, timeout, says
) -> None:
    _commit(
        calc_repo, {".coder.toml": f"setup_cmd = {setup_cmd!r}\ntest_cmd = 'python -m pytest -q'\n"}
    )
    before = snapshot(calc_repo)
    out = tmp_path / "run"
    with pytest.raises(UsageError) as error:
        run_task(
            RunOptions(
                repo=calc_repo, task="t", model=script(FINISH), out_dir=out, cmd_timeout_s=timeout
            )
        )
    message = str(error.value)
    assert says in message and "\n" not in message
    assert str(out / "setup.log") in message
    assert (out / "setup.log").is_file()
    assert [e["status"] for e in read_trace(out / "trace.jsonl") if e["type"] == "setup"] == [
        "failed"
    ]
    assert snapshot(calc_repo) == before
    assert git(calc_repo, "branch", "--list", "coder/*") == ""


def test_a_bad_include_pattern_is_a_one_line_exit_2(calc_repo, script) -> None:
    _commit(calc_repo, {".worktreeinclude": "../../etc/passwd\n"})
    before = snapshot(calc_repo)
    with pytest.raises(UsageError, match="leads outside the repository") as error:
        run_task(RunOptions(repo=calc_repo, task="t", model=script(FINISH)))
    assert "\n" not in str(error.value)
    assert snapshot(calc_repo) == before
    assert git(calc_repo, "branch", "--list", "coder/*") == ""


def test_the_environment_is_in_the_trace_and_its_notes_are_said(calc_repo, script) -> None:
    _commit(calc_repo, {".gitignore": "node_modules/\n.env*\n", ".worktreeinclude": ".env.test\n"})
    (calc_repo / "node_modules" / "x").mkdir(parents=True)
    (calc_repo / ".env.test").write_text("TEST_DB=sqlite://\n")
    warnings: list[str] = []
    _, events = _run(calc_repo, script(FINISH), warnings, mode="react")
    environment = next(e for e in events if e["type"] == "environment")
    assert environment["exposed"] == ["node_modules"]
    assert environment["secrets"] == [".env.test"]
    assert environment["checkout"] == str(calc_repo)
    assert any("brought in secret-looking file(s) you named: .env.test" in w for w in warnings)
