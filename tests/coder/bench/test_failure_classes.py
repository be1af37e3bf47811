"""Failure classes of real bench runs: each fixture's failing runs get the class its failure
tag documents (fixtures/README.md), derived from the trace and result, never from the tag.

Fixtures whose runs all resolve (loop, no tool call) are run once more with the mistake made
worse, on a copy: the class must come out of what the harness saw then. One run per way the
evidence is read (a final check, a step check, the shipped diff, the plan's scope, the
tools' edits), so the bench's own end-to-end test stays the only run of every mode.
"""

from __future__ import annotations

import json
import multiprocessing
import shutil
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from coder.bench.fixtures import Fixture, load_fixtures
from coder.bench.runner import run_one

FIXTURES = Path(__file__).resolve().parents[3] / "fixtures"
EXPECTED = json.loads((FIXTURES / "expected.json").read_text())
TAG_CLASS = {
    "failure:signature-break": "signature_break",
    "failure:regression": "regression",
    "failure:plan-drift": "scope_drift",
    "failure:context-exhaustion": "acceptance_only",
    "failure:hang": "hang",
    "failure:acceptance-only": "acceptance_only",
    "failure:loop": "loop",
    "failure:no-tool-call": "no_tool_call",
    "failure:vacuous-test": "acceptance_only",
}
"""What the harness sees of each documented failure (a drowned model's suite stays exactly as
red as it was at the base, which every check accepts: acceptance_only)."""
CAUGHT = {
    "failure:signature-break": "signature_unchanged",
    "failure:regression": "tests_pass",
    "failure:plan-drift": "files_within_scope",
    "failure:hang": "tests_pass",
    "failure:context-exhaustion": "tests_pass",
    "failure:vacuous-test": "tests_fail_before",
}
PAIRS = [
    ("js-regression-csv", "plan"),
    ("py-drift-report", "plan"),
    ("py-drift-report", "reflect"),
    ("py-drift-report", "contract"),
    ("py-context-ledger", "react"),
    ("py-hang-retry", "react"),
    ("js-offbyone-pages", "react"),
    ("py-vacuous-clamp", "react"),
]
"""py-signature-dates runs in every mode in test_bench.py."""


def failure_tag(fixture: Fixture) -> str:
    (tag,) = [t for t in fixture.spec.tags if t.startswith("failure:")]
    return tag


def _variant(tmp: Path, name: str, edit, change_repo=None) -> Fixture:
    """A copy of the fixture with its react script changed by `edit(turns)`, and its repo by
    `change_repo(repo)`."""
    shutil.copytree(FIXTURES / name, tmp / name)
    if change_repo:
        change_repo(tmp / name / "repo")
    script = tmp / name / "scripts" / "react.json"
    turns = json.loads(script.read_text())["turns"]
    script.write_text(json.dumps({"turns": edit(turns)}))
    (fixture,) = load_fixtures(tmp, name, ("react",), need_scripts=True)
    return fixture


def _no_tool_calls(turns: list[dict]) -> list[dict]:
    """The text-only reply, three times in a row: the parse-error bound ends the run."""
    text = next(t for t in turns if "text" in t)
    return [turns[0], text, text, text, *turns[2:]]


def _loop(turns: list[dict]) -> list[dict]:
    """The misremembered edit until the run stops for lack of progress."""
    return [turns[0], *[turns[1]] * 10, *turns[4:]]


def _keep(turns: list[dict]) -> list[dict]:
    return turns


def _missing_module(repo: Path) -> None:
    """A test of a module the checkout does not have: a missing environment."""
    (repo / "tests" / "test_feed.py").write_text(
        "import invoice_rates_feed\n\n\ndef test_feed():\n    assert invoice_rates_feed\n"
    )


def _two_turns(repo: Path) -> None:
    (repo / ".coder.toml").write_text("max_turns = 2\n")


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> list[tuple[Fixture, dict[str, Any]]]:
    tmp = tmp_path_factory.mktemp("variants")
    by_name = {f.name: f for f in load_fixtures(FIXTURES, None, ("contract",), need_scripts=True)}
    jobs = [(by_name[name], mode) for name, mode in PAIRS]
    jobs += [
        (_variant(tmp, "py-notool-wordfreq", _no_tool_calls), "react"),
        (_variant(tmp, "js-loop-config", _loop), "react"),
        (_variant(tmp / "env", "py-bugfix-invoice", _keep, _missing_module), "react"),
        (_variant(tmp / "budget", "py-bugfix-invoice", _keep, _two_turns), "react"),
    ]
    with ProcessPoolExecutor(2, mp_context=multiprocessing.get_context("spawn")) as pool:
        rows = list(pool.map(run_one, *zip(*jobs, strict=True), [None] * len(jobs)))
    return [(fixture, row) for (fixture, _), row in zip(jobs, rows, strict=True)]


def test_each_failing_run_has_the_class_its_fixture_documents(runs) -> None:
    for fixture, row in runs:
        if fixture.name == "py-bugfix-invoice":
            continue  # no failure tag: the environment and budget variants, checked below
        tag = failure_tag(fixture)
        where = (fixture.name, row["mode"], row.get("error"))
        if row["resolved"]:
            assert row["failure_class"] is None, where
        else:
            assert row["failure_class"] == TAG_CLASS[tag], where


def test_contract_says_what_it_caught(runs) -> None:
    contract = [(f, r) for f, r in runs if r["mode"] == "contract"]
    assert len(contract) == 1
    for fixture, row in contract:
        assert row["caught_by"] == CAUGHT.get(failure_tag(fixture)), fixture.name
        assert row["resolved"] == EXPECTED[fixture.name]["contract"]["resolved"]
    assert all(r["caught_by"] is None for _, r in runs if r["mode"] != "contract")


def test_every_documented_failure_class_came_out_of_a_real_run(runs) -> None:
    seen = {
        failure_tag(f)
        for f, r in runs
        if f.name != "py-bugfix-invoice" and (r["failure_class"] or r["caught_by"])
    }
    assert seen | {"failure:signature-break"} == set(TAG_CLASS)
    stops = {
        f.name: r["stop_reason"]
        for f, r in runs
        if f.name in ("py-notool-wordfreq", "js-loop-config")
    }
    assert stops == {"py-notool-wordfreq": "model_error", "js-loop-config": "no_progress"}


def test_a_missing_environment_and_a_spent_budget(runs) -> None:
    """A test importing a module the checkout does not have (the baseline names it); a turn
    budget the repository's own config sets too low for the task."""
    rows = {f.path.parent.name: r for f, r in runs if f.name == "py-bugfix-invoice"}
    assert (rows["env"]["resolved"], rows["env"]["failure_class"]) == (False, "environment")
    assert (rows["budget"]["stop_reason"], rows["budget"]["failure_class"]) == (
        "turn_budget",
        "budget",
    )
