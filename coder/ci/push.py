"""Pushing a verified commit to a remote branch, and saying why when it cannot be done.

The push runs in the user's repository, so the credentials CI configured there (for example
the `http.extraheader` that actions/checkout leaves) are the ones used. Whatever git prints
is scrubbed of URL credentials and the token before it reaches a person.
"""

from __future__ import annotations

import os
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

from coder.ci.github import redact

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
    proc = subprocess.run(
        ["git", "-C", str(repo), "remote", "get-url", remote], capture_output=True, text=True
    )
    return proc.returncode == 0


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
    args = ["git", "-C", str(repo), "push", "--porcelain", remote, refspec]
    try:
        proc = subprocess.run(
            args,
            capture_output=True,
            text=True,
            timeout=timeout_s,
            env=_no_prompt_env(),
        )
    except subprocess.TimeoutExpired:
        return PushResult(
            False, remote, branch, commit, f"git push timed out after {timeout_s:.0f} s"
        )
    if proc.returncode == 0:
        return PushResult(
            True, remote, branch, commit, f"pushed {commit[:10]} to {remote}/{branch}"
        )
    lines = [line for line in (proc.stderr + proc.stdout).splitlines() if line.strip()]
    reason = next((line for line in lines if "rejected" in line or "fatal" in line), None)
    reason = reason or (lines[-1] if lines else f"exit {proc.returncode}")
    return PushResult(
        False,
        remote,
        branch,
        commit,
        scrub(f"git push to {remote}/{branch} failed: {reason.strip()}", token),
    )


def _no_prompt_env() -> dict[str, str]:
    """The caller's environment, with git told never to wait for a password on a terminal."""
    return {**os.environ, "GIT_TERMINAL_PROMPT": "0"}
