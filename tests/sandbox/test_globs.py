from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sandbox.globs import glob_match, normalize_path


@pytest.mark.parametrize(
    ("path", "pattern"),
    [
        ("src/auth.ts", "src/auth.ts"),
        ("src/auth.ts", "./src/auth.ts"),
        ("src/auth.ts", "src/*.ts"),
        ("src/auth.ts", "src/????.ts"),
        ("src/a/b/c.ts", "src/**/*.ts"),
        ("src/c.ts", "src/**/*.ts"),
        ("src/c.ts", "**/*.ts"),
        ("c.ts", "**/*.ts"),
        ("src/a/b/c.ts", "src/**"),
        ("src/a/b/c.ts", "src"),
        ("src/a/b/c.ts", "src/"),
        ("src/a/b/c.ts", "src/a"),
        ("src/a/b/c.ts", "src/*"),
        ("pages/[id].tsx", "pages/[id].tsx"),
        ("a/x/y/b", "a/**/b"),
        ("a/b", "a/**/b"),
        ("weird**name", "weird**name"),
    ],
)
def test_matches(path: str, pattern: str) -> None:
    assert glob_match(path, pattern)


@pytest.mark.parametrize(
    ("path", "pattern"),
    [
        ("src/a/c.ts", "src/*.ts"),
        ("lib/src/c.ts", "src/**"),
        ("srcx/c.ts", "src"),
        ("src.ts", "src"),
        ("sub/c.ts", "*.ts"),
        ("pages/i.tsx", "pages/[id].tsx"),
        ("src/ab.ts", "src/?.ts"),
        ("a/b/c", "a/**/d"),
        ("anything", ""),
        ("", "*"),
        (".github/workflows/ci.yml", "*.yml"),
    ],
)
def test_does_not_match(path: str, pattern: str) -> None:
    assert not glob_match(path, pattern)


_segment = st.text(alphabet="abcXYZ019_-.[]", min_size=1, max_size=6).filter(
    lambda s: s not in (".", "..")
)
_paths = st.lists(_segment, min_size=1, max_size=5).map("/".join)


@given(_paths)
def test_every_path_matches_itself_its_parents_and_double_star(path: str) -> None:
    assert glob_match(path, path)
    assert glob_match(path, "**")
    segments = path.split("/")
    for i in range(1, len(segments)):
        assert glob_match(path, "/".join(segments[:i]))
        assert glob_match(path, "/".join(segments[:i]) + "/**")


@given(_paths, _paths)
def test_a_literal_pattern_matches_only_itself_or_what_is_under_it(path: str, other: str) -> None:
    expected = other == path or other.startswith(path + "/")
    assert glob_match(other, path) == expected


def test_normalize_path() -> None:
    assert normalize_path("./a//b/./c/") == "a/b/c"
    assert normalize_path("a\\b") == "a/b"
