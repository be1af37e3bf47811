"""The branches attempts leave, settled once the selection is made.

While they run, attempts work on `coder/<run-id>/a<i>`. Git cannot hold a branch
`coder/<run-id>` beside branches under `coder/<run-id>/` (a ref cannot be both a name and a
directory of names), so once the attempts have ended each one's branch becomes
`coder/<run-id>-a<i>`: the branch of its own run id, which its run directory (`a<i>/`) names,
so `coder show`, `coder apply` and `coder resume` treat it as the run it is. Then
`coder/<run-id>` is made at the selected attempt's last commit (or, with none verified, the
closest one's), and the run's result says which.
"""

from __future__ import annotations

import json
from pathlib import Path

from coder.attempts.facts import load_result
from coder.attempts.job import label
from coder.loop.run.outputs import save_result
from sandbox.gitcli import git, git_ok

STATE_FILE = "state.json"


def attempt_branch(run_id: str, attempt: int) -> str:
    """Where attempt `attempt` works while it runs."""
    return f"coder/{run_id}/{label(attempt)}"


def settled_branch(run_id: str, attempt: int) -> str:
    """Where its branch is once the attempts have ended: its own run id's branch."""
    return f"coder/{run_id}-{label(attempt)}"


def settle(
    repo: Path, run_id: str, run_dir: Path, attempts: int, chosen_commit: str | None
) -> bool:
    """Rename every attempt's branch to its own run id's, then point `coder/<run-id>` at
    `chosen_commit`. Whether the run's branch was made."""
    for attempt in range(1, attempts + 1):
        working, settled = attempt_branch(run_id, attempt), settled_branch(run_id, attempt)
        if git_ok(["rev-parse", "--verify", "-q", f"refs/heads/{working}"], repo):
            git(["branch", "-q", "-m", working, settled], repo)
            _rename_in_run_files(run_dir / label(attempt), working, settled)
    if chosen_commit is None:
        return False
    git(["branch", "-q", f"coder/{run_id}", chosen_commit], repo)
    return True


def _rename_in_run_files(attempt_dir: Path, working: str, settled: str) -> None:
    """The attempt's result.json and state.json name the branch it now has."""
    result = load_result(attempt_dir)
    if result is not None and result.branch == working:
        result.branch = settled
        save_result(attempt_dir, result)
    state_file = attempt_dir / STATE_FILE
    try:
        state = json.loads(state_file.read_text())
    except (OSError, ValueError):
        return
    if isinstance(state, dict) and state.get("branch") == working:
        state["branch"] = settled
        state_file.write_text(json.dumps(state, indent=2) + "\n", encoding="utf-8")
