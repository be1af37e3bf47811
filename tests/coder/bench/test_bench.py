"""`coder bench` end to end on real fixtures, and its refusal of broken fixture directories."""

from __future__ import annotations

import inspect
import json
import shutil
from pathlib import Path

from rich.console import Console

from coder.bench.cli import bench_command
from coder.bench.report import TIME_PARTS

FIXTURES = Path(__file__).resolve().parents[3] / "fixtures"
EXPECTED = json.loads((FIXTURES / "expected.json").read_text())


def test_bench_json_matches_table_and_expected_outcomes(tmp_path):
    console = Console(record=True, width=250, force_terminal=False)
    out = tmp_path / "bench.json"
    code = bench_command(
        FIXTURES, None, "contract,react,plan,reflect", "py-signature-dates", 2, out, console,
        runs=True,
    )  # fmt: skip
    assert code == 0
    data = json.loads(out.read_text())
    rows = data["runs"]
    assert [r["mode"] for r in rows] == ["contract", "react", "plan", "reflect"]
    table = console.export_text()
    for row in rows:
        expected = EXPECTED[row["fixture"]][row["mode"]]
        for key, value in expected.items():
            assert row[key] == value, (row["mode"], key)
        line = next(
            line
            for line in table.splitlines()
            if row["fixture"] in line and f" {row['mode']} " in line
        )
        cells = [c.strip() for c in line.strip("│ ").split("│")]
        assert cells[2] == ("yes" if row["resolved"] else "no")
        assert cells[4] == ("YES" if row["shipped_broken"] else "no")
        assert cells[5] == ("YES" if row["false_failure"] else "no")
        assert cells[6] == row["stop_reason"]
        assert int(cells[10]) == row["turns"]
        tokens = [int(c.replace(",", "")) for c in cells[11:14]]
        billed = row["tokens"].get("billed_input") or row["tokens"]["input"]
        assert tokens == [row["tokens"]["input"], billed, row["tokens"]["output"]]
        timing = row["timing"]
        assert set(timing) == set(TIME_PARTS) and timing["harness_s"] == row["harness_s"]
        assert timing["baseline_s"] > 0 and timing["final_check_s"] > 0  # the fixture's pytest
        assert cells[15:18] == [
            f"{timing['model_s']:.1f}",
            f"{timing['baseline_s'] + timing['verification_s'] + timing['final_check_s']:.1f}",
            f"{timing['harness_s']:.2f}",
        ]
    classes = {r["mode"]: (r["failure_class"], r["caught_by"]) for r in rows}
    assert classes == {
        "contract": (None, "signature_unchanged"),
        "react": ("signature_break", None),
        "plan": ("signature_break", None),
        "reflect": (None, None),
    }
    # why contract mode rolled its step back, in the verifier's first line
    [said] = next(r for r in rows if r["mode"] == "contract")["failed_checks"]
    assert " signature_unchanged: " in said
    assert all(r["failed_checks"] == [] for r in rows if r["mode"] != "contract")
    summary = data["summary"]
    assert summary["contract"]["shipped_broken"] == 0 and summary["contract"]["resolved"] == 1
    # verdict accuracy on a real fixture: contract said verified and was right; react said so
    # and shipped it broken
    assert (summary["contract"]["precision"], summary["contract"]["recall"]) == (1.0, 1.0)
    assert (summary["react"]["precision"], summary["react"]["recall"]) == (0.0, None)
    assert all(not r["false_failure"] for r in rows)
    assert summary["contract"]["false_failures"] == 0
    assert "coder bench: per mode" in table and "coder bench: each run" in table
    assert summary["react"]["shipped_broken"] == 1
    assert summary["react"]["failure_classes"] == {"signature_break": 1}
    assert summary["contract"]["caught_by"] == {"signature_unchanged": 1}
    assert summary["react"]["cost_per_resolved"] is None  # it resolved nothing
    cost = summary["contract"]["cost_per_resolved"]
    contract = rows[0]
    assert contract["billed_input"] == contract["tokens"]["input"]  # a script caches nothing
    assert cost == {
        "billed_input": contract["billed_input"],
        "output_tokens": contract["tokens"]["output"],
        "model_s": contract["model_s"],
    }
    assert data["paired"]["react"]["only_contract"] == ["py-signature-dates"]
    assert data["paired"]["reflect"]["discordant"] == 0 and data["skipped"] == []
    assert "contract vs react on 1 fixtures: only contract resolved 1" in table
    assert "too few to conclude anything" in table
    why = table[table.index("why runs failed") :]
    line = next(line for line in why.splitlines() if "signature_break" in line)
    assert [c.strip() for c in line.strip("│ ").split("│")] == [
        "signature_break",
        "·",
        "1",
        "1",
        "·",
    ]
    assert "contract caught: signature_unchanged" in why
    for key in (
        "runs",
        "resolved",
        "resolve_rate",
        "shipped_broken",
        "mean_tokens",
        "mean_harness_s",
        "mean_timing",
    ):
        assert key in summary["plan"]
    assert set(summary["plan"]["mean_timing"]) == set(TIME_PARTS)


def test_a_fixture_from_before_reflect_mode_runs_the_modes_it_has(tmp_path):
    old = tmp_path / "fixtures"
    shutil.copytree(FIXTURES / "js-bugfix-semver", old / "js-bugfix-semver")
    (old / "js-bugfix-semver" / "scripts" / "reflect.json").unlink()
    console = Console(record=True, width=250)
    out = tmp_path / "bench.json"
    record = tmp_path / "recorded"
    assert bench_command(old, None, "react,reflect", None, 1, out, console, record=record) == 0
    data = json.loads(out.read_text())
    recorded = json.loads((record / "js-bugfix-semver.react.json").read_text())["turns"]
    source = json.loads((old / "js-bugfix-semver" / "scripts" / "react.json").read_text())
    assert [t.get("tool", t.get("calls")) for t in recorded] == [
        t.get("tool", t.get("calls")) for t in source["turns"]
    ]
    assert sorted(p.name for p in record.iterdir()) == ["js-bugfix-semver.react.json"]
    assert [(r["fixture"], r["mode"]) for r in data["runs"]] == [("js-bugfix-semver", "react")]
    assert data["skipped"] == [
        {
            "fixture": "js-bugfix-semver",
            "mode": "reflect",
            "reason": "no scripts/reflect.json (a fixture from before reflect mode)",
        }
    ]
    text = console.export_text()
    assert "skipped js-bugfix-semver/reflect: no scripts/reflect.json" in text
    assert "1 runs in" in text


def test_broken_fixture_directory_names_every_missing_file(tmp_path):
    broken = tmp_path / "fixtures"
    shutil.copytree(FIXTURES / "py-bugfix-invoice", broken / "one")
    (broken / "one" / "scripts" / "react.json").unlink()
    (broken / "two").mkdir()
    (broken / "two" / "repo").mkdir()
    console = Console(record=True, width=200)
    code = bench_command(broken, None, "contract,react,plan", None, 1, None, console)
    text = console.export_text()
    assert code == 2
    assert "one: missing scripts/react.json" in text
    assert "two: missing task.toml" in text and "two: missing acceptance/" in text
    assert "two: missing scripts/contract.json" in text


def test_unknown_mode_and_missing_directory_are_usage_errors(tmp_path):
    console = Console(record=True, width=200)
    assert bench_command(FIXTURES, None, "contract,yolo", None, 1, None, console) == 2
    assert bench_command(tmp_path / "nope", None, "contract", None, 1, None, console) == 2
    text = console.export_text()
    assert "yolo" in text and "no such fixtures directory" in text


def test_bench_runs_every_mode_by_default():
    from coder.bench.fixtures import MODES
    from coder.cli import bench

    assert inspect.signature(bench).parameters["modes"].default == ",".join(MODES)
    assert MODES == ("contract", "react", "plan", "reflect")


def test_the_real_suite_beside_the_fixtures_is_not_taken_for_a_broken_fixture(tmp_path):
    """fixtures/swebench holds the real SWE-bench suite (no task.toml): the fixtures bench
    loads the fixtures around it and says nothing about it."""
    from coder.bench.fixtures import load_fixtures

    root = tmp_path / "fixtures"
    shutil.copytree(FIXTURES / "py-bugfix-invoice", root / "py-bugfix-invoice")
    (root / "swebench").mkdir()
    (root / "swebench" / "instances.jsonl").write_text("")
    found = load_fixtures(root, None, ("contract",), need_scripts=True)
    assert [f.name for f in found] == ["py-bugfix-invoice"]
