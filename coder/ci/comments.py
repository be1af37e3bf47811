"""One comment per PR per bot job, found again by a hidden marker and updated in place.

A review that posts a new comment on every push buries the conversation; the marker
(an HTML comment GitHub does not render) lets each run overwrite its own earlier report.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import httpx

from coder.ci.context import PullRequestContext
from coder.ci.github import GitHubClient, GitHubError, GitHubFailure, redact

REVIEW_MARKER = "<!-- coder-ci-review -->"
FIX_MARKER = "<!-- coder-ci-fix -->"

MAX_BODY_CHARS = 65_000
"""GitHub rejects comment bodies over 65,536 characters."""


@dataclass(frozen=True)
class PostOutcome:
    action: Literal["created", "updated", "failed"]
    comment_id: int | None = None
    url: str = ""
    failure: GitHubFailure | None = None

    @property
    def line(self) -> str:
        """What the CLI prints about the post."""
        if self.failure is not None:
            return self.failure.message
        return f"{self.action} comment {self.comment_id} {self.url}".rstrip()


def upsert_comment(
    ctx: PullRequestContext,
    body: str,
    *,
    marker: str,
    transport: httpx.BaseTransport | None = None,
) -> PostOutcome:
    """Update the comment carrying `marker`, or create one; never raises for GitHub's answers."""
    text = with_marker(body, marker)
    try:
        with GitHubClient(ctx.api_url, ctx.token, transport=transport) as client:
            existing = next(
                (c for c in client.list_issue_comments(ctx.repository, ctx.number)
                 if marker in (c.body or "")),
                None,
            )
            if existing is not None:
                updated = client.update_issue_comment(ctx.repository, existing.id, text)
                return PostOutcome("updated", updated.id, updated.html_url)
            created = client.create_issue_comment(ctx.repository, ctx.number, text)
            return PostOutcome("created", created.id, created.html_url)
    except GitHubError as exc:
        failure = exc.failure
        clean = redact(failure.message, ctx.token)
        return PostOutcome("failed", failure=GitHubFailure(failure.kind, clean, failure.status))


def with_marker(body: str, marker: str) -> str:
    """The body, starting with the marker, cut to what GitHub accepts."""
    text = body if body.startswith(marker) else f"{marker}\n{body}"
    if len(text) <= MAX_BODY_CHARS:
        return text
    note = "\n\n…(report cut to fit a GitHub comment; run `coder ci review` for all of it)\n"
    return text[: MAX_BODY_CHARS - len(note)] + note
