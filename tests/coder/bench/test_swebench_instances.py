"""The SWE-bench instance format: JSON Lines or a JSON list, encoded or plain test lists, and
every line that is not an instance named by its number while the others load."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from swebench_repos import INSTANCES

from coder.bench.jobs import absolute_model, model_for
from coder.bench.predictions import errors_path, mode_path, model_name
from coder.bench.swebench import InstanceFileError, load_instances


def instance(ident: str = "acme__widgets-1", **fields) -> dict:
    record = {
        "instance_id": ident,
        "repo": "acme/widgets",
        "base_commit": "0123456789abcdef0123456789abcdef01234567",
        "problem_statement": "Widgets break.",
        "test_patch": "diff --git a/t.py b/t.py\n",
        "FAIL_TO_PASS": '["tests/test_w.py::test_a"]',
        "PASS_TO_PASS": "[]",
        "created_at": "2024-01-01",
        "patch": "not read",
    }
    record.update(fields)
    return record


def test_shipped_file_loads_with_json_encoded_lists():
    loaded = load_instances(INSTANCES)
    assert loaded.problems == []
    assert len(loaded.instances) == 3
    assert {i.repo for i in loaded.instances} == {"r1chardj0n3s/parse", "martinblech/xmltodict"}
    first = loaded.instances[0]
    assert first.FAIL_TO_PASS == ["tests/test_parse.py::test_numbers"]
    assert first.clone_name == "r1chardj0n3s__parse"


def test_a_json_list_with_plain_lists_loads_the_same(tmp_path):
    records = [json.loads(line) for line in INSTANCES.read_text().splitlines()]
    for record in records:
        record["FAIL_TO_PASS"] = json.loads(record["FAIL_TO_PASS"])
    path = tmp_path / "instances.json"
    path.write_text(json.dumps(records, indent=2))
    assert load_instances(path).instances == load_instances(INSTANCES).instances


def test_bad_lines_are_named_by_number_and_the_rest_load(tmp_path):
    lines = [
        json.dumps(instance("acme__widgets-1")),
        '{"instance_id": "acme__widgets-2", "repo": ',
        json.dumps(instance("acme__widgets-3", FAIL_TO_PASS="tests/test_w.py::test_a")),
        "",
        json.dumps(instance("acme__widgets-1", problem_statement="again")),
        json.dumps(instance("acme__widgets-4", repo="no-slash")),
        "[1, 2]",
        json.dumps(instance("acme__widgets-5")),
    ]
    path = tmp_path / "instances.jsonl"
    path.write_text("\n".join(lines) + "\n")
    loaded = load_instances(path)
    assert [i.instance_id for i in loaded.instances] == ["acme__widgets-1", "acme__widgets-5"]
    by_line = {p.line: p for p in loaded.problems}
    assert sorted(by_line) == [2, 3, 5, 6, 7]
    assert by_line[2].message.startswith("not JSON") and by_line[2].instance_id is None
    assert "FAIL_TO_PASS" in by_line[3].message and by_line[3].instance_id == "acme__widgets-3"
    assert by_line[5].message == "duplicate instance_id acme__widgets-1 (first on line 1)"
    assert by_line[5].instance_id is None
    assert "repo" in by_line[6].message
    assert "not an instance" in by_line[7].message


def test_a_broken_json_list_names_the_line(tmp_path):
    path = tmp_path / "instances.json"
    path.write_text("[\n" + json.dumps(instance()) + ",\n" + '{"instance_id": }\n]\n')
    loaded = load_instances(path)
    assert len(loaded.instances) == 1
    assert [p.line for p in loaded.problems] == [3]


def test_an_unreadable_file_is_one_error(tmp_path):
    with pytest.raises(InstanceFileError, match="no such file"):
        load_instances(tmp_path / "missing.jsonl")


def test_hints_reach_the_task_only_when_asked():
    loaded = load_instances(INSTANCES).instances
    hinted = next(i for i in loaded if i.hints_text)
    assert hinted.task(False) == hinted.problem_statement
    assert hinted.task(True).endswith(hinted.hints_text)
    plain = next(i for i in loaded if not i.hints_text)
    assert plain.task(True) == plain.problem_statement


def test_script_directory_means_one_script_per_run(tmp_path):
    assert model_for(f"script:{tmp_path}", "acme__widgets-1", "react") == (
        f"script:{tmp_path / 'acme__widgets-1.react.json'}"
    )
    single = tmp_path / "one.json"
    single.write_text("{}")
    assert model_for(f"script:{single}", "x", "react") == f"script:{single}"
    assert model_for("anthropic:claude", "x", "react") == "anthropic:claude"
    assert absolute_model("script:rel/dir") == f"script:{Path('rel/dir').resolve()}"


def test_prediction_names_keep_modes_and_models_apart(tmp_path):
    assert model_name("contract", "anthropic:claude-sonnet-4-5") == (
        "coder-contract__anthropic-claude-sonnet-4-5"
    )
    assert model_name("react", f"script:{tmp_path / 'scripts'}") == "coder-react__script-scripts"
    assert model_name("plan", "openai:org/model:q4") == "coder-plan__openai-org-model-q4"
    out = tmp_path / "preds.jsonl"
    assert errors_path(out).name == "preds.errors.jsonl"
    assert mode_path(out, "react").name == "preds.react.jsonl"
