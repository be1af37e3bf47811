"""A test named in the runner's own words, without its file (issue 30: jest's `describe ›
test`, mocha's full title, node's test name): selected by name the way the runner selects it,
and covering the ids the run then reports. Pure: no runner runs here (the conformance matrix's
`own id` cells run them)."""

from __future__ import annotations

import pytest

from summarizers.runners.base import Selected
from summarizers.runners.names import FILE, TEST, Project, read_names
from summarizers.runners.table import runner_named

TREE = Project(
    frozenset({"src/calc.js", "test/calc.test.js", "test/other.test.js", "package.json"})
)


def _select(runner: str, args: list[str], *texts: str) -> Selected:
    names = read_names(texts, TREE)
    assert not isinstance(names, str)
    selected = runner_named(runner).select(args, names, TREE)
    assert isinstance(selected, Selected), selected
    return selected


def test_a_title_is_a_test_named_without_its_file_a_missing_path_stays_a_path() -> None:
    names = read_names(
        ["calc › absolute of a negative", "calc > adds", "test/gone.test.js", "old/"], TREE
    )
    assert not isinstance(names, str)
    title, parts, gone, folder = names
    assert (title.kind, title.path, title.title, title.fileless) == (
        TEST,
        "",
        "calc › absolute of a negative",
        True,
    )
    assert (parts.kind, parts.path, parts.parts, parts.fileless) == (
        TEST,
        "",
        ("calc", "adds"),
        True,
    )
    assert (gone.kind, folder.kind) == (FILE, FILE)
    printed = read_names(["test/calc.test.js > calc > adds"], TREE)
    assert not isinstance(printed, str) and not printed[0].fileless


def test_jest_selects_its_own_id_by_full_title_in_the_files_it_runs() -> None:
    got = _select("jest", ["--ci", "test/"], "calc › absolute of a negative")
    assert got.args == [
        "--ci",
        "test/",
        "--coverage=false",
        "--verbose",
        "-t",
        "^(?:calc\\ absolute\\ of\\ a\\ negative)$",
    ]
    (target,) = got.targets
    assert target.kind == TEST
    assert target.covers("test/calc.test.js > calc > absolute of a negative")
    assert not target.covers("test/calc.test.js > calc > absolute of a negative number")
    assert not target.covers("test/calc.test.js > other > calc > absolute of a negative")


@pytest.mark.parametrize("runner", ["jest", "vitest"])
def test_a_title_beside_a_file_runs_the_command_own_files(runner: str) -> None:
    got = _select(runner, [], "calc › absolute of a negative", "test/other.test.js")
    assert "--runTestsByPath" not in got.args and "test/other.test.js" not in got.args
    assert not any(a == "-t" for a in got.args)


def test_mocha_greps_its_own_full_title() -> None:
    got = _select("mocha", ["--recursive"], "calc absolute of a negative")
    assert got.args == ["--recursive", "--grep", "^(?:calc\\ absolute\\ of\\ a\\ negative)$"]
    (target,) = got.targets
    assert target.covers("calc > absolute of a negative")
    assert target.covers("calc absolute > of a negative")  # the same full title, as mocha sees it
    assert not target.covers("calc > absolute of a negative two")


def test_node_test_selects_a_test_by_its_own_name() -> None:
    got = _select("node-test", [], "absolute of a negative")
    assert got.args == ["--test-name-pattern=^(?:absolute\\ of\\ a\\ negative)$"]
    (target,) = got.targets
    assert target.covers("calc > absolute of a negative")
    assert target.covers("absolute of a negative")
    assert not target.covers("calc > absolute of a negative two")


@pytest.mark.parametrize("runner", ["pytest", "unittest", "tap"])
def test_runners_that_name_tests_by_file_say_so(runner: str) -> None:
    names = read_names(["calc absolute of a negative"], TREE)
    assert not isinstance(names, str)
    said = runner_named(runner).select([], names, TREE)
    assert not isinstance(said, Selected)
    assert "names no" in said.reason
