import pytest

from contracts.paths import covered_by, glob_matches, path_problem


@pytest.mark.parametrize(
    ("glob", "path", "matches"),
    [
        ("src/auth.ts", "src/auth.ts", True),
        ("src/auth.ts", "src/auth.tsx", False),
        ("src/*.ts", "src/a.ts", True),
        ("src/*.ts", "src/x/a.ts", False),
        ("*.md", "README.md", True),
        ("*.md", "docs/a.md", False),
        ("src/**", "src/a/b/c.py", True),
        ("src/**", "src", False),
        ("src/**/test_*.py", "src/test_a.py", True),
        ("src/**/test_*.py", "src/x/y/test_a.py", True),
        ("src/**/test_*.py", "src/x/y/a.py", False),
        ("**", "anything/at/all", True),
        ("?.py", "a.py", True),
        ("?.py", "ab.py", False),
        ("[ab].py", "b.py", False),
        ("[ab].py", "[ab].py", True),
        ("pages/[id]/*.tsx", "pages/[id]/a.tsx", True),
        ("pages/[id]/*.tsx", "pages/i/a.tsx", False),
        ("pages/[id].tsx", "pages/[id].tsx", True),
        ("données/*.py", "données/é.py", True),
        ("a+b(c).py", "a+b(c).py", True),
    ],
)
def test_glob_dialect(glob: str, path: str, matches: bool) -> None:
    assert path_problem(glob) is None
    assert glob_matches(glob, path) is matches


def test_covered_by_reads_a_pattern_literally() -> None:
    assert covered_by(["src/**"], "src/*.ts")
    assert not covered_by(["src/*.ts"], "src/**")
    assert covered_by(["src/a*.ts"], "src/a?.ts")
    assert not covered_by([], "a.py")


@pytest.mark.parametrize(
    "path", ["a.py", "src/a.py", "src/**/*.py", ".github/workflows/ci.yml", "a:b", ".env", "[]]"]
)
def test_acceptable_paths(path: str) -> None:
    assert path_problem(path) is None
