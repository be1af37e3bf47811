"""`coder bench --swebench` end to end on the shipped instances: the outcomes each mode should
give, predictions the official loader accepts, the same report from Ray as from the local pool,
and bad input reported one line each while the other instances run."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from rich.console import Console
from swebench_repos import DATA, INSTANCES, SCRIPTS

from coder.bench.cli import bench_command
from coder.bench.swebench_source import SweBenchArgs

EXPECTED = json.loads((DATA / "expected.json").read_text())
MODES = "contract,react,plan"
MODEL = f"script:{SCRIPTS}"
TIMING = {"wall_s", "harness_s", "node", "timing", "model_s"}
"""What differs between two runs of the same job: time, and where it ran."""

pytestmark = [pytest.mark.slow, pytest.mark.timeout(900)]
"""A whole bench per module: minutes on a loaded 2-core machine, past the default 300 s."""


def bench(repos: Path, out: Path, *, file: Path = INSTANCES, modes: str = MODES, **kw):
    console = Console(record=True, width=250, force_terminal=False)
    args = SweBenchArgs(file, repos, predictions=out / "preds.jsonl")
    code = bench_command(
        Path("unused"), MODEL, modes, None, 2, out / "bench.json", console, swebench=args, **kw
    )
    data = json.loads((out / "bench.json").read_text()) if code == 0 else None
    return code, data, console.export_text()


@pytest.fixture(scope="module")
def local_run(swebench_repos, tmp_path_factory):
    out = tmp_path_factory.mktemp("local")
    return (*bench(swebench_repos, out), out)


def test_every_run_gives_the_expected_outcome(local_run):
    code, data, text, _ = local_run
    assert code == 0
    rows = data["runs"]
    assert [(r["fixture"], r["mode"]) for r in rows] == [
        (ident, mode) for ident in EXPECTED for mode in MODES.split(",")
    ]
    for row in rows:
        expected = EXPECTED[row["fixture"]][row["mode"]]
        for key, value in expected.items():
            actual = row["evaluation"]["status"] if key == "evaluation" else row[key]
            assert actual == value, (row["fixture"], row["mode"], key)
        assert "model_patch" not in row and row["instance_id"] == row["fixture"]
    summary = data["summary"]
    assert summary["contract"]["resolved"] == 2 and summary["contract"]["not_evaluated"] == 0
    assert "9 runs in" in text


def test_predictions_one_line_per_instance_and_mode(local_run, swebench_repos, tmp_path):
    _, _, text, out = local_run
    lines = [json.loads(line) for line in (out / "preds.jsonl").read_text().splitlines()]
    assert [(p["instance_id"], p["model_name_or_path"]) for p in lines] == [
        (ident, f"coder-{mode}__script-scripts") for ident in EXPECTED for mode in MODES.split(",")
    ]
    assert (out / "preds.errors.jsonl").read_text() == ""
    for mode in MODES.split(","):
        own = [json.loads(x) for x in (out / f"preds.{mode}.jsonl").read_text().splitlines()]
        assert [p["instance_id"] for p in own] == list(EXPECTED)
        assert {p["model_name_or_path"] for p in own} == {f"coder-{mode}__script-scripts"}
    for prediction in lines:
        assert prediction["model_patch"].startswith("diff --git")
        record = next(json.loads(x) for x in INSTANCES.open() if prediction["instance_id"] in x)
        clone = tmp_path / prediction["model_name_or_path"] / prediction["instance_id"]
        source = swebench_repos / record["repo"].replace("/", "__")
        subprocess.run(["git", "clone", "-q", "--shared", str(source), str(clone)], check=True)
        subprocess.run(["git", "checkout", "-q", record["base_commit"]], cwd=clone, check=True)
        subprocess.run(
            ["git", "apply", "--check", "-"],
            cwd=clone,
            input=prediction["model_patch"],
            text=True,
            check=True,
        )
    assert str(out / "preds.jsonl") in text


def test_the_official_loader_accepts_the_predictions(local_run, monkeypatch, tmp_path):
    evaluation = pytest.importorskip(
        "swebench.harness.run_evaluation",
        reason="the swebench package is not installed (pip install 'coder-contracts[swebench]')",
    )
    from swebench.harness.utils import get_predictions_from_file

    _, _, _, out = local_run
    monkeypatch.chdir(tmp_path)
    for mode in MODES.split(","):
        predictions = get_predictions_from_file(
            str(out / f"preds.{mode}.jsonl"), str(INSTANCES), "test"
        )
        by_id = {p["instance_id"]: p for p in predictions}
        assert len(by_id) == len(EXPECTED)
        dataset = evaluation.get_dataset_from_preds(
            str(INSTANCES), "test", [], by_id, f"check-{mode}", False
        )
        assert sorted(i["instance_id"] for i in dataset) == sorted(EXPECTED)


@pytest.mark.bench  # a Ray cluster's start-up: CI runs it in its bench pass
def test_ray_gives_the_same_report_as_the_local_pool(
    local_run, local_ray, swebench_repos, tmp_path
):
    modes = "contract"
    code, data, text = bench(swebench_repos, tmp_path, modes=modes, ray="local")
    assert code == 0
    local_rows = [r for r in local_run[1]["runs"] if r["mode"] in modes.split(",")]
    strip = [{k: v for k, v in r.items() if k not in TIMING} for r in data["runs"]]
    assert strip == [{k: v for k, v in r.items() if k not in TIMING} for r in local_rows]
    node = local_ray.util.get_node_ip_address()
    assert {r["node"] for r in data["runs"]} == {node}
    assert f"done per node: {node} 3" in text and "on Ray, 1 node(s)" in text
    local_preds = [
        json.loads(x)
        for x in (local_run[3] / "preds.jsonl").read_text().splitlines()
        if json.loads(x)["model_name_or_path"].startswith("coder-contract")
    ]
    ray_preds = [json.loads(x) for x in (tmp_path / "preds.jsonl").read_text().splitlines()]
    assert ray_preds == local_preds


def test_bad_input_is_one_line_each_and_the_rest_run(swebench_repos, tmp_path):
    records = [json.loads(line) for line in INSTANCES.read_text().splitlines()]
    good = next(r for r in records if r["instance_id"] == "r1chardj0n3s__parse-1.22.3")
    no_clone = {**good, "instance_id": "nobody__nothing-1", "repo": "nobody/nothing"}
    no_base = {**good, "instance_id": "r1chardj0n3s__parse-0", "base_commit": "e" * 40}
    other = next(r for r in records if r["repo"] == "martinblech/xmltodict")
    no_apply = {**good, "instance_id": "r1chardj0n3s__parse-9", "test_patch": other["test_patch"]}
    lines = [
        json.dumps(good),
        json.dumps(no_clone),
        '{"instance_id": "broken-1", ',
        json.dumps(no_base),
        json.dumps(no_apply),
        json.dumps({**good, "problem_statement": "the same id again"}),
    ]
    file = tmp_path / "instances.jsonl"
    file.write_text("\n".join(lines) + "\n")
    repos = tmp_path / "repos"
    shutil.copytree(swebench_repos, repos, symlinks=True)
    code, data, text = bench(repos, tmp_path / "out", file=file, modes="contract")
    assert code == 0
    assert "instances.jsonl:3: not JSON" in text
    assert (
        "instances.jsonl:6: duplicate instance_id r1chardj0n3s__parse-1.22.3 (first on line 1)"
        in text
    )
    assert f"nobody__nothing-1 (contract): no clone of nobody/nothing in {repos.resolve()}" in text
    assert f"r1chardj0n3s__parse-0 (contract): base_commit {'e' * 40} is not in" in text
    assert "r1chardj0n3s__parse-9 (contract): test_patch does not apply at base_commit" in text
    rows = {r["fixture"]: r for r in data["runs"]}
    assert rows["r1chardj0n3s__parse-1.22.3"]["resolved"] is True
    assert all(
        rows[i]["stop_reason"] == "error" for i in ("nobody__nothing-1", "r1chardj0n3s__parse-0")
    )
    predictions = [
        json.loads(x) for x in (tmp_path / "out" / "preds.jsonl").read_text().splitlines()
    ]
    assert [p["instance_id"] for p in predictions] == [
        "r1chardj0n3s__parse-1.22.3",
        "nobody__nothing-1",
        "r1chardj0n3s__parse-0",
        "r1chardj0n3s__parse-9",
    ]
    assert [bool(p["model_patch"]) for p in predictions] == [True, False, False, False]
    errors = [
        json.loads(x) for x in (tmp_path / "out" / "preds.errors.jsonl").read_text().splitlines()
    ]
    assert {e.get("instance_id") for e in errors} == {
        "nobody__nothing-1",
        "r1chardj0n3s__parse-0",
        "r1chardj0n3s__parse-9",
        None,
    }
    assert sorted(e["line"] for e in errors if "line" in e) == [3, 6]
