"""The harness's own reads and writes in a tree a repository or a model shapes never go through
a link: a planted symlink at the path, or at a parent, is replaced on write and refused on read."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from sandbox.nofollow import (
    is_link_beneath,
    read_beneath,
    remove_beneath,
    symlink_beneath,
    write_beneath,
)
from sandbox.policy import PathPolicy


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    holder = tmp_path / "private"
    holder.mkdir(mode=0o700)
    target = holder / "secret.txt"
    target.write_text("root-only words\n")
    target.chmod(0o600)
    return target


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "tree"
    (root / "tests").mkdir(parents=True)
    return root


def test_a_write_replaces_a_link_at_the_path_and_leaves_its_target(tree, outside):
    (tree / "tests" / "test_proof.py").symlink_to(outside)
    write_beneath(tree, "tests/test_proof.py", b"def test_x(): pass\n")
    assert outside.read_text() == "root-only words\n"
    written = tree / "tests" / "test_proof.py"
    assert not written.is_symlink() and written.read_bytes() == b"def test_x(): pass\n"


def test_a_write_replaces_a_linked_parent_directory(tree, outside):
    (tree / "pkg").symlink_to(outside.parent)
    write_beneath(tree, "pkg/secret.txt", b"model text")
    assert outside.read_text() == "root-only words\n"
    assert (tree / "pkg").is_dir() and not (tree / "pkg").is_symlink()
    assert (tree / "pkg" / "secret.txt").read_bytes() == b"model text"


def test_a_write_keeps_the_mode_it_is_given(tree):
    write_beneath(tree, "bin/run", b"#!/bin/sh\n", 0o755)
    assert (tree / "bin" / "run").stat().st_mode & 0o777 == 0o755


def test_a_read_through_a_link_is_refused(tree, outside):
    (tree / "tests" / "conftest.py").symlink_to(outside)
    (tree / "up").symlink_to(outside.parent)
    assert read_beneath(tree, "tests/conftest.py") is None
    assert read_beneath(tree, "up/secret.txt") is None
    (tree / "tests" / "real.py").write_bytes(b"x = 1\n")
    assert read_beneath(tree, "tests/real.py") == b"x = 1\n"
    assert read_beneath(tree, "../private/secret.txt") is None


def test_a_read_is_bounded_by_its_limit(tree):
    (tree / "big").write_bytes(b"a" * 10_000)
    assert len(read_beneath(tree, "big", 100) or b"") == 101


def test_remove_takes_the_link_not_its_target(tree, outside):
    (tree / "tests" / "gone.py").symlink_to(outside)
    remove_beneath(tree, "tests/gone.py")
    assert not os.path.lexists(tree / "tests" / "gone.py") and outside.exists()
    (tree / "via").symlink_to(outside.parent)
    remove_beneath(tree, "via/secret.txt")
    assert outside.exists()


def test_a_symlink_is_laid_as_a_link_and_never_resolved(tree, outside):
    symlink_beneath(tree, "tests/link.py", str(outside))
    assert os.readlink(tree / "tests" / "link.py") == str(outside)
    assert is_link_beneath(tree, "tests/link.py") and not is_link_beneath(tree, "tests")


def test_the_read_policy_follows_inward_links_only_by_name(tree, outside):
    (tree / "AGENTS.md").write_text("be kind\n")
    (tree / "CLAUDE.md").symlink_to("AGENTS.md")
    (tree / "leak.md").symlink_to(outside)
    policy = PathPolicy(tree, None, ())
    assert policy.read("CLAUDE.md") == b"be kind\n"
    assert policy.read("leak.md") is None
