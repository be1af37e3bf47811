"""The index reader against git's own listing, in every index version git writes."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from gitrepo import git, make_repo

from summarizers.repofiles import blob_id, read_index, tracked_files

FILES = {
    "README.md": "hello\n",
    "src/pkg/deep/module.py": "def f():\n    return 1\n",
    "src/pkg/deep/module_two.py": "X = 2\n",
    "src/tool.sh": "#!/bin/sh\necho hi\n",
    "naïve/ünïcode.txt": "ü\n",
    "a" * 200 + "/" + "b" * 200 + ".txt": "long\n",
}


def git_listing(repo: Path) -> dict[str, str]:
    """What `git ls-files -s` says: path -> blob id, regular files only."""
    out = {}
    for line in git(repo, "-c", "core.quotepath=off", "ls-files", "-s").splitlines():
        meta, path = line.split("\t", 1)
        mode, sha, _stage = meta.split()
        if mode in ("100644", "100755"):
            out[path] = sha
    return out


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    repo = make_repo(tmp_path / "repo", FILES)
    os.chmod(repo / "src/tool.sh", 0o755)
    (repo / "link.py").symlink_to("src/pkg/deep/module.py")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "mode and link")
    return repo


@pytest.mark.parametrize("version", ["2", "3", "4"])
def test_every_index_version_reads_as_git_lists_it(repo: Path, version: str) -> None:
    git(repo, "update-index", "--index-version", version)
    (repo / "new.py").write_text("Y = 1\n")
    git(repo, "add", "-N", "new.py")  # intent-to-add: an extended-flag entry (v3 and up)
    listed = {f.path: f.blob_id for f in tracked_files(repo)}
    # the intent-to-add entry records no content yet: its id is that of the bytes on disk
    assert listed == {**git_listing(repo), "new.py": blob_id(b"Y = 1\n")}
    assert "link.py" not in listed and "src/tool.sh" in listed


def test_an_edited_file_gets_the_id_of_its_new_bytes(repo: Path) -> None:
    (repo / "README.md").write_text("changed\n")
    listed = {f.path: f.blob_id for f in tracked_files(repo)}
    assert (
        listed["README.md"]
        == blob_id(b"changed\n")
        == git(repo, "hash-object", "README.md").strip()
    )


def test_a_deleted_file_is_not_listed(repo: Path) -> None:
    (repo / "README.md").unlink()
    assert "README.md" not in {f.path for f in tracked_files(repo)}


def test_a_conflict_lists_our_side_once(repo: Path) -> None:
    git(repo, "checkout", "-q", "-b", "other")
    (repo / "README.md").write_text("theirs\n")
    git(repo, "commit", "-q", "-am", "theirs")
    git(repo, "checkout", "-q", "main")
    (repo / "README.md").write_text("ours\n")
    git(repo, "commit", "-q", "-am", "ours")
    git(repo, "merge", "-q", "other", check=False)
    paths = [f.path for f in tracked_files(repo)]
    assert paths.count("README.md") == 1


def test_a_linked_worktree_reads_its_own_index(repo: Path, tmp_path: Path) -> None:
    git(repo, "worktree", "add", "-q", str(tmp_path / "wt"), "-b", "wt")
    (tmp_path / "wt" / "only-here.py").write_text("Z = 3\n")
    git(tmp_path / "wt", "add", "only-here.py")
    listed = {f.path for f in tracked_files(tmp_path / "wt")}
    assert "only-here.py" in listed and "only-here.py" not in git_listing(repo)


def test_a_split_index_falls_back_to_walking_the_tree(repo: Path) -> None:
    git(repo, "update-index", "--split-index")
    listed = {f.path for f in tracked_files(repo)}
    assert set(FILES) <= listed


def test_a_damaged_index_is_refused_not_misread(repo: Path) -> None:
    data = (repo / ".git" / "index").read_bytes()
    with pytest.raises(ValueError):
        read_index(data[:40])
    with pytest.raises(ValueError):
        read_index(b"DIRC" + (9).to_bytes(4, "big") + data[8:])
