"""The pull request as the planner is told it, when not everything is known."""

from __future__ import annotations

from pathlib import Path

from ci_repos import commit_all, git, shapes_pr, write

from coder.ci.gitrefs import merge_base
from coder.ci.pr_context import (
    MAX_COMMITS,
    REVERT_IS_THE_LAST_RESORT,
    PullRequestFacts,
    gather_facts,
    render_context,
)


def test_without_a_base_the_context_says_the_change_is_unknown() -> None:
    text = render_context(PullRequestFacts(head="a" * 40, number=9, title="Fix\nit"))
    assert (
        text.splitlines()[0]
        == 'This task comes from a pull request: you are fixing PR #9 "Fix it".'
    )
    assert "No base was given (--base), so what the PR changed is not known." in text
    assert (
        REVERT_IS_THE_LAST_RESORT in text and "diff" not in text.split(REVERT_IS_THE_LAST_RESORT)[1]
    )


def test_a_base_that_moved_on_is_said_and_the_diff_starts_at_the_merge_base(
    tmp_path: Path,
) -> None:
    repo, base, head = shapes_pr(tmp_path)
    write(repo, {"other.txt": "later on main\n"})
    moved = commit_all(repo, "main moves on")
    since = merge_base(repo, moved, head)
    assert since == base
    facts = gather_facts(repo, head=head, base=moved, since=since, number=7, title=None)
    text = render_context(facts)
    assert f"its diff is from their merge base {base[:10]}" in text
    assert "other.txt" not in text and "shapes.py (modified, +2 −2)" in text


def test_long_histories_are_capped(tmp_path: Path) -> None:
    repo, base, _head = shapes_pr(tmp_path)
    git(repo, "checkout", "-q", "feature")
    for n in range(MAX_COMMITS + 3):
        git(repo, "commit", "-q", "--allow-empty", "-m", f"step {n}")
    head = git(repo, "rev-parse", "HEAD")
    facts = gather_facts(repo, head=head, base=base, since=base, number=None, title=None)
    assert len(facts.commits) == MAX_COMMITS and facts.more_commits == 4
    assert "- … and 4 more" in render_context(facts)
