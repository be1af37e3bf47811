"""What a test command asks its runners to write (`--junitxml=junit.xml`, `--outputFile`, a
coverage report directory), read from the command, through package.json scripts and `cd`:
the runner's artifacts, never the model's scratch files."""

from __future__ import annotations

from pathlib import Path

import pytest

from summarizers.logformats.prep import prepare
from summarizers.runners.commands import artifacts_in
from summarizers.runners.table import RUNNERS

BY_NAME = {r.name: r for r in RUNNERS}
DATA = Path(__file__).parents[1] / "data"


@pytest.mark.parametrize(
    ("runner", "args", "wrote"),
    [
        ("pytest", ["-q", "--junitxml=junit.xml"], ("junit.xml",)),
        ("pytest", ["--junit-xml", "out/j.xml", "--cov-report=html:cov", "--cov-report", "term"],
         ("out/j.xml", "cov")),
        ("vitest", ["run", "--reporter=junit", "--outputFile.junit=junit.xml"], ("junit.xml",)),
        ("vitest", ["--coverage.reportsDirectory", "./cov/"], ("cov",)),
        ("jest", ["--json", "--outputFile=r.json", "--coverageDirectory", "cov"],
         ("r.json", "cov")),
        ("mocha", ["--reporter", "xunit", "--reporter-option", "output=x.xml,suiteName=a"],
         ("x.xml",)),
        ("node-test", ["--test-reporter=spec", "--test-reporter-destination=stdout",
                       "--test-reporter=junit", "--test-reporter-destination=junit.xml"],
         ("junit.xml",)),
        ("tap", ["--output-file=tap.txt", "-d", "results"], ("tap.txt", "results")),
        ("pytest", ["--junitxml=/tmp/j.xml", "--junitxml=../j.xml", "--junitxml=$OUT/j.xml"], ()),
        ("unittest", ["-v"], ()),
    ],
)  # fmt: skip
def test_a_runner_reads_what_its_own_arguments_tell_it_to_write(runner, args, wrote):
    assert BY_NAME[runner].writes(args) == wrote


def test_the_paths_are_anchored_where_the_runner_runs():
    found = artifacts_in("cd backend && python -m pytest -q --junitxml=out/junit.xml", None)
    assert "/backend/out/junit.xml" in found and ".pytest_cache/" in found
    unknown = artifacts_in("cd $DIR && python -m pytest --junitxml=junit.xml", None)
    assert not [p for p in unknown if p.startswith("/")], "a directory coder cannot name"


def test_a_report_a_runner_writes_where_it_runs_is_not_a_name_anywhere():
    """vitest's html reporter writes `html/` where vitest runs: a model's new `src/html/x.js`
    stays its change."""
    found = artifacts_in("cd web && npx vitest run", None)
    assert "/web/html" in found and "/web/junit.xml" in found
    assert not [p for p in found if p in ("html/", "junit.xml")]


def test_npm_test_scripts_their_hooks_and_a_coverage_wrapper_are_followed():
    scripts = {
        "test": "c8 --reports-dir cov mocha --reporter-option output=reports/mocha.xml",
        "posttest": "node --test --test-reporter=junit --test-reporter-destination=node.xml",
    }
    found = artifacts_in("npm test", scripts)
    assert {"/cov", "/reports/mocha.xml", "/node.xml", "coverage/", ".nyc_output/"} <= set(found)
    assert artifacts_in("npm test", {"test": "eslint . --output-file lint.txt"}) == ()


def test_node_spec_output_reads_as_its_tap_output_does():
    """The same suite run by `node --test` with the spec reporter and with TAP (the logs of
    tests/summarizers/data/make_logs.py): the same ids, outcomes, messages and counts."""
    spec = prepare((DATA / "node_spec.log").read_text()).lines
    tap = prepare((DATA / "node_tap.log").read_text()).lines
    node = BY_NAME["node-test"]
    assert max(RUNNERS, key=lambda r: r.sniff(spec)) is node
    by_spec, by_tap = node.read(spec), node.read(tap)
    assert by_spec.outcomes == by_tap.outcomes
    assert by_spec.outcomes["math > nested > deep equal"] == "failed"
    assert by_spec.outcomes["math > adds zero"] == "passed"
    assert by_spec.messages == by_tap.messages and by_spec.counts == by_tap.counts
