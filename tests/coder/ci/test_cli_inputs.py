"""Bad input exits 2 with one line, before any work is done or anything is posted."""

from __future__ import annotations

from pathlib import Path

import pytest
from ci_fake_github import FakeGitHub
from typer.testing import CliRunner

from coder.ci.cli import ci_app

runner = CliRunner()

CLEAN_ENV = {
    "GITHUB_TOKEN": "",
    "GITHUB_REPOSITORY": "",
    "GITHUB_EVENT_PATH": "",
    "GITHUB_API_URL": "",
}


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["review", "--base", "a", "--head", "b", "--format", "html"], "--format"),
        (["review", "--base", "a", "--head", "b", "--fail-on", "breaking,style"], "style"),
        (["review", "--base", "a", "--head", "b", "--sandbox", "docker"], "--sandbox"),
        (["review", "--base", "a", "--head", "b", "--post"], "GITHUB_TOKEN"),
        (["fix", "--format", "yaml"], "--format"),
    ],
)
def test_bad_options_exit_2_with_one_line(args: list[str], words: str, tmp_path: Path) -> None:
    result = runner.invoke(ci_app, [*args, "--repo", str(tmp_path)], env=CLEAN_ENV)
    assert result.exit_code == 2, result.output
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and words in lines[0]
    assert result.stdout == ""


def test_post_without_pr_number_names_what_to_pass(github: FakeGitHub, tmp_path: Path) -> None:
    env = {
        **CLEAN_ENV,
        "GITHUB_TOKEN": github.token,
        "GITHUB_REPOSITORY": "acme/widgets",
        "GITHUB_API_URL": github.url,
    }
    result = runner.invoke(
        ci_app, ["review", "--base", "a", "--head", "b", "--post", "--repo", str(tmp_path)], env=env
    )
    assert result.exit_code == 2 and "--pr" in result.stderr
    assert github.requests == []
    assert github.token not in result.output
