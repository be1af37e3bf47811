"""`coder ci review` end to end on real repositories, through the typer app."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from ci_fake_github import Failure, FakeGitHub
from ci_repos import FAST_PYTEST, commit_all, git, init_repo, js_pr, python_pr, write
from gitrepo import snapshot
from typer.testing import CliRunner

from coder.ci.cli import ci_app
from coder.ci.comments import REVIEW_MARKER

runner = CliRunner()
NO_GITHUB = {"GITHUB_TOKEN": "", "GITHUB_REPOSITORY": "", "GITHUB_EVENT_PATH": ""}


def _review(repo: Path, *args: str, env: dict[str, str] | None = None):  # type: ignore[no-untyped-def]
    argv = ["review", "--repo", str(repo), "--base", "main", "--head", "feature", *args]
    return runner.invoke(ci_app, argv, env=env or NO_GITHUB)


def _by_name(report: dict, path: str) -> dict[str, dict]:  # type: ignore[type-arg]
    entry = next(f for f in report["files"] if f["path"] == path)
    return {s["name"]: s for s in entry["symbols"]}


def test_python_review_with_base_comparison(tmp_path: Path) -> None:
    repo, base, head = python_pr(tmp_path)
    before = snapshot(repo)
    result = _review(
        repo,
        *("--format", "json", "--compare-base", "--fail-on", "breaking,tests"),
        *("--test-cmd", FAST_PYTEST),
    )
    assert snapshot(repo) == before
    report = json.loads(result.stdout)
    assert (report["base"]["commit"], report["head"]["commit"]) == (base, head)
    calc = _by_name(report, "calc.py")
    assert calc["scale"]["change"] == "signature_changed"
    assert calc["scale"]["new_signature"] == "scale(value, times)"
    assert calc["obsolete"]["change"] == "removed"
    assert calc["add"]["change"] == "body_changed"
    assert calc["_helper"]["public"] is False
    assert _by_name(report, "extra.py")["triple"]["change"] == "added"
    assert report["stats"] == {"files": 3, "added": 13, "removed": 9}
    breaking = {b["symbol"]: b for b in report["breaking"]}
    assert set(breaking) == {"scale", "obsolete"}
    assert breaking["scale"]["reasons"] == ["`factor` renamed `times`"]
    assert report["compatible"] == []
    sites = {(c["path"], c["line"]) for c in breaking["obsolete"]["call_sites"]}
    assert sites == {("app.py", 1), ("app.py", 5)}
    assert ("calc.py", 5) not in {(c["path"], c["line"]) for c in breaking["scale"]["call_sites"]}
    tests = report["tests"]
    assert tests["command_source"] == "flag"
    assert tests["head"]["passed"] is False and tests["base"]["passed"] is False
    assert "test_extra.py::test_triple" in tests["head"]["failing"]
    assert tests["new_failures"] == ["test_extra.py::test_triple"]
    assert "assert 6 == 9" in tests["head"]["log"]
    assert ".git/coder-worktrees" not in tests["head"]["log"]
    assert result.exit_code == 1
    assert "fail-on: 2 possible breaking change(s)" in result.stderr
    assert "fail-on: 1 new test failure(s) at head" in result.stderr


def test_javascript_review_as_markdown(tmp_path: Path) -> None:
    repo, _base, _head = js_pr(tmp_path)
    result = _review(repo, "--fail-on", "tests")
    text = result.stdout
    assert text.startswith(REVIEW_MARKER)
    assert "**2 possible breaking changes** · 1 compatible signature change" in text
    assert "`src/math.js`: `remove` removed\n" in text
    breaking, compatible = text.split("### Compatible signature changes")
    assert (
        "`greet` signature changed (new required parameter 2 `loud`): "
        "`greet(name: string): string` → `greet(name: string, loud: boolean): string`"
    ) in breaking
    assert "`add(a, b)`" not in breaking.split("### Symbols by file")[0]
    assert (
        "- `src/math.js`: `add` signature extended, compatible: `add(a, b)` → `add(a, b, c = 0)`"
        "\n  added optional parameter 3 `c` (default `0`)"
    ) in compatible
    assert "| `add` | function | signature changed (compatible) |" in text
    assert "| `greet` | function | signature changed (breaking) |" in text
    assert "<summary><code>src/extra.js</code> added" in text
    assert "src/use.js:4:" in text
    assert "`node --test` (detected)" in text
    assert "head: 1 failing, compacted" in text and "6 !== 4" in text
    assert result.exit_code == 1 and "tests fail at head" in result.stderr


def test_passing_tests_and_no_fail_on_exit_0(tmp_path: Path) -> None:
    repo, _base, _head = python_pr(tmp_path)
    result = _review(repo, "--test-cmd", "python -c pass", "--fail-on", "tests")
    assert result.exit_code == 0, result.output
    assert "tests pass at head ✅" in result.stdout
    assert "(flag)" in result.stdout
    plain = _review(repo, "--no-tests")
    assert plain.exit_code == 0 and "tests not run" in plain.stdout


def test_bad_repo_config_at_head_is_a_warning_in_the_report(tmp_path: Path) -> None:
    repo, _base, _head = python_pr(tmp_path)
    git(repo, "checkout", "-q", "feature")
    write(repo, {".coder.toml": 'test_comand = "pytest"\n'})
    commit_all(repo, "config typo")
    git(repo, "checkout", "-q", "main")
    result = _review(repo, "--format", "json", "--test-cmd", "python -c pass")
    warnings = json.loads(result.stdout)["warnings"]
    assert any("test_comand" in w and "ignored" in w for w in warnings), warnings
    assert result.exit_code == 0


def test_diff_is_taken_from_the_merge_base_when_base_moved_on(tmp_path: Path) -> None:
    repo, base, _head = python_pr(tmp_path)
    write(repo, {"later.py": "def later():\n    return 1\n"})
    commit_all(repo, "main moves on")
    report = json.loads(_review(repo, "--format", "json", "--no-tests").stdout)
    assert "later.py" not in {f["path"] for f in report["files"]}
    assert any(f"merge base {base[:10]}" in w for w in report["warnings"])


def test_unknown_ref_exits_2(tmp_path: Path) -> None:
    repo, _base, _head = python_pr(tmp_path)
    result = runner.invoke(
        ci_app, ["review", "--repo", str(repo), "--base", "main", "--head", "nope"], env=NO_GITHUB
    )
    assert result.exit_code == 2 and "--head 'nope' names no commit" in result.stderr
    assert result.stdout == ""


def _github_env(github: FakeGitHub, tmp_path: Path) -> dict[str, str]:
    event = tmp_path / "event.json"
    event.write_text(json.dumps({"pull_request": {"number": 42, "head": {"ref": "feature"}}}))
    return {
        "GITHUB_TOKEN": github.token,
        "GITHUB_REPOSITORY": github.repository,
        "GITHUB_EVENT_PATH": str(event),
        "GITHUB_API_URL": github.url,
    }


def test_post_creates_then_updates_one_comment(github: FakeGitHub, tmp_path: Path) -> None:
    repo, _base, _head = python_pr(tmp_path)
    env = _github_env(github, tmp_path)
    first = _review(repo, "--post", "--no-tests", env=env)
    second = _review(repo, "--post", "--no-tests", env=env)
    assert first.exit_code == second.exit_code == 0
    comments = github.comments[42]
    assert len(comments) == 1
    assert comments[0]["body"].startswith(REVIEW_MARKER)
    assert "`scale(value, factor)` → `scale(value, times)`" in comments[0]["body"]
    assert [r.method for r in github.requests] == ["GET", "POST", "GET", "PATCH"]
    assert "created comment" in first.stderr and "updated comment" in second.stderr
    for result in (first, second):
        assert github.token not in result.output


@pytest.mark.parametrize(
    ("failure", "words"),
    [
        (Failure(401), "401 Unauthorized"),
        (Failure(403), "403 Forbidden"),
        (Failure(404), "404 Not Found"),
        (
            Failure(429, headers={"Retry-After": "7"}),
            "rate limit reached (HTTP 429); retry after 7 s",
        ),
    ],
)
def test_post_failure_is_one_line_and_exit_1(
    github: FakeGitHub, tmp_path: Path, failure: Failure, words: str
) -> None:
    repo, _base, _head = python_pr(tmp_path)
    failure.body = {"message": f"token {github.token} rejected"}
    github.fail = failure
    result = _review(repo, "--post", "--no-tests", env=_github_env(github, tmp_path))
    assert result.exit_code == 1
    assert result.stdout.startswith(REVIEW_MARKER)
    errors = [line for line in result.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and words in errors[0]
    assert github.token not in result.output


HUMANIZE_BASE = {
    "humanize/lists.py": (
        'from typing import Any\n\n__all__ = ["natural_list"]\n\n\n'
        "def natural_list(items: list[Any]) -> str:\n"
        "    if len(items) == 1:\n        return str(items[0])\n"
        "    return f\"{', '.join(map(str, items[:-1]))} and {items[-1]!s}\"\n"
    ),
    "app.py": (
        "from humanize.lists import natural_list\n\n\n"
        "def names(people):\n    return natural_list(people)\n"
    ),
}
HUMANIZE_HEAD = (
    "from collections.abc import Iterable\nfrom typing import Any\n\n"
    '__all__ = ["natural_list"]\n\n\n'
    'def natural_list(\n    items: Iterable[Any], *, conjunction: str = "and", '
    "oxford_comma: bool = False\n) -> str:\n"
    "    items = list(items)\n"
    "    if len(items) == 1:\n        return str(items[0])\n"
    '    comma = "," if oxford_comma and len(items) > 2 else ""\n'
    "    return f\"{', '.join(map(str, items[:-1]))}{comma} {conjunction} {items[-1]!s}\"\n"
)


def _humanize_pr(tmp_path: Path, head: str) -> Path:
    repo = tmp_path / "humanize"
    init_repo(repo)
    write(repo, HUMANIZE_BASE)
    commit_all(repo, "base")
    git(repo, "checkout", "-q", "-b", "feature")
    write(repo, {"humanize/lists.py": head})
    commit_all(repo, "natural_list options")
    git(repo, "checkout", "-q", "main")
    return repo


def test_a_compatible_extension_is_not_a_breaking_change(tmp_path: Path) -> None:
    repo = _humanize_pr(tmp_path, HUMANIZE_HEAD)
    result = _review(repo, "--format", "json", "--no-tests", "--fail-on", "breaking")
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["breaking"] == []
    [change] = report["compatible"]
    assert change["path"] == "humanize/lists.py" and change["symbol"] == "natural_list"
    assert change["extended"] is True
    assert change["new_signature"].startswith("natural_list(items: Iterable[Any], *, conjunction")
    assert "added keyword-only parameter `oxford_comma` (default `False`)" in change["notes"]
    assert _by_name(report, "humanize/lists.py")["natural_list"]["compatible"] is True
    text = _review(repo, "--no-tests").stdout
    assert "no breaking · 1 compatible signature change" in text
    assert "`natural_list` signature extended, compatible" in text
    assert "None found" in text.split("### Compatible signature changes")[0]


def test_a_removed_positional_parameter_is_breaking_with_its_reason(tmp_path: Path) -> None:
    head = HUMANIZE_HEAD.replace("    items: Iterable[Any], *, conjunction", "    *, conjunction")
    head = head.replace("    items = list(items)\n", "    items = []\n")
    repo = _humanize_pr(tmp_path, head)
    result = _review(repo, "--format", "json", "--no-tests", "--fail-on", "breaking")
    assert result.exit_code == 1
    assert "fail-on: 1 possible breaking change(s)" in result.stderr
    report = json.loads(result.stdout)
    assert report["compatible"] == []
    [change] = report["breaking"]
    assert change["symbol"] == "natural_list" and change["change"] == "signature_changed"
    assert change["reasons"] == ["parameter `items` removed"]
    assert [(c["path"], c["line"]) for c in change["call_sites"]] == [("app.py", 1), ("app.py", 5)]
    text = _review(repo, "--no-tests").stdout
    assert "`natural_list` signature changed (parameter `items` removed)" in text


def test_a_pull_requests_include_never_brings_the_ci_checkouts_ignored_files(
    tmp_path: Path,
) -> None:
    """The PR names `config/creds.json` (ignored, on the CI machine only) in its
    `.worktreeinclude` and its `include`, and its test prints it: only what the base's
    configuration names comes in, so the secret never reaches the report."""
    repo = tmp_path / "repo"
    init_repo(repo)
    write(
        repo,
        {
            ".gitignore": "config/\n",
            ".coder.toml": 'include = ["config/app.json"]\n',
            "test_show.py": (
                "import pathlib\n\ndef test_show():\n"
                "    for name in ('app.json', 'creds.json'):\n"
                "        p = pathlib.Path('config') / name\n"
                "        print(name, p.read_text() if p.exists() else 'absent')\n"
                "    assert False\n"
            ),
        },
    )
    commit_all(repo, "base")
    git(repo, "checkout", "-q", "-b", "feature")
    write(
        repo,
        {
            ".coder.toml": 'include = ["config/app.json", "config/creds.json"]\n',
            ".worktreeinclude": "config/creds.json\n",
        },
    )
    commit_all(repo, "the PR")
    write(repo, {"config/creds.json": "SECRET-CREDS\n", "config/app.json": "APP-OK\n"})
    result = _review(repo, "--format", "json", "--test-cmd", FAST_PYTEST + " -s")
    report = json.loads(result.stdout)
    log = report["tests"]["head"]["log"]
    assert "APP-OK" in log and "creds.json absent" in log, log
    assert "SECRET-CREDS" not in result.stdout + result.stderr
