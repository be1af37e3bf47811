from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sandbox.globs import GlobError, expand_braces, glob_match, normalize_path


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


@pytest.mark.parametrize(
    ("pattern", "expanded"),
    [
        ("*.{ini,cfg}", ("*.ini", "*.cfg")),
        ("src/{a,b}/{c,d}.py", ("src/a/c.py", "src/a/d.py", "src/b/c.py", "src/b/d.py")),
        ("{a,{b,c}}/x", ("a/x", "b/x", "c/x")),
        ("pages/{id}.tsx", ("pages/{id}.tsx",)),  # no comma: a literal file name
        ("{a,a}.py", ("a.py",)),
    ],
)
def test_braces_expand(pattern: str, expanded: tuple[str, ...]) -> None:
    assert expand_braces(pattern) == expanded


def test_brace_globs_match_each_alternative_and_nothing_else() -> None:
    assert glob_match("setup.cfg", "*.{ini,cfg}") and glob_match("tox.ini", "*.{ini,cfg}")
    assert not glob_match("pyproject.toml", "*.{ini,cfg}")
    assert not glob_match("docs/tox.ini", "*.{ini,cfg}")
    assert glob_match("src/a.tsx", "src/**/*.{ts,tsx}") and glob_match(
        "pages/{id}.tsx", "pages/{id}.tsx"
    )


def test_too_many_alternatives_is_an_error_and_matches_only_literally() -> None:
    with pytest.raises(GlobError, match="more than 64"):
        expand_braces("{a,b}" * 7)
    assert glob_match("{a,b}" * 7, "{a,b}" * 7) and not glob_match("a" * 7, "{a,b}" * 7)
