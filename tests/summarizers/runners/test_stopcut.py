"""Stop-at-the-first-failure flags are cut from the runner's own arguments, and only there."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from coder.verdict.run import package_scripts
from summarizers.runners.stopcut import without_stop_flags


@pytest.mark.parametrize(
    ("command", "runs", "removed"),
    [
        ("python -m pytest -x -q", "python -m pytest -q", ["-x"]),
        ("pytest -xvs tests", "pytest -vs tests", ["-x"]),
        ("pytest -vx", "pytest -v", ["-x"]),
        ("pytest --maxfail=2 tests/*.py", "pytest tests/*.py", ["--maxfail=2"]),
        ("pytest --maxfail 3 -q", "pytest -q", ["--maxfail 3"]),
        ("pytest --sw", "pytest", ["--sw"]),
        ("PYTHONPATH=src py.test --exitfirst", "PYTHONPATH=src py.test", ["--exitfirst"]),
        (
            "cd src && .venv/bin/python -m pytest --exitfirst && echo $HOME",
            "cd src && .venv/bin/python -m pytest && echo $HOME",
            ["--exitfirst"],
        ),
        ("pytest -q; pytest -x tests/slow", "pytest -q; pytest tests/slow", ["-x"]),
        ("python -m unittest -vf", "python -m unittest -v", ["-f"]),
        ("python -m unittest --failfast discover", "python -m unittest discover", ["--failfast"]),
        ("npx jest --bail 2 src", "npx jest src", ["--bail 2"]),
        ("npx jest -b", "npx jest", ["-b"]),
        ("mocha --bail 'test/**/*.js'", "mocha 'test/**/*.js'", ["--bail"]),
        ("vitest run --bail=1", "vitest run", ["--bail=1"]),
        (
            "node --test --test-reporter=@reporters/bail --test-reporter=spec",
            "node --test --test-reporter=spec",
            ["--test-reporter=@reporters/bail"],
        ),
    ],
)
def test_stop_flags_are_cut(command: str, runs: str, removed: list[str]) -> None:
    rewrite = without_stop_flags(command)
    assert (rewrite.command, rewrite.removed, rewrite.kept) == (runs, removed, [])


@pytest.mark.parametrize(
    "command",
    [
        "python -x -m pytest -q",  # Python's own -x (skip the first line), not pytest's
        "bash -x run-tests.sh",
        "pytest -rx tests",  # -r with the value "x"
        "make -k test",
        "pytest -k 'not slow' -q",
        "node --test test/",
        "pytest -q\nbash -x check.sh",
    ],
)
def test_flags_of_other_programs_are_left_alone(command: str) -> None:
    assert without_stop_flags(command).command == command
    assert without_stop_flags(command).removed == []


@pytest.mark.parametrize(
    ("command", "kept"),
    [
        ('pytest "-x" tests', ["-x"]),
        ("pytest -x $(cat selected)", ["-x"]),
        (
            "node --test --test-reporter=@reporters/bail --test-reporter-destination=stderr",
            ["--test-reporter=@reporters/bail"],
        ),
    ],
)
def test_a_flag_that_cannot_be_cut_safely_is_reported(command: str, kept: list[str]) -> None:
    rewrite = without_stop_flags(command)
    assert (rewrite.command, rewrite.removed, rewrite.kept) == (command, [], kept)


def test_a_stop_flag_inside_an_npm_script_is_reported(tmp_path: Path) -> None:
    scripts = {"test": "jest --bail", "unit": "mocha -b test/"}
    (tmp_path / "package.json").write_text(json.dumps({"scripts": scripts}))
    found = package_scripts(tmp_path)
    assert without_stop_flags("npm test --silent", found).kept == [
        "--bail (in the package.json script 'test')"
    ]
    assert without_stop_flags("yarn run unit", found).kept == [
        "-b (in the package.json script 'unit')"
    ]
    assert without_stop_flags("npm test", package_scripts(tmp_path / "nowhere")).kept == []
