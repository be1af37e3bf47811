from __future__ import annotations

from pathlib import Path

import pytest
from ci_repos import commit_all, init_repo, write

from coder.ci.symbols import MAX_CALL_SITES, call_sites, file_symbol_changes, is_api_path


def test_deleted_file_removes_every_symbol_and_other_files_have_none() -> None:
    gone = file_symbol_changes("lib.py", "def a():\n    pass\n\n\nclass B:\n    pass\n", None)
    assert gone.language == "python"
    assert {(c.name, c.change) for c in gone.changes} == {("a", "removed"), ("B", "removed")}
    assert file_symbol_changes("README.md", "a", "b").language is None


def test_a_file_that_does_not_parse_is_reported_not_guessed() -> None:
    broken = file_symbol_changes("m.js", "export function f(a) {}\n", "export function f(a {\n")
    assert broken.changes == [] and broken.error is not None
    assert "cannot compare symbols" in broken.error


def test_dropping_a_name_from_dunder_all_is_a_visibility_change() -> None:
    old = '__all__ = ["f"]\n\n\ndef f():\n    pass\n\n\ndef g():\n    pass\n'
    found = file_symbol_changes("m.py", old, old.replace('["f"]', '["g"]'))
    assert {(c.name, c.change) for c in found.changes} == {
        ("f", "made_private"),
        ("g", "made_public"),
    }


def test_call_sites_skip_the_definition_and_are_capped(tmp_path: Path) -> None:
    repo = tmp_path / "r"
    init_repo(repo)
    calls = "".join(f"use(value={i})\n" for i in range(MAX_CALL_SITES + 5))
    write(repo, {"lib.py": "def use(value):\n    return value\n", "app.py": calls})
    commit_all(repo, "c")
    sites, more = call_sites(repo, "use", defined_in="lib.py", definition_line=1)
    assert len(sites) == MAX_CALL_SITES and more == 5
    assert all(s.path == "app.py" for s in sites)
    assert sites[0].text == "use(value=0)"


def test_changes_to_tests_and_build_scripts_are_listed_but_never_judged() -> None:
    old, new = (
        "def test_a():\n    pass\n\n\ndef helper(x):\n    pass\n",
        "def helper():\n    pass\n",
    )
    for path in ("tests/test_io.py", "test/util.py", "pkg/io_test.py", "conftest.py", "setup.py"):
        found = file_symbol_changes(path, old, new)
        assert {c.name for c in found.changes} == {"test_a", "helper"}
        assert all(c.compatible is None for c in found.changes), path
    judged = {c.name: c for c in file_symbol_changes("pkg/io.py", old, new).changes}
    assert judged["test_a"].compatible is False and judged["helper"].compatible is False
    assert judged["helper"].reasons == ["parameter `x` removed"]


@pytest.mark.parametrize(
    ("path", "api"),
    [
        ("src/auth.ts", True),
        ("lib/testing_utils.py", True),
        ("src/auth.test.ts", False),
        ("src/auth.spec.js", False),
        ("src/__tests__/auth.js", False),
        ("tests/helpers.py", False),
        ("test_cli.py", False),
        ("src/click/_compat.py", False),
        ("pkg/_internal/util.py", False),
        ("pkg/__init__.py", True),
        ("src/_private.js", True),
        ("examples/repo/repo.py", False),
    ],
)
def test_which_files_are_public_api(path: str, api: bool) -> None:
    assert is_api_path(path) is api
