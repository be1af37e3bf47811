"""What a confined command sees of the user's git directory: what the run's worktree needs,
never the user's staged content, stashes, reflogs, hooks or other files under `.git/`.
Real git, real bubblewrap."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

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


_PACK_DIG = (
    r"""
git cat-file --batch-all-objects --batch 2>&1 | grep -a -c SECR"""
    + r"""ET
python3 - <<'PY'
import os, zlib
for root, _dirs, files in os.walk("/run/coder/git"):
    for name in files:
        path = os.path.join(root, name)
        try:
            data = open(path, "rb").read()
        except OSError:
            continue
        found = b"SECRET" in data
        for start in range(len(data)):  # every zlib stream in the file, wherever it starts
            try:
                found = found or b"SECRET" in zlib.decompressobj().decompress(data[start:], 1 << 16)
            except zlib.error:
                pass
        if found:
            print("FOUND", path)
PY
echo "== old"; git show HEAD~1:f.txt; echo "== log"; git log -p --format=%s | grep -c '^diff'
echo "== status"; git status --porcelain
"""
)


@pytest.mark.parametrize("cruft", [False, True], ids=["gc", "gc-with-cruft-packs"])
def test_staged_stashed_and_reflog_content_packed_by_gc_is_unreadable(
    visible_base: Path, cruft: bool
) -> None:
    repo = make_repo(visible_base / "repo", {"README.md": "hi\n", "f.txt": "old\n"})
    write_files(repo, {"f.txt": "new\n"})
    run_git(repo, "commit", "-qam", "second")
    write_files(repo, {"leak.txt": "AMENDED-SECRET-3\n"})
    run_git(repo, "add", "leak.txt")
    run_git(repo, "commit", "-qm", "third")
    run_git(repo, "reset", "-q", "--hard", "HEAD~1")  # the leak lives on in the reflog
    write_files(repo, {".env": "API_KEY=STASHED-SECRET-1\n"})
    run_git(repo, "stash", "push", "-u", "-q")
    write_files(repo, {"app.py": "A = 'STAGED-SECRET-2'\n", "f.txt": "old\n"})
    run_git(repo, "add", "app.py", "f.txt")  # f.txt staged as it was two commits ago
    run_git(repo, "checkout", "-q", "--", "app.py")
    if cruft:
        write_files(repo, {"gone.txt": "DANGLING-SECRET-4\n"})
        run_git(repo, "add", "gone.txt")
        run_git(repo, "rm", "-q", "--cached", "gone.txt")
        (repo / "gone.txt").unlink()
    run_git(repo, *(["-c", "gc.cruftPacks=true"] if cruft else []), "gc", "-q")
    store = repo / ".git" / "objects"
    assert not [p for p in store.glob("??/*")], "gc left loose objects"
    host = subprocess.run(
        ["git", "cat-file", "--batch-all-objects", "--batch"], cwd=repo, capture_output=True
    ).stdout
    for secret in (b"STASHED-SECRET-1", b"STAGED-SECRET-2", b"AMENDED-SECRET-3"):
        assert secret in host  # packed, as git does on its own
    if cruft:
        assert b"DANGLING-SECRET-4" in host and list(store.glob("pack/*.mtimes"))
    with confined(repo) as box:
        result = box.run(_PACK_DIG, timeout_s=120)
    out = result.output
    assert "FOUND" not in out and out.split("\n", 1)[0].strip() == "0", out
    old, log = out.split("== old")[1].split("== log")
    assert old.split() == ["old"], out
    log, status = log.split("== status")
    assert log.split() == ["3"], out  # every diff of both commits: nothing public withheld
    assert status.split() == [], out


def test_a_worktree_removed_while_its_index_is_read_hides_nothing_and_raises_nothing(
    tmp_path: Path,
) -> None:
    """Attempts run side by side: one ends and its worktree goes while another run starts and
    reads every worktree's index (an internal error stopped attempt 3 of a run of three)."""
    from sandbox.gitprivate import _staged

    assert _staged(tmp_path / "worktrees" / "gone") == set()
