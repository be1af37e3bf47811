"""`coder ci fix` end to end: a real repository, a bare remote, the scripted model, and the
local GitHub server for the comment."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from ci_fake_github import FakeGitHub
from ci_repos import FAST_PYTEST, git, python_pr
from gitrepo import snapshot, write_script
from typer.testing import CliRunner

from coder.ci.cli import ci_app
from coder.ci.comments import FIX_MARKER
from coder.cli import app

try:
    import coder.loop.runner  # noqa: F401
except ImportError:  # pragma: no cover - only while the run loop is being written
    pytestmark = pytest.mark.skip(reason="run loop not available")

runner = CliRunner()

PLAN = {
    "tool": "submit_plan",
    "input": {
        "goal": "make triple multiply by three",
        "steps": [
            {
                "stepId": "fix-triple",
                "intendedModification": {
                    "files": ["extra.py"],
                    "invariants": ["All unit tests in test_extra.py must exit code 0"],
                },
            }
        ],
    },
}
FINISH = {"tool": "finish_step", "input": {"summary": "triple multiplies by 3"}}


def _edit(new: str) -> dict:  # type: ignore[type-arg]
    return {
        "tool": "edit_file",
        "input": {"path": "extra.py", "old_text": "x * 2", "new_text": new},
    }


def _setup(tmp_path: Path, github: FakeGitHub) -> tuple[Path, Path, str, str, dict[str, str]]:
    repo, base, head = python_pr(tmp_path)
    remote = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", str(remote))
    git(repo, "remote", "add", "origin", str(remote))
    git(repo, "push", "-q", "origin", "main", "feature")
    event = tmp_path / "event.json"
    event.write_text(json.dumps({"pull_request": {"number": 7, "head": {"ref": "feature"}}}))
    env = {
        "GITHUB_TOKEN": github.token,
        "GITHUB_REPOSITORY": github.repository,
        "GITHUB_EVENT_PATH": str(event),
        "GITHUB_API_URL": github.url,
        "ANTHROPIC_API_KEY": "",
    }
    return repo, remote, base, head, env


def _fix(repo: Path, env: dict[str, str], *args: str):  # type: ignore[no-untyped-def]
    argv = ["fix", "--repo", str(repo), "--head", "feature", *args]
    return runner.invoke(ci_app, argv, env=env)


def test_verified_fix_goes_to_its_own_branch_and_the_pr_branch_is_untouched(
    tmp_path: Path, github: FakeGitHub
) -> None:
    repo, remote, _base, head, env = _setup(tmp_path, github)
    script = write_script(tmp_path / "fix.json", [PLAN, _edit("x * 3"), FINISH])
    before = snapshot(repo)
    result = _fix(
        repo,
        env,
        "--base",
        "main",
        "--model",
        f"script:{script}",
        "--format",
        "json",
        "--test-cmd",
        FAST_PYTEST,
    )
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["status"] == "pushed" and report["branch"] == "coder/fix-7"
    assert report["failing"] == ["test_extra.py::test_triple"]
    fixed = git(remote, "rev-parse", "refs/heads/coder/fix-7")
    assert fixed == report["final_commit"]
    assert git(remote, "show", f"{fixed}:extra.py") == "def triple(x):\n    return x * 3"
    assert git(remote, "rev-parse", f"{fixed}~1") == head
    assert git(remote, "rev-parse", "refs/heads/feature") == head
    assert snapshot(repo) == before
    body = github.comments[7][0]["body"]
    assert body.startswith(FIX_MARKER) and "`origin/coder/fix-7`" in body
    assert "git fetch origin coder/fix-7" in body
    assert github.token not in result.output
    shown = CliRunner().invoke(app, ["show", report["run_dir"]])
    assert shown.exit_code == 0, shown.output
    assert f"branch coder/fix-7 (pushed for PR #7 at {fixed[:10]})" in " ".join(
        shown.output.split()
    )


def test_record_writes_a_script_that_replays_to_the_same_fix(
    tmp_path: Path, github: FakeGitHub
) -> None:
    repo, remote, _base, _head, env = _setup(tmp_path, github)
    script = write_script(tmp_path / "fix.json", [PLAN, _edit("x * 3"), FINISH])
    recorded = tmp_path / "recorded.json"
    first = _fix(
        repo, env, "--model", f"script:{script}", "--format", "json", "--record", str(recorded)
    )
    assert first.exit_code == 0, first.output
    turns = json.loads(recorded.read_text())
    assert [t["tool"] for t in turns["turns"]] == ["submit_plan", "edit_file", "finish_step"]
    fixed = json.loads(first.stdout)["final_commit"]
    git(remote, "update-ref", "-d", "refs/heads/coder/fix-7")
    again = _fix(repo, env, "--model", f"script:{recorded}", "--format", "json")
    assert again.exit_code == 0, again.output
    replayed = json.loads(again.stdout)["final_commit"]
    assert git(remote, "rev-parse", f"{replayed}^{{tree}}") == git(
        remote, "rev-parse", f"{fixed}^{{tree}}"
    )


def test_unverified_fix_pushes_nothing_and_says_why(tmp_path: Path, github: FakeGitHub) -> None:
    repo, remote, _base, head, env = _setup(tmp_path, github)
    git(repo, "checkout", "-q", "feature")  # head checked out: the run works from this repo
    before = snapshot(repo)
    script = write_script(tmp_path / "wrong.json", [PLAN, _edit("x * 4"), FINISH])
    result = _fix(repo, env, "--model", f"script:{script}", "--test-cmd", FAST_PYTEST)
    assert snapshot(repo) == before
    assert result.exit_code == 1, result.output
    assert "Nothing was pushed" in result.stdout and "did not verify" in result.stdout
    heads = git(remote, "for-each-ref", "--format=%(refname)", "refs/heads")
    assert heads.split() == ["refs/heads/feature", "refs/heads/main"]
    assert git(remote, "rev-parse", "refs/heads/feature") == head
    body = github.comments[7][0]["body"]
    assert "did not verify" in body and "tests_pass: failed" in body


def test_passing_tests_push_nothing_and_create_no_comment(
    tmp_path: Path, github: FakeGitHub
) -> None:
    repo, remote, _base, _head, env = _setup(tmp_path, github)
    result = _fix(repo, env, "--test-cmd", "python -c pass", "--model", "script:/nonexistent")
    assert result.exit_code == 0, result.output
    assert "Tests pass at head" in result.stdout
    assert "coder/" not in git(remote, "branch", "--list")
    assert [r.method for r in github.requests] == ["GET"]
    assert 7 not in github.comments


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--remote", "upstream"], "no git remote named 'upstream'"),
        (["--base", "nope"], "--base 'nope' names no commit"),
    ],
)
def test_bad_input_exits_2_before_any_work(
    tmp_path: Path, github: FakeGitHub, args: list[str], words: str
) -> None:
    repo, _remote, _base, _head, env = _setup(tmp_path, github)
    result = _fix(repo, env, *args)
    assert result.exit_code == 2 and words in result.stderr
    assert github.requests == []


def test_push_to_pr_needs_the_pr_branch(tmp_path: Path, github: FakeGitHub) -> None:
    repo, _remote, _base, _head, env = _setup(tmp_path, github)
    env = {**env, "GITHUB_EVENT_PATH": ""}
    result = _fix(repo, env, "--push-to-pr", "--pr", "7")
    assert result.exit_code == 2 and "pull_request.head.ref" in result.stderr
