"""Which pull request the bot is talking about, read from the GitHub Actions environment.

`GITHUB_EVENT_PATH` names the JSON of the event that started the workflow; the PR number is
`pull_request.number` (pull_request events) or `issue.number` (issue_comment events).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

DEFAULT_API_URL = "https://api.github.com"


@dataclass(frozen=True)
class PullRequestContext:
    api_url: str
    repository: str
    """owner/name"""
    number: int
    token: str = field(repr=False)
    head_ref: str | None = None
    """The PR's branch name, when the event says it (needed only for --push-to-pr)."""
    head_repository: str | None = None
    """owner/name of the repository the PR branch lives in; differs for a fork."""


@dataclass(frozen=True)
class ContextProblem:
    message: str
    """One line naming the variable to set."""


@dataclass(frozen=True)
class EventInfo:
    number: int | None = None
    head_ref: str | None = None
    head_repository: str | None = None
    title: str | None = None
    base_ref: str | None = None
    body: str | None = None
    """The PR's description as its author wrote it."""


def read_event(env: Mapping[str, str]) -> EventInfo | ContextProblem:
    """The PR facts in `GITHUB_EVENT_PATH`, or an empty EventInfo when the variable is unset."""
    path = env.get("GITHUB_EVENT_PATH")
    if not path:
        return EventInfo()
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as exc:
        return ContextProblem(f"GITHUB_EVENT_PATH {path}: cannot read it ({exc.strerror}).")
    except (ValueError, UnicodeDecodeError):
        return ContextProblem(f"GITHUB_EVENT_PATH {path}: not JSON.")
    if not isinstance(data, dict):
        return ContextProblem(f"GITHUB_EVENT_PATH {path}: expected a JSON object.")
    pull = _table(data, "pull_request")
    issue = _table(data, "issue")
    number = pull.get("number", issue.get("number"))
    head = _table(pull, "head")
    head_repo = _table(head, "repo").get("full_name")
    return EventInfo(
        number=number if isinstance(number, int) else None,
        head_ref=_text(head, "ref"),
        head_repository=head_repo if isinstance(head_repo, str) else None,
        title=_text(pull, "title") or _text(issue, "title"),
        base_ref=_text(_table(pull, "base"), "ref"),
        body=_text(pull, "body") or _text(issue, "body"),
    )


def load_pr_context(
    env: Mapping[str, str], *, pr: int | None = None
) -> PullRequestContext | ContextProblem:
    """Everything needed to comment on the PR, or the first thing that is missing."""
    token = env.get("GITHUB_TOKEN", "").strip()
    if not token:
        return ContextProblem("GITHUB_TOKEN is not set; the workflow must pass it in `env:`.")
    repository = env.get("GITHUB_REPOSITORY", "").strip()
    if repository.count("/") != 1 or not all(repository.split("/")):
        shown = repository or "unset"
        return ContextProblem(f"GITHUB_REPOSITORY must be owner/name (it is {shown}).")
    event = read_event(env)
    if isinstance(event, ContextProblem):
        return event
    number = pr if pr is not None else event.number
    if number is None:
        return ContextProblem(
            "No pull request number: pass --pr N or run on a pull_request event "
            "(GITHUB_EVENT_PATH with pull_request.number)."
        )
    api_url = (env.get("GITHUB_API_URL") or DEFAULT_API_URL).strip().rstrip("/")
    return PullRequestContext(
        api_url=api_url,
        repository=repository,
        number=number,
        token=token,
        head_ref=event.head_ref,
        head_repository=event.head_repository,
    )


def _table(data: Mapping[str, Any], key: str) -> Mapping[str, Any]:
    value = data.get(key)
    return value if isinstance(value, dict) else {}


def _text(data: Mapping[str, Any], key: str) -> str | None:
    value = data.get(key)
    return value if isinstance(value, str) and value.strip() else None
