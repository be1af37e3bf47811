"""Pushing a verified commit to a remote branch, and saying why when it cannot be done.

The push runs in the user's repository, so the credentials CI configured there (for example
the `http.extraheader` that actions/checkout leaves) are the ones used. Whatever git prints
is scrubbed of URL credentials and the token before it reaches a person.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from coder.ci.github import redact
from coder.ci.gitrefs import git_run, git_url

_URL_CREDENTIALS = re.compile(r"(?P<scheme>[a-z][a-z0-9+.-]*://)[^/@\s]+@", re.IGNORECASE)


@dataclass(frozen=True)
class PushResult:
    ok: bool
    remote: str
    branch: str
    commit: str
    message: str
    """One line: what was pushed, or git's reason it was not."""


def scrub(text: str, token: str | None) -> str:
    """Text safe to print: no `user:secret@` in URLs, no token."""
    return redact(_URL_CREDENTIALS.sub(r"\g<scheme>***@", text), token)


def remote_exists(repo: Path, remote: str) -> bool:
    return git_url(repo, remote) is not None


def push_commit(
    repo: Path,
    remote: str,
    commit: str,
    branch: str,
    *,
    force: bool,
    token: str | None = None,
    timeout_s: float = 120.0,
) -> PushResult:
    """Point `branch` on `remote` at `commit`. `force` is for the bot's own branch only, which
    an earlier run may have left on an older head."""
    refspec = f"{'+' if force else ''}{commit}:refs/heads/{branch}"
    done = git_run(repo, "push", "--porcelain", remote, refspec, timeout_s=timeout_s)
    if done.timed_out:
        return PushResult(
            False, remote, branch, commit, f"git push timed out after {timeout_s:.0f} s"
        )
    if done.returncode == 0:
        return PushResult(
            True, remote, branch, commit, f"pushed {commit[:10]} to {remote}/{branch}"
        )
    lines = [line for line in done.output.splitlines() if line.strip()]
    reason = next((line for line in lines if "rejected" in line or "fatal" in line), None)
    reason = reason or (lines[-1] if lines else f"exit {done.returncode}")
    return PushResult(
        False,
        remote,
        branch,
        commit,
        scrub(f"git push to {remote}/{branch} failed: {reason.strip()}", token),
    )
