"""Verdict accuracy (false failures, precision, recall), the report that fits 80 columns, the
HTML page opened in a real headless browser, and a peer's predictions judged like coder's."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from rich.console import Console

from coder.bench.display import grid, summary_view
from coder.bench.html import report_page
from coder.bench.jobs import run_row
from coder.bench.paired import paired
from coder.bench.report import summarize

LONG = "py-a-fixture-with-a-rather-long-descriptive-name"


def _row(name: str, mode: str, resolved: bool, claimed: bool, **kw) -> dict:
    return run_row(
        name, mode, "python", resolved=resolved, claimed_success=claimed,
        shipped_broken=claimed and not resolved, stop_reason="completed",
        tokens={"input": 9_500, "output": 1_383}, wall_s=121.9, **kw,
    )  # fmt: skip


def _rows() -> list[dict]:
    return [
        _row("fx-a", "contract", True, True),
        _row("fx-b", "contract", True, False),  # a false failure
        _row("fx-c", "contract", False, False),
        _row(LONG, "contract", True, True),
        _row("fx-a", "react", True, True),
        _row("fx-b", "react", False, True),  # shipped broken
        _row("fx-c", "react", False, True),  # shipped broken
        _row(LONG, "react", False, False),
        _row("fx-a", "mini-swe-agent__claude-sonnet-4-5", False, False),
        _row(
            "fx-b",
            "mini-swe-agent__claude-sonnet-4-5",
            False,
            False,
            evaluation={"status": "not_evaluated"},
        ),  # fmt: skip
    ]


MODES = ("contract", "react", "mini-swe-agent__claude-sonnet-4-5")


def test_false_failures_precision_and_recall_per_mode():
    rows = _rows()
    summary = summarize(rows, MODES)
    assert [r["false_failure"] for r in rows[:4]] == [False, True, False, False]
    contract, react, peer = (summary[m] for m in MODES)
    assert (contract["false_failures"], contract["precision"], contract["recall"]) == (
        1,
        1.0,
        0.667,
    )
    assert (react["false_failures"], react["precision"], react["recall"]) == (0, 0.333, 1.0)
    assert react["shipped_broken"] == 2
    # nothing claimed, nothing resolved: no ratio to give; the unevaluated run counts nowhere
    assert (peer["false_failures"], peer["precision"], peer["recall"]) == (0, None, None)


def _render(table, width: int) -> str:
    console = Console(width=width, record=True, file=open("/dev/null", "w"))  # noqa: SIM115
    console.print(table)
    return console.export_text()


@pytest.mark.parametrize("width", [80, 100])
def test_summary_and_grid_fit_the_width_and_cut_no_name(width):
    rows = _rows()
    summary = summarize(rows, MODES)
    for text in (_render(summary_view(summary), width), _render(grid(rows, MODES), width)):
        assert "…" not in text
        assert max(len(line) for line in text.splitlines()) <= width
    shown = _render(summary_view(summary), width)
    for header in ("resolved", "shipped", "broken", "false", "failures", "precision", "recall"):
        assert header in shown.split()
    assert "1/4" in shown and "33%" in shown and "67%" in shown
    lines = [line.split() for line in _render(grid(rows, MODES), width).splitlines()[1:]]
    lines = [words for words in lines if words]
    firsts = "".join(words[0] for words in lines)  # the fixture column, folded lines joined
    lasts = "".join(words[-1] for words in lines[:3])  # the header of the last mode's column
    assert LONG in firsts and "mini-swe-agent__claude-sonnet-4-5" in lasts


CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.mark.skipif(CHROMIUM is None, reason="needs chromium (scripts/bootstrap --dev)")
def test_the_html_report_opens_in_a_real_browser(tmp_path):
    rows = _rows()
    summary = summarize(rows, MODES)
    page = tmp_path / "bench.html"
    page.write_text(report_page(rows, summary, MODES, paired(rows, MODES)))
    assert "http" not in page.read_text().replace("http://www.w3.org/2000/svg", "")
    flags = ["--headless", "--no-sandbox", "--disable-gpu", f"--user-data-dir={tmp_path / 'p'}"]
    shot = tmp_path / "bench.png"
    subprocess.run(
        [CHROMIUM, *flags, f"--screenshot={shot}", "--window-size=1000,900", page.as_uri()],
        capture_output=True, timeout=120, check=True,
    )  # fmt: skip
    png = shot.read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 20_000
    dom = subprocess.run(
        [CHROMIUM, *flags, "--dump-dom", page.as_uri()],
        capture_output=True, text=True, timeout=120, check=True,
    ).stdout  # fmt: skip
    assert '<svg id="bars"' in dom and '<svg id="grid"' in dom
    assert "3/4 resolved" in dom and "2/4 shipped broken" in dom and "1/4 false failures" in dom
    assert LONG in dom and "mini-swe-agent__claude-sonnet-4-5" in dom
    assert dom.count("<rect") >= len(rows) + 3 * len(MODES) * 2


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_a_peers_predictions_are_judged_and_paired(swebench_repos, tmp_path):
    from swebench_repos import INSTANCES, SCRIPTS

    from coder.bench.cli import bench_command
    from coder.bench.swebench_source import SweBenchArgs

    ident = "r1chardj0n3s__parse-1.22.1"
    gold = next(json.loads(line) for line in INSTANCES.read_text().splitlines() if ident in line)[
        "patch"
    ]
    predictions = tmp_path / "peer.jsonl"
    predictions.write_text(
        json.dumps({"instance_id": ident, "model_name_or_path": "gold-agent", "model_patch": gold})
        + "\n"
        + json.dumps({"instance_id": ident, "model_name_or_path": "idle-agent", "model_patch": ""})
        + "\n"
        + json.dumps(
            {"instance_id": "not-in-the-file", "model_name_or_path": "x", "model_patch": ""}
        )
        + "\n"
    )
    console = Console(record=True, width=80, file=open("/dev/null", "w"))  # noqa: SIM115
    code = bench_command(
        Path("unused"), f"script:{SCRIPTS}", "contract", ident, 2, tmp_path / "b.json", console,
        swebench=SweBenchArgs(INSTANCES, swebench_repos), predictions_in=predictions,
    )  # fmt: skip
    assert code == 0, console.export_text()
    data = json.loads((tmp_path / "b.json").read_text())
    by_mode = {r["mode"]: r for r in data["runs"]}
    assert set(by_mode) == {"contract", "gold-agent", "idle-agent"}
    assert by_mode["gold-agent"]["resolved"] and by_mode["gold-agent"]["claimed_success"]
    assert by_mode["gold-agent"]["evaluation"]["status"] == "resolved"
    assert not by_mode["idle-agent"]["resolved"] and not by_mode["idle-agent"]["claimed_success"]
    assert data["summary"]["gold-agent"]["precision"] == 1.0
    assert set(data["paired"]) == {"gold-agent", "idle-agent"}
    assert "gold-agent" in console.export_text()
