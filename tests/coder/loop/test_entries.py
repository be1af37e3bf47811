"""A step never commits a symlink that points outside the repository or a gitlink."""

from __future__ import annotations

import pytest
from calcrepo import FIX_ADD, plan, step
from gitrepo import git

from coder.loop.runner import RunOptions, run_task
from coder.loop.state.trace import read_trace

SHA = "1234567890" * 4


def scope_evidence(
    calc_repo, script, files: list[str], command: str, sandbox: str = "auto"
) -> tuple[str, str]:
    outcome = run_task(
        RunOptions(
            repo=calc_repo,
            task="t",
            model=script(
                plan(step("s", ["calc.py", *files], [])),
                {"tool": "edit_file", "input": FIX_ADD},
                {"tool": "run", "input": {"command": command}},
                {"tool": "finish_step", "input": {"summary": "done"}},
            ),
            revise=False,
            sandbox=sandbox,
        )
    )
    events = read_trace(outcome.run_dir / "trace.jsonl")
    checks = [
        e for e in events if e["type"] == "verification" and e["kind"] == "files_within_scope"
    ]
    assert outcome.result.status != "verified"
    tree = git(calc_repo, "ls-tree", "-r", outcome.result.branch)
    return checks[0]["evidence"], tree


@pytest.mark.parametrize("target", ["/etc/shadow", "../../outside", ".git/config"])
def test_a_symlink_pointing_outside_the_repository_fails_the_step(calc_repo, script, target):
    evidence, tree = scope_evidence(calc_repo, script, ["link"], f"ln -s {target} link")
    assert f"link is a symlink to {target}, outside the repository" in evidence
    assert "link" not in tree


def test_an_inward_symlink_is_fine(calc_repo, script):
    outcome = run_task(
        RunOptions(
            repo=calc_repo,
            task="t",
            model=script(
                plan(step("s", ["calc.py", "docs/readme"], [])),
                {"tool": "edit_file", "input": FIX_ADD},
                {
                    "tool": "run",
                    "input": {"command": "mkdir docs && ln -s ../README.md docs/readme"},
                },
                {"tool": "finish_step", "input": {"summary": "done"}},
            ),
        )
    )
    assert outcome.result.status == "verified", outcome.result.message


def test_a_dangling_gitlink_fails_the_step(calc_repo, script):
    """Staged by hand (confined commands cannot write the index: unconfined ones can)."""
    evidence, tree = scope_evidence(
        calc_repo,
        script,
        ["dep"],
        f"git update-index --add --cacheinfo 160000,{SHA},dep",
        sandbox="none",
    )
    assert "dep is a gitlink" in evidence
    assert "160000" not in tree


def test_a_nested_repository_fails_the_step(calc_repo, script):
    nested = (
        "git init -q sub && echo x > sub/x && git -C sub add x && "
        "git -C sub -c user.name=a -c user.email=a@b commit -qm x"
    )
    evidence, tree = scope_evidence(calc_repo, script, ["sub/**", "sub"], nested)
    assert "sub is a nested git repository" in evidence
    assert "160000" not in tree
