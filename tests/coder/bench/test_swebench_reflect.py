"""docs/swebench.md's example runs every mode `coder bench` runs by default: reflect's scripts
ship too, and each gives the outcome tests/data/swebench/expected.json records."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from rich.console import Console
from swebench_repos import DATA, INSTANCES, SCRIPTS

from coder.bench.cli import bench_command
from coder.bench.swebench_source import SweBenchArgs

pytestmark = [pytest.mark.slow, pytest.mark.timeout(900)]


def test_reflect_runs_give_the_expected_outcomes(swebench_repos, tmp_path):
    console = Console(record=True, width=120, file=open("/dev/null", "w"))  # noqa: SIM115
    code = bench_command(
        Path("unused"), f"script:{SCRIPTS}", "reflect", None, 2, tmp_path / "b.json", console,
        swebench=SweBenchArgs(INSTANCES, swebench_repos),
    )  # fmt: skip
    assert code == 0, console.export_text()
    expected = json.loads((DATA / "expected.json").read_text())
    rows = json.loads((tmp_path / "b.json").read_text())["runs"]
    assert len(rows) == len(expected)
    for row in rows:
        assert not row.get("error"), row
        for key, value in expected[row["fixture"]]["reflect"].items():
            actual = row["evaluation"]["status"] if key == "evaluation" else row[key]
            assert actual == value, (row["fixture"], key, actual)
