"""The few GitHub REST endpoints the PR bot uses, over httpx.

Every failure becomes one `GitHubFailure` with a line a person can act on. The token goes into
one request header and nowhere else: failure messages are built from status codes and are
scrubbed of the token anyway, so a server that echoes it back cannot leak it into a log.
"""

from __future__ import annotations

import base64
import time
from dataclasses import dataclass
from typing import Any, Literal, TypeVar
from urllib.parse import urlsplit

import httpx
from pydantic import BaseModel, ConfigDict, ValidationError

FailureKind = Literal[
    "unauthorized", "forbidden", "not_found", "rate_limited", "http", "connection", "bad_response"
]

M = TypeVar("M", bound=BaseModel)

MIN_SECRET_CHARS = 8

MAX_COMMENT_PAGES = 50
"""Pages of 100 comments read before giving up: a PR with 5,000 comments is not a PR."""


@dataclass(frozen=True)
class GitHubFailure:
    kind: FailureKind
    message: str
    """One line, token-free, saying what went wrong and what to check."""
    status: int | None = None


class GitHubError(Exception):
    """Raised inside this package only; the boundary functions turn it into a result."""

    def __init__(self, failure: GitHubFailure) -> None:
        super().__init__(failure.message)
        self.failure = failure


class CommentAuthor(BaseModel):
    model_config = ConfigDict(extra="ignore")

    login: str = ""
    type: str = ""
    """`Bot` for apps such as `github-actions[bot]`, `User` for people."""


class IssueComment(BaseModel):
    model_config = ConfigDict(extra="ignore")

    id: int
    body: str | None = ""
    html_url: str = ""
    user: CommentAuthor | None = None
    """Who wrote it; None when GitHub leaves it out (a deleted account)."""


def redact(text: str, secret: str | None) -> str:
    """The text with every occurrence of the secret replaced, in the clear and in the base64
    forms git's credentials take (`http.extraheader: AUTHORIZATION: basic …` as
    actions/checkout writes it), which a test reading `.git/config` could print."""
    if not secret:
        return text
    for form in secret_forms(secret):
        text = text.replace(form, "***")
    return text


def secret_forms(secret: str) -> list[str]:
    """The secret and its base64 encodings, longest first, as they could appear in output."""
    forms = {secret}
    for prefix in ("x-access-token:", ""):
        forms.add(base64.b64encode(f"{prefix}{secret}".encode()).decode().rstrip("="))
    return sorted(forms, key=len, reverse=True)


class GitHubClient:
    """A thin client: one method per endpoint, failures raised as `GitHubError`."""

    def __init__(
        self,
        api_url: str,
        token: str,
        *,
        timeout_s: float = 20.0,
    ) -> None:
        self._api_url = api_url.rstrip("/")
        self._token = token
        self._http = httpx.Client(
            base_url=self._api_url,
            timeout=timeout_s,
            headers={
                "Authorization": f"Bearer {token}",
                "Accept": "application/vnd.github+json",
                "X-GitHub-Api-Version": "2022-11-28",
                "User-Agent": "coder-ci",
            },
            follow_redirects=False,
        )

    def __enter__(self) -> GitHubClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._http.close()

    def list_issue_comments(self, repository: str, number: int) -> list[IssueComment]:
        """Every comment on the issue or PR, following the Link header page by page."""
        url: str | None = f"/repos/{repository}/issues/{number}/comments"
        params: dict[str, Any] | None = {"per_page": 100}
        comments: list[IssueComment] = []
        for _ in range(MAX_COMMENT_PAGES):
            if url is None:
                return comments
            response = self._request("GET", url, params=params, what=f"{repository}#{number}")
            comments.extend(_parse_list(response, IssueComment, redact_with=self._token))
            url = self._next_page(response)
            params = None
        return comments

    def create_issue_comment(self, repository: str, number: int, body: str) -> IssueComment:
        response = self._request(
            "POST",
            f"/repos/{repository}/issues/{number}/comments",
            json={"body": body},
            what=f"{repository}#{number}",
        )
        return _parse_one(response, IssueComment, redact_with=self._token)

    def update_issue_comment(self, repository: str, comment_id: int, body: str) -> IssueComment:
        response = self._request(
            "PATCH",
            f"/repos/{repository}/issues/comments/{comment_id}",
            json={"body": body},
            what=f"{repository} comment {comment_id}",
        )
        return _parse_one(response, IssueComment, redact_with=self._token)

    def _next_page(self, response: httpx.Response) -> str | None:
        """The next page's URL, only if it points back at the API we were given.

        Following a Link to another host would send the token there.
        """
        target = response.links.get("next", {}).get("url")
        if not target:
            return None
        if _origin(target) != _origin(self._api_url):
            raise GitHubError(
                GitHubFailure(
                    "bad_response",
                    f"GitHub's next-page link points away from {self._api_url}; not following it.",
                )
            )
        return target

    def _request(
        self,
        method: str,
        url: str,
        *,
        what: str,
        params: dict[str, Any] | None = None,
        json: dict[str, Any] | None = None,
    ) -> httpx.Response:
        try:
            response = self._http.request(method, url, params=params, json=json)
        except httpx.TimeoutException:
            raise GitHubError(
                GitHubFailure("connection", f"GitHub at {self._api_url} did not answer in time.")
            ) from None
        except httpx.HTTPError as exc:
            reason = redact(str(exc), self._token) or type(exc).__name__
            raise GitHubError(
                GitHubFailure("connection", f"Cannot reach GitHub at {self._api_url}: {reason}.")
            ) from None
        if response.is_success:
            return response
        raise GitHubError(describe_failure(response, method=method, what=what, token=self._token))


def describe_failure(
    response: httpx.Response, *, method: str, what: str, token: str | None
) -> GitHubFailure:
    """The one line a person needs for a failed call, chosen by status and rate-limit headers."""
    status = response.status_code
    rate = _rate_limit_line(response)
    if rate is not None:
        return GitHubFailure("rate_limited", rate, status)
    if status == 401:
        message = (
            "GitHub said 401 Unauthorized: GITHUB_TOKEN is missing, expired or not a valid token."
        )
        return GitHubFailure("unauthorized", message, status)
    if status == 403:
        message = (
            f"GitHub said 403 Forbidden for {what}: the token may not write there; "
            "give the workflow `permissions: pull-requests: write`."
        )
        return GitHubFailure("forbidden", message, status)
    if status == 404:
        message = (
            f"GitHub said 404 Not Found for {what}: check GITHUB_REPOSITORY and the PR number, "
            "and that the token can see the repository."
        )
        return GitHubFailure("not_found", message, status)
    detail = _server_message(response)
    tail = f": {detail}" if detail else ""
    message = redact(
        f"GitHub said {status} {response.reason_phrase} to {method} {what}{tail}", token
    )
    return GitHubFailure("http", message.replace("\n", " ")[:300], status)


def _rate_limit_line(response: httpx.Response) -> str | None:
    status = response.status_code
    if status not in (403, 429):
        return None
    remaining = response.headers.get("x-ratelimit-remaining")
    retry_after = response.headers.get("retry-after")
    if status == 403 and remaining != "0" and retry_after is None:
        return None
    if retry_after is not None and retry_after.strip().isdigit():
        when = f"retry after {int(retry_after)} s"
    else:
        when = _reset_phrase(response.headers.get("x-ratelimit-reset"))
    return f"GitHub rate limit reached (HTTP {status}); {when}."


def _reset_phrase(reset: str | None) -> str:
    if reset is None or not reset.strip().isdigit():
        return "retry later"
    wait = max(0, int(reset) - int(time.time()))
    stamp = time.strftime("%H:%M:%S UTC", time.gmtime(int(reset)))
    return f"it resets at {stamp} (in {wait} s)"


def _server_message(response: httpx.Response) -> str:
    try:
        data = response.json()
    except ValueError:
        return ""
    if isinstance(data, dict) and isinstance(data.get("message"), str):
        return str(data["message"])
    return ""


def _parse_one(response: httpx.Response, model: type[M], *, redact_with: str) -> M:
    try:
        return model.model_validate(response.json())
    except (ValueError, ValidationError):
        raise GitHubError(_bad_response(response, redact_with)) from None


def _parse_list(response: httpx.Response, model: type[M], *, redact_with: str) -> list[M]:
    try:
        data = response.json()
        if not isinstance(data, list):
            raise ValueError("not a list")
        return [model.model_validate(item) for item in data]
    except (ValueError, ValidationError):
        raise GitHubError(_bad_response(response, redact_with)) from None


def _bad_response(response: httpx.Response, token: str) -> GitHubFailure:
    where = redact(response.request.url.path, token)
    return GitHubFailure(
        "bad_response", f"GitHub sent an answer to {where} that is not the expected JSON.", None
    )


def _origin(url: str) -> tuple[str, str]:
    parts = urlsplit(url)
    return parts.scheme.lower(), parts.netloc.lower()
