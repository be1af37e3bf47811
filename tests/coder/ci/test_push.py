from __future__ import annotations

from pathlib import Path

from ci_repos import commit_all, git, python_pr, write

from coder.ci.push import push_commit, remote_exists, scrub


def _with_remote(tmp_path: Path) -> tuple[Path, Path, str, str]:
    repo, base, head = python_pr(tmp_path)
    remote = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", str(remote))
    git(repo, "remote", "add", "origin", str(remote))
    git(repo, "push", "-q", "origin", "main", "feature")
    return repo, remote, base, head


def test_push_creates_and_force_moves_the_bots_branch(tmp_path: Path) -> None:
    repo, remote, base, head = _with_remote(tmp_path)
    first = push_commit(repo, "origin", head, "coder/fix-7", force=True)
    assert first.ok, first.message
    assert git(remote, "rev-parse", "refs/heads/coder/fix-7") == head
    again = push_commit(repo, "origin", base, "coder/fix-7", force=True)
    assert again.ok and git(remote, "rev-parse", "refs/heads/coder/fix-7") == base


def test_push_without_force_refuses_to_rewind_a_branch(tmp_path: Path) -> None:
    repo, remote, base, head = _with_remote(tmp_path)
    refused = push_commit(repo, "origin", base, "feature", force=False)
    assert not refused.ok
    assert "rejected" in refused.message and "\n" not in refused.message
    assert git(remote, "rev-parse", "refs/heads/feature") == head


def test_push_fast_forwards_without_force(tmp_path: Path) -> None:
    repo, remote, base, head = _with_remote(tmp_path)
    git(repo, "checkout", "-q", "feature")
    write(repo, {"extra.py": "def triple(x):\n    return x * 3\n"})
    fixed = commit_all(repo, "fix")
    assert push_commit(repo, "origin", fixed, "feature", force=False).ok
    assert git(remote, "rev-parse", "refs/heads/feature") == fixed


def test_failure_message_hides_url_credentials_and_token(tmp_path: Path) -> None:
    repo, _remote, _base, head = _with_remote(tmp_path)
    token = "ghs_secretvalue123"
    git(repo, "remote", "add", "leaky", f"http://x-access-token:{token}@127.0.0.1:9/a/b.git")
    result = push_commit(repo, "leaky", head, "coder/fix-1", force=True, token=token, timeout_s=30)
    assert not result.ok
    assert token not in result.message
    assert remote_exists(repo, "leaky") and not remote_exists(repo, "nope")


def test_scrub() -> None:
    text = "fatal: https://user:pa55@github.com/a/b and tok123 again"
    assert scrub(text, "tok123") == "fatal: https://***@github.com/a/b and *** again"
