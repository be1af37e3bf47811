"""A peer's own figures (`model_calls`, `input_tokens` on its prediction lines) beside coder's
modes: in its rows, its summary, and the table; judged on the tiny JS suite (prepare included)."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

TINY = Path(__file__).resolve().parents[2] / "data" / "swebench_tiny"
ROOT = Path(__file__).resolve().parents[3]


def bench(tmp_path: Path, predictions: Path) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        "XDG_CACHE_HOME": str(tmp_path / "cache"),
        "COLUMNS": "120",
    }
    return subprocess.run(
        [
            *("python3", "-m", "coder", "bench", "--swebench", str(TINY / "instances.jsonl")),
            *("--modes", "contract", "--model", f"script:{tmp_path / 'no-scripts'}"),
            *("--predictions-in", str(predictions), "--json", str(tmp_path / "out.json")),
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )


def test_the_peers_calls_and_tokens_are_in_its_rows_summary_and_table(tmp_path):
    gold = {
        json.loads(line)["instance_id"]: json.loads(line)["patch"]
        for line in (TINY / "instances.jsonl").read_text().splitlines()
    }
    predictions = tmp_path / "peer.jsonl"
    lines = [
        {
            "instance_id": "tinyjs__clamp-1",
            "model_name_or_path": "peer-agent",
            "model_patch": gold["tinyjs__clamp-1"],
            "model_calls": 7,
            "input_tokens": 12000,
        },
        {
            "instance_id": "tinyjs__clamp-2",
            "model_name_or_path": "peer-agent",
            "model_patch": gold["tinyjs__clamp-2"],
            "model_calls": 9,
            "input_tokens": 20000,
        },
        {"instance_id": "tinyjs__clamp-1", "model_name_or_path": "quiet-agent", "model_patch": ""},
    ]
    predictions.write_text("".join(json.dumps(line) + "\n" for line in lines))
    done = bench(tmp_path, predictions)
    assert done.returncode == 0, done.stdout + done.stderr
    data = json.loads((tmp_path / "out.json").read_text())
    rows = {(r["fixture"], r["mode"]): r for r in data["runs"]}
    peer = rows[("tinyjs__clamp-1", "peer-agent")]
    assert peer["resolved"] is True, peer
    assert (peer["model_calls"], peer["input_tokens"], peer["turns"]) == (7, 12000, 7)
    assert rows[("tinyjs__clamp-2", "peer-agent")]["resolved"] is True
    summary = data["summary"]
    assert summary["peer-agent"]["mean_model_calls"] == 8.0
    assert summary["peer-agent"]["mean_input_tokens"] == 16000.0
    assert summary["quiet-agent"]["mean_model_calls"] is None
    assert summary["contract"]["mean_model_calls"] == 0.0  # its runs found no script
    text = done.stdout
    assert "model calls and input tokens per mode" in text
    table = text[text.index("model calls and input tokens per mode") :]
    peer_line = next(line for line in table.splitlines() if "peer-agent" in line)
    assert peer_line.split()[1:] == ["2/2", "8.0", "16,000"]
    quiet_line = next(line for line in table.splitlines() if "quiet-agent" in line)
    assert quiet_line.split()[1:] == ["0/1", "—", "—"]


def test_a_figure_that_is_not_a_count_is_one_line_and_exit_2(tmp_path):
    predictions = tmp_path / "peer.jsonl"
    line = {
        "instance_id": "tinyjs__clamp-1",
        "model_name_or_path": "peer-agent",
        "model_patch": "",
        "model_calls": "many",
    }
    predictions.write_text(json.dumps(line) + "\n")
    done = bench(tmp_path, predictions)
    assert done.returncode == 2
    said = (done.stdout + done.stderr).strip()
    assert said.startswith("error: peer.jsonl:1: not a prediction") and "model_calls" in said
    assert len(said.splitlines()) <= 2
