from __future__ import annotations

import os
from pathlib import Path

import pytest

from sandbox.policy import PathPolicy, out_of_scope


@pytest.fixture
def root(tmp_path: Path) -> Path:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "auth.ts").write_text("x")
    (tmp_path / ".github").mkdir()
    return tmp_path


def _policy(root: Path, allowed: list[str] | None = None) -> PathPolicy:
    files = ["src/auth.ts", "test/*.test.ts"] if allowed is None else allowed
    return PathPolicy(root, files, [".github/**"])


@pytest.mark.parametrize(
    "path", ["src/auth.ts", "./src/auth.ts", "test/auth.test.ts", "src//auth.ts"]
)
def test_declared_files_may_be_written(root: Path, path: str) -> None:
    decision = _policy(root).check(path, write=True)
    assert decision.allowed, decision.reason
    assert decision.reason == ""


@pytest.mark.parametrize(
    ("path", "fragment"),
    [
        ("/etc/passwd", "absolute"),
        ("~/.bashrc", "absolute"),
        ("../outside.txt", "'..'"),
        ("src/../../outside.txt", "'..'"),
        (".git/config", ".git/"),
        ("src/.git/hooks/pre-commit", ".git/"),
        (".GIT/config", ".git/"),
        ("", "empty"),
        ("src/other.ts", "outside this step's files"),
        (".github/workflows/ci.yml", "protected (.github/**)"),
    ],
)
def test_refusals_say_why_and_what_is_allowed(root: Path, path: str, fragment: str) -> None:
    decision = _policy(root).check(path, write=True)
    assert not decision.allowed
    assert fragment in decision.reason
    assert "allowed: src/auth.ts, test/*.test.ts except .github/**" in decision.reason


def test_reads_skip_the_scope_but_not_the_shape(root: Path) -> None:
    policy = _policy(root)
    assert policy.check("src/other.ts", write=False).allowed
    assert policy.check(".github/workflows/ci.yml", write=False).allowed
    assert not policy.check("../x", write=False).allowed
    assert not policy.check(".git/HEAD", write=False).allowed


def test_react_mode_allows_any_path_in_the_repo(root: Path) -> None:
    policy = PathPolicy(root, None, [".github/**"])
    assert policy.check("anything/new.py", write=True).allowed
    refused = policy.check(".github/x.yml", write=True)
    assert not refused.allowed
    assert "any repo-relative path" in refused.reason


def test_symlink_leading_outside_is_refused(
    root: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    outside = tmp_path_factory.mktemp("outside")
    os.symlink(outside, root / "src" / "escape")
    os.symlink("/etc/passwd", root / "src" / "auth_link.ts")
    policy = PathPolicy(root, ["src/**"], [])
    for path in ("src/escape/file.txt", "src/auth_link.ts"):
        for write in (True, False):
            decision = policy.check(path, write=write)
            assert not decision.allowed
            assert "symlink that leads outside" in decision.reason


def test_symlink_to_an_out_of_scope_file_is_refused_for_writes(root: Path) -> None:
    (root / "setup.py").write_text("x")
    os.symlink("../setup.py", root / "src" / "alias.py")
    os.symlink("../.git", root / "src" / "gitlink")
    policy = PathPolicy(root, ["src/**"], [])
    decision = policy.check("src/alias.py", write=True)
    assert not decision.allowed
    assert "points to setup.py" in decision.reason
    assert policy.check("src/alias.py", write=False).allowed
    assert not policy.check("src/gitlink/config", write=False).allowed


def test_symlink_within_scope_is_fine(root: Path) -> None:
    os.symlink("auth.ts", root / "src" / "alias.ts")
    assert PathPolicy(root, ["src/**"], []).check("src/alias.ts", write=True).allowed


def test_out_of_scope_is_pure_and_keeps_order() -> None:
    changed = ["src/auth.ts", "README.md", ".github/ci.yml", "src/auth.ts", "../x", "lib/.git/x"]
    assert out_of_scope(changed, ["src/**"], [".github/**"]) == [
        "README.md",
        ".github/ci.yml",
        "../x",
        "lib/.git/x",
    ]
    assert out_of_scope(changed, None, [".github/**"]) == [".github/ci.yml", "../x", "lib/.git/x"]
    assert out_of_scope([], ["src/**"], []) == []
