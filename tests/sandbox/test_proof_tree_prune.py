"""A proof tree whose harness was SIGKILLed mid-proof leaves its directory in $TMPDIR and its
entry in `git worktree list`; the next run (or `coder clean`) removes both, and never a tree
whose owner still lives."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from sandbox.workspace import Workspace, live_runs
from tests.sandbox.gitrepos import make_repo, run_git

REPO_ROOT = Path(__file__).resolve().parents[2]
HOLD_A_PROOF = """
import sys, time
from pathlib import Path
from sandbox.proof_tree import tree_at
with tree_at(Path(sys.argv[1]), "HEAD", {"proof.txt": b"laid over"}) as tree:
    print(tree, flush=True)
    time.sleep(300)
"""


def _holding(repo: Path, tmp: Path) -> tuple[subprocess.Popen[str], Path]:
    child = subprocess.Popen(
        [sys.executable, "-c", HOLD_A_PROOF, str(repo)],
        cwd=REPO_ROOT,
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(REPO_ROOT), "TMPDIR": str(tmp)},
    )
    assert child.stdout is not None
    tree = Path(child.stdout.readline().strip())
    assert (tree / "proof.txt").read_text() == "laid over"
    return child, tree


def _listed(repo: Path, tree: Path) -> bool:
    return f"worktree {tree}\n" in run_git(repo, "worktree", "list", "--porcelain")


def test_a_proof_tree_left_by_a_killed_harness_is_pruned_by_the_next_run(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {"a.py": "A = 1\n"})
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    killed, left = _holding(repo, tmp)
    live, kept = _holding(repo, tmp)
    try:
        killed.kill()  # SIGKILL: no cleanup of its own
        killed.wait()
        assert left.is_dir() and _listed(repo, left)
        with Workspace.create(repo, "r1"):  # a later run starts here
            pass
        assert not left.parent.exists()
        assert not _listed(repo, left)
        assert kept.is_dir() and _listed(repo, kept)  # its owner lives
    finally:
        live.kill()
        live.wait()
    live_runs(repo)  # what `coder clean` asks first
    assert not kept.parent.exists() and not _listed(repo, kept)
    assert list(tmp.iterdir()) == []
