"""gitignore-syntax patterns for .worktreeinclude and `include`: what each one names."""

from __future__ import annotations

from pathlib import Path

import pytest

from sandbox.ignorefile import PatternError, last_match, parse_pattern, parse_patterns


def _names(
    pattern: str, rel: str, *, is_dir: bool = False, top: Path = Path("/nonexistent")
) -> bool:
    parsed = parse_pattern(pattern, "include", top)
    assert parsed is not None
    return parsed.matches(rel, is_dir=is_dir)


@pytest.mark.parametrize(
    ("pattern", "rel", "is_dir", "expected"),
    [
        ("_version.py", "src/pkg/_version.py", False, True),  # no slash: any depth
        ("_version.py", "_version.py", False, True),
        ("src/_version.py", "lib/src/_version.py", False, False),  # a slash anchors
        ("/config.toml", "config.toml", False, True),
        ("/config.toml", "sub/config.toml", False, False),
        ("build/", "build", True, True),  # directories only
        ("build/", "build", False, False),
        ("*.gen.py", "a/b/x.gen.py", False, True),
        ("gen/*.py", "gen/sub/x.py", False, False),  # * stays in one segment
        ("gen/**/*.py", "gen/sub/deep/x.py", False, True),
        ("gen/**/*.py", "gen/x.py", False, True),
        ("**/fixtures", "a/b/fixtures", True, True),
        ("data/**", "data/a/b.bin", False, True),
        ("file?.txt", "file1.txt", False, True),
        ("file[0-9].txt", "file7.txt", False, True),
        ("file[!0-9].txt", "file7.txt", False, False),
        ("\\#hash", "#hash", False, True),
        ("trailing\\ ", "trailing ", False, True),
    ],
)
def test_what_a_pattern_names(pattern: str, rel: str, is_dir: bool, expected: bool) -> None:
    assert _names(pattern, rel, is_dir=is_dir) is expected


def test_comments_and_blank_lines_name_nothing() -> None:
    assert parse_patterns(["# a comment", "", "   "], "include", Path("/x")) == []


def test_the_last_matching_pattern_decides() -> None:
    patterns = parse_patterns(["*.gen.py", "!skip.gen.py", "keep/"], ".worktreeinclude", Path("/x"))
    assert last_match(patterns, "a.gen.py", is_dir=False).negated is False  # type: ignore[union-attr]
    assert last_match(patterns, "skip.gen.py", is_dir=False).negated is True  # type: ignore[union-attr]
    assert last_match(patterns, "other.py", is_dir=False) is None


def test_literal_patterns_are_told_from_globs() -> None:
    top = Path("/x")
    assert parse_pattern(".env", "include", top).literal  # type: ignore[union-attr]
    assert not parse_pattern(".env*", "include", top).literal  # type: ignore[union-attr]
    assert not parse_pattern("conf/[ab].toml", "include", top).literal  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("pattern", "why"),
    [
        ("../secrets.txt", "outside the repository ('..')"),
        ("src/../../x", "outside the repository ('..')"),
        ("~/.aws/credentials", "home directory"),
        ("/etc/passwd", "absolute path outside the repository"),
        ("/", "whole repository"),
    ],
)
def test_patterns_that_escape_are_refused(pattern: str, why: str) -> None:
    with pytest.raises(PatternError) as error:
        parse_pattern(pattern, ".worktreeinclude", Path("/nonexistent-checkout"))
    assert why in str(error.value) and ".worktreeinclude" in str(error.value)


def test_a_leading_slash_anchors_when_the_checkout_has_that_entry(tmp_path: Path) -> None:
    (tmp_path / "etc").mkdir()  # a repository with its own etc/
    parsed = parse_pattern("/etc/app.local.toml", "include", tmp_path)
    assert parsed is not None and parsed.anchored and parsed.body == "etc/app.local.toml"
