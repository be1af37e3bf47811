"""One comment per PR per bot job, found again by a hidden marker and updated in place.

A review that posts a new comment on every push buries the conversation; the marker
(an HTML comment GitHub does not render) lets each run overwrite its own earlier report.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from coder.ci.context import PullRequestContext
from coder.ci.github import GitHubClient, GitHubError, GitHubFailure, IssueComment, redact

BOT_LOGIN_VAR = "CODER_BOT_LOGIN"
"""The login whose marked comments are the bot's, for a bot run with a personal token."""

REVIEW_MARKER = "<!-- coder-ci-review -->"
FIX_MARKER = "<!-- coder-ci-fix -->"

MAX_BODY_CHARS = 65_000
"""GitHub rejects comment bodies over 65,536 characters."""


@dataclass(frozen=True)
class PostOutcome:
    action: Literal["created", "updated", "skipped", "failed"]
    comment_id: int | None = None
    url: str = ""
    failure: GitHubFailure | None = None

    @property
    def line(self) -> str:
        """What the CLI prints about the post."""
        if self.failure is not None:
            return self.failure.message
        if self.action == "skipped":
            return "no earlier comment to update; none created"
        return f"{self.action} comment {self.comment_id} {self.url}".rstrip()


def upsert_comment(
    ctx: PullRequestContext,
    body: str,
    *,
    marker: str,
    create: bool = True,
    env: Mapping[str, str] | None = None,
) -> PostOutcome:
    """Update the bot's comment carrying `marker`, or create one (unless `create` is False, for
    news worth correcting an old comment with but not worth a new one); never raises for
    GitHub's answers. The body is scrubbed of the token before it leaves."""
    text = with_marker(redact(body, ctx.token), marker)
    bot_login = (os.environ if env is None else env).get(BOT_LOGIN_VAR, "").strip()
    try:
        with GitHubClient(ctx.api_url, ctx.token) as client:
            comments = client.list_issue_comments(ctx.repository, ctx.number)
            existing = next((c for c in comments if _is_ours(c, marker, bot_login)), None)
            if existing is not None:
                updated = client.update_issue_comment(ctx.repository, existing.id, text)
                return PostOutcome("updated", updated.id, updated.html_url)
            if not create:
                return PostOutcome("skipped")
            created = client.create_issue_comment(ctx.repository, ctx.number, text)
            return PostOutcome("created", created.id, created.html_url)
    except GitHubError as exc:
        failure = exc.failure
        clean = redact(failure.message, ctx.token)
        return PostOutcome("failed", failure=GitHubFailure(failure.kind, clean, failure.status))


def _is_ours(comment: IssueComment, marker: str, bot_login: str) -> bool:
    """A marked comment by a bot account (GITHUB_TOKEN posts as `github-actions[bot]`) or by
    the configured login: anyone can type the marker, and adopting a person's comment would
    overwrite it, or fail with 403 and leave the PR without a report."""
    if not _carries(comment.body, marker) or comment.user is None:
        return False
    if bot_login and comment.user.login.lower() == bot_login.lower():
        return True
    return comment.user.type == "Bot"


def _carries(body: str | None, marker: str) -> bool:
    """Only a body that starts with the marker is ours: a person quoting it is not."""
    return (body or "").lstrip().startswith(marker)


def with_marker(body: str, marker: str) -> str:
    """The body, starting with the marker, cut to what GitHub accepts."""
    text = body if body.startswith(marker) else f"{marker}\n{body}"
    if len(text) <= MAX_BODY_CHARS:
        return text
    note = "\n\n…(report cut to fit a GitHub comment; run `coder ci review` for all of it)\n"
    return text[: MAX_BODY_CHARS - len(note)] + note
