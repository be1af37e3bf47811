"""What `coder ci` prints on a terminal: nothing a pull request wrote can drive the terminal."""

from __future__ import annotations

from ci_repos import commit_all, git, python_pr
from typer.testing import CliRunner

from coder.ci.cli import ci_app

EVIL_NAME = "evil\x1b]0;t\x07\x1b[2Kname.py"


def test_ci_review_prints_no_control_sequence_from_the_pull_request(tmp_path):
    repo, _base, _head = python_pr(tmp_path)
    git(repo, "checkout", "-q", "feature")
    (repo / EVIL_NAME).write_text("def f\x1b_x():\n    return 1\n")
    commit_all(repo, "odd")
    git(repo, "checkout", "-q", "main")
    argv = ["review", "--repo", str(repo), "--base", "main", "--head", "feature", "--no-tests"]
    result = CliRunner().invoke(ci_app, argv, env={"GITHUB_TOKEN": ""})
    assert result.exit_code == 0, result.output
    assert "name.py" in result.stdout
    printed = result.stdout + result.stderr
    assert not [c for c in ("\x1b", "\x07", "\x9b") if c in printed]
