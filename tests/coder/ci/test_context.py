from __future__ import annotations

import json
from pathlib import Path

from coder.ci.context import ContextProblem, PullRequestContext, load_pr_context, read_event


def _event(tmp_path: Path, data: object) -> str:
    path = tmp_path / "event.json"
    path.write_text(json.dumps(data))
    return str(path)


def test_pull_request_event_gives_number_and_head_branch(tmp_path: Path) -> None:
    event = {
        "pull_request": {
            "number": 7,
            "head": {"ref": "feature/x", "repo": {"full_name": "someone/widgets"}},
        }
    }
    env = {
        "GITHUB_TOKEN": "t0ken",
        "GITHUB_REPOSITORY": "acme/widgets",
        "GITHUB_EVENT_PATH": _event(tmp_path, event),
    }
    ctx = load_pr_context(env)
    assert isinstance(ctx, PullRequestContext)
    assert (ctx.number, ctx.head_ref, ctx.head_repository) == (7, "feature/x", "someone/widgets")
    assert ctx.api_url == "https://api.github.com"
    assert "t0ken" not in repr(ctx)


def test_issue_comment_event_and_api_url_override(tmp_path: Path) -> None:
    env = {
        "GITHUB_TOKEN": "t",
        "GITHUB_REPOSITORY": "acme/widgets",
        "GITHUB_EVENT_PATH": _event(tmp_path, {"issue": {"number": 12}}),
        "GITHUB_API_URL": "https://ghe.example/api/v3/",
    }
    ctx = load_pr_context(env)
    assert isinstance(ctx, PullRequestContext)
    assert (ctx.number, ctx.api_url) == (12, "https://ghe.example/api/v3")


def test_explicit_pr_wins_over_event(tmp_path: Path) -> None:
    env = {
        "GITHUB_TOKEN": "t",
        "GITHUB_REPOSITORY": "acme/widgets",
        "GITHUB_EVENT_PATH": _event(tmp_path, {"issue": {"number": 12}}),
    }
    ctx = load_pr_context(env, pr=3)
    assert isinstance(ctx, PullRequestContext) and ctx.number == 3


def test_each_missing_piece_is_named(tmp_path: Path) -> None:
    no_token = load_pr_context({"GITHUB_REPOSITORY": "a/b"})
    assert isinstance(no_token, ContextProblem) and "GITHUB_TOKEN" in no_token.message
    bad_repo = load_pr_context({"GITHUB_TOKEN": "t", "GITHUB_REPOSITORY": "nobody"})
    assert isinstance(bad_repo, ContextProblem) and "GITHUB_REPOSITORY" in bad_repo.message
    no_number = load_pr_context({"GITHUB_TOKEN": "t", "GITHUB_REPOSITORY": "a/b"})
    assert isinstance(no_number, ContextProblem) and "--pr" in no_number.message
    bad_event = tmp_path / "bad.json"
    bad_event.write_text("{not json")
    env = {"GITHUB_TOKEN": "t", "GITHUB_REPOSITORY": "a/b", "GITHUB_EVENT_PATH": str(bad_event)}
    broken = load_pr_context(env)
    assert isinstance(broken, ContextProblem) and "not JSON" in broken.message


def test_read_event_without_variable_is_empty() -> None:
    event = read_event({})
    assert not isinstance(event, ContextProblem)
    assert event.number is None and event.head_ref is None


def test_event_gives_the_pr_title_and_base_branch(tmp_path: Path) -> None:
    pull = {"number": 3, "title": "Reduce look-ahead", "base": {"ref": "main"}, "head": {}}
    event = read_event({"GITHUB_EVENT_PATH": _event(tmp_path, {"pull_request": pull})})
    assert not isinstance(event, ContextProblem)
    assert (event.title, event.base_ref) == ("Reduce look-ahead", "main")
    comment = read_event(
        {"GITHUB_EVENT_PATH": _event(tmp_path, {"issue": {"number": 3, "title": "On a PR"}})}
    )
    assert not isinstance(comment, ContextProblem) and comment.title == "On a PR"
