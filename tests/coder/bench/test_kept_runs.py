"""A bench run that does not end as expected.json says keeps what is needed to find out why."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from coder.bench.fixtures import load_fixtures
from coder.bench.runner import run_one

FIXTURES = Path(__file__).resolve().parents[3] / "fixtures"
NAME = "py-bugfix-invoice"


def copy_with_expectation(tmp_path: Path, **expected: object) -> Path:
    shutil.copytree(FIXTURES / NAME, tmp_path / NAME)
    table = json.loads((FIXTURES / "expected.json").read_text())
    table = {NAME: {"react": {**table[NAME]["react"], **expected}}}
    (tmp_path / "expected.json").write_text(json.dumps(table))
    return tmp_path


def test_a_run_that_misses_its_expectation_is_kept_with_its_stop_message(tmp_path):
    root = copy_with_expectation(tmp_path, rollbacks=7)
    (fixture,) = load_fixtures(root, NAME, ("react",), need_scripts=True)
    row = run_one(fixture, "react", None)
    assert row["unexpected"] == ["rollbacks"]
    kept = Path(row["kept"])
    try:
        assert (kept / "run" / "result.json").is_file() and (kept / "run" / "trace.jsonl").is_file()
        assert (kept / "acceptance.log").is_file()
        assert row["message"] == json.loads((kept / "run" / "result.json").read_text())["message"]
        assert row["message"]
    finally:
        shutil.rmtree(kept)


def test_a_run_as_expected_leaves_nothing_behind(tmp_path):
    root = copy_with_expectation(tmp_path)
    (fixture,) = load_fixtures(root, NAME, ("react",), need_scripts=True)
    row = run_one(fixture, "react", None)
    assert "kept" not in row and row["message"]
