"""What a confined command sees of the user's git directory: what the run's worktree needs,
never the user's staged content, stashes, reflogs, hooks or other files under `.git/`.
Real git, real bubblewrap."""

from __future__ import annotations

from pathlib import Path

from tests.sandbox.confined import confined, needs_bwrap
from tests.sandbox.gitrepos import make_repo, run_git, write_files

pytestmark = needs_bwrap

_DIG = (
    r"""
cat /run/coder/git/index 2>&1 | head -c 300; echo
ls -A /run/coder/git /run/coder/git/refs /run/coder/git/worktrees
git show 'stash@{0}^3:.env' 2>&1 | head -3
git --git-dir=/run/coder/git show 'stash@{0}^3:.env' 2>&1 | head -3
git cat-file --batch-all-objects --batch 2>&1 | grep -a -c SECR"""
    + r"""ET
python3 - <<'PY'
import os, zlib
for root, _dirs, files in os.walk("/run/coder/git"):
    for name in files:
        try:
            data = open(os.path.join(root, name), "rb").read()
        except OSError:
            continue
        try:
            data += zlib.decompress(data)
        except zlib.error:
            pass
        if b"SECRET" in data:
            print("FOUND", os.path.join(root, name))
PY
echo "== status"; git status --porcelain; echo "== log"; git log --format=%s
"""
)


def test_staged_and_stashed_content_is_unreadable_while_git_works(visible_base: Path) -> None:
    repo = make_repo(visible_base / "repo", {"README.md": "hi\n", "app.py": "A = 1\n"})
    (repo / ".git" / "hooks" / "pre-commit").write_text("#!/bin/sh\necho HOOK-SECRET\n")
    (repo / ".env").write_text("API_KEY=STASHED-SECRET-1\n")
    run_git(repo, "stash", "push", "-u", "-q")
    assert not (repo / ".env").exists()
    write_files(repo, {"app.py": "A = 'STAGED-SECRET-2'\n"})
    run_git(repo, "add", "app.py")
    run_git(repo, "checkout", "-q", "--", "app.py")
    with confined(repo) as box:
        (box.worktree / "README.md").write_text("changed\n")
        result = box.run(_DIG)
    out = result.output
    assert "SECRET" not in out, out
    listing = out.split("== status")[0].splitlines()
    for hidden in ("index", "hooks", "logs", "stash", "ORIG_HEAD"):
        assert hidden not in listing, out
    status, log = out.split("== status")[1].split("== log")
    assert status.split() == ["M", "README.md"], out
    assert log.split() == ["initial"], out
