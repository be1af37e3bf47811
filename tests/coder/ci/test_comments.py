from __future__ import annotations

import pytest
from ci_fake_github import Failure, FakeGitHub

from coder.ci.comments import REVIEW_MARKER, upsert_comment, with_marker
from coder.ci.context import PullRequestContext


def _ctx(github: FakeGitHub, number: int = 5, token: str | None = None) -> PullRequestContext:
    return PullRequestContext(
        api_url=github.url,
        repository=github.repository,
        number=number,
        token=token or github.token,
    )


def test_first_post_creates_then_second_updates_same_comment(github: FakeGitHub) -> None:
    github.seed(5, ["a human comment"])
    first = upsert_comment(_ctx(github), "report one", marker=REVIEW_MARKER)
    second = upsert_comment(_ctx(github), "report two", marker=REVIEW_MARKER)
    assert first.action == "created" and second.action == "updated"
    assert first.comment_id == second.comment_id
    bodies = [c["body"] for c in github.comments[5]]
    assert bodies == ["a human comment", f"{REVIEW_MARKER}\nreport two"]
    methods = [(r.method, r.path) for r in github.requests]
    assert methods == [
        ("GET", "/repos/acme/widgets/issues/5/comments"),
        ("POST", "/repos/acme/widgets/issues/5/comments"),
        ("GET", "/repos/acme/widgets/issues/5/comments"),
        ("PATCH", f"/repos/acme/widgets/issues/comments/{first.comment_id}"),
    ]
    assert github.requests[0].query["per_page"] == ["100"]
    assert all(r.headers["authorization"] == f"Bearer {github.token}" for r in github.requests)


def test_marker_on_second_page_is_found_through_link_header(github: FakeGitHub) -> None:
    github.seed(9, [f"chatter {i}" for i in range(130)])
    github.seed(9, [f"{REVIEW_MARKER}\nold report"])
    outcome = upsert_comment(_ctx(github, 9), "new report", marker=REVIEW_MARKER)
    assert outcome.action == "updated"
    gets = [r for r in github.requests if r.method == "GET"]
    assert len(gets) == 2 and gets[1].query["page"] == ["2"]
    assert github.comments[9][-1]["body"] == f"{REVIEW_MARKER}\nnew report"
    assert len(github.comments[9]) == 131


def test_other_markers_are_not_confused(github: FakeGitHub) -> None:
    github.seed(5, ["<!-- coder-ci-fix -->\nfix report"])
    outcome = upsert_comment(_ctx(github), "review", marker=REVIEW_MARKER)
    assert outcome.action == "created"
    assert len(github.comments[5]) == 2


@pytest.mark.parametrize(
    ("failure", "kind", "words"),
    [
        (Failure(401, body={"message": "Bad credentials"}), "unauthorized", "401 Unauthorized"),
        (Failure(403), "forbidden", "pull-requests: write"),
        (Failure(404), "not_found", "404 Not Found"),
        (
            Failure(403, headers={"x-ratelimit-remaining": "0", "x-ratelimit-reset": "1700000000"}),
            "rate_limited",
            "rate limit",
        ),
        (Failure(429, headers={"Retry-After": "30"}), "rate_limited", "retry after 30 s"),
        (Failure(502, body={"message": "upstream"}), "http", "502"),
    ],
)
def test_each_error_status_gives_one_clear_line_without_the_token(
    github: FakeGitHub, failure: Failure, kind: str, words: str
) -> None:
    failure.body = {**failure.body, "echo": github.token, "message": f"bad {github.token}"}
    github.fail = failure
    outcome = upsert_comment(_ctx(github), "report", marker=REVIEW_MARKER)
    assert outcome.action == "failed" and outcome.failure is not None
    assert outcome.failure.kind == kind
    assert words in outcome.line
    assert "\n" not in outcome.line
    assert github.token not in outcome.line
    assert github.token not in repr(outcome)


def test_wrong_token_is_refused_by_the_server(github: FakeGitHub) -> None:
    outcome = upsert_comment(_ctx(github, token="not-the-token"), "x", marker=REVIEW_MARKER)
    assert outcome.failure is not None and outcome.failure.kind == "unauthorized"
    assert not github.comments


def test_unreachable_server_is_one_line() -> None:
    ctx = PullRequestContext(
        api_url="http://127.0.0.1:9", repository="a/b", number=1, token="secret-tok"
    )
    outcome = upsert_comment(ctx, "x", marker=REVIEW_MARKER)
    assert outcome.failure is not None and outcome.failure.kind == "connection"
    assert "secret-tok" not in outcome.line and "\n" not in outcome.line


def test_next_link_to_another_host_is_not_followed(github: FakeGitHub) -> None:
    github.seed(5, [f"c{i}" for i in range(120)])
    github.link_base = "http://evil.example"
    outcome = upsert_comment(_ctx(github), "x", marker=REVIEW_MARKER)
    assert outcome.failure is not None and "not following" in outcome.line
    assert len(github.requests) == 1


def test_long_body_is_cut_to_fit() -> None:
    text = with_marker("x" * 100_000, REVIEW_MARKER)
    assert text.startswith(REVIEW_MARKER) and len(text) <= 65_000


HUMAN = {"login": "mallory", "type": "User"}


def test_spoofed_marker_by_a_person_is_ignored_and_a_new_comment_made(github: FakeGitHub) -> None:
    github.seed(5, [f"{REVIEW_MARKER}\nfake all-clear"], user=HUMAN)
    outcome = upsert_comment(_ctx(github), "real report", marker=REVIEW_MARKER, env={})
    assert outcome.action == "created"
    bodies = [c["body"] for c in github.comments[5]]
    assert bodies == [f"{REVIEW_MARKER}\nfake all-clear", f"{REVIEW_MARKER}\nreal report"]
    assert not [r for r in github.requests if r.method == "PATCH"]


def test_the_bots_own_comment_is_updated_past_a_spoof(github: FakeGitHub) -> None:
    github.seed(5, [f"{REVIEW_MARKER}\nspoof"], user=HUMAN)
    github.seed(5, [f"{REVIEW_MARKER}\nold report"])
    outcome = upsert_comment(_ctx(github), "new report", marker=REVIEW_MARKER, env={})
    assert outcome.action == "updated" and outcome.comment_id == github.comments[5][1]["id"]
    assert [c["body"] for c in github.comments[5]] == [
        f"{REVIEW_MARKER}\nspoof",
        f"{REVIEW_MARKER}\nnew report",
    ]


def test_configured_login_adopts_a_personal_tokens_comment(github: FakeGitHub) -> None:
    github.poster = {"login": "release-robot", "type": "User"}
    github.seed(5, [f"{REVIEW_MARKER}\nspoof"], user=HUMAN)
    github.seed(5, [f"{REVIEW_MARKER}\nold"])
    env = {"CODER_BOT_LOGIN": "Release-Robot"}
    outcome = upsert_comment(_ctx(github), "new", marker=REVIEW_MARKER, env=env)
    assert outcome.action == "updated" and outcome.comment_id == github.comments[5][1]["id"]
    without = upsert_comment(_ctx(github), "again", marker=REVIEW_MARKER, env={})
    assert without.action == "created"


def test_comment_without_author_is_not_adopted(github: FakeGitHub) -> None:
    github.seed(5, [f"{REVIEW_MARKER}\nghost"])
    github.comments[5][0].pop("user")
    outcome = upsert_comment(_ctx(github), "report", marker=REVIEW_MARKER, env={})
    assert outcome.action == "created"


def test_token_in_the_body_is_not_posted_in_any_form(github: FakeGitHub) -> None:
    import base64

    header = base64.b64encode(f"x-access-token:{github.token}".encode()).decode()
    body = f"test log: GITHUB_TOKEN={github.token}\nextraheader = AUTHORIZATION: basic {header}"
    upsert_comment(_ctx(github), body, marker=REVIEW_MARKER, env={})
    posted = github.comments[5][0]["body"]
    assert github.token not in posted and header.rstrip("=") not in posted
    assert "AUTHORIZATION: basic ***" in posted
