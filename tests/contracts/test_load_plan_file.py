import json
from pathlib import Path

import pytest

from contracts.validation import load_plan_file

SEED = Path(__file__).parent / "data" / "seed_plan.json"


def test_seed_plan_file_reports_the_missing_dependency() -> None:
    check = load_plan_file(SEED)
    assert [p.where for p in check.problems] == ["steps[0] (migrate-auth-tokens).dependencies[0]"]


def test_known_verified_passes_through() -> None:
    check = load_plan_file(SEED, known_verified=frozenset({"schema-migration-applied"}))
    assert check.ok


def test_allow_unverified_passes_through(tmp_path: Path) -> None:
    data = json.loads(SEED.read_text())
    data["steps"][0]["dependencies"] = []
    data["steps"][0]["intendedModification"]["invariants"].append("the code is readable")
    path = tmp_path / "plan.json"
    path.write_text(json.dumps(data))
    assert not load_plan_file(path).ok
    assert load_plan_file(path, allow_unverified=True).ok


@pytest.mark.parametrize(
    ("text", "where_suffix", "needle"),
    [
        ('{"goal": "g",\n  "steps": [}\n', "plan.json:2:13", "not valid JSON"),
        ('{"goal": "g" "steps": []}', "plan.json:1:14", "Expecting ',' delimiter"),
        ("goal: g\nsteps: []\n", "plan.json:1:1", "not valid JSON"),
        ('{"goal": "g", "steps": [],}', "plan.json:1:27", "not valid JSON"),
    ],
)
def test_malformed_json_is_one_line_with_line_and_column(
    tmp_path: Path, text: str, where_suffix: str, needle: str
) -> None:
    path = tmp_path / "plan.json"
    path.write_text(text)
    check = load_plan_file(path)
    assert check.plan is None and len(check.problems) == 1
    problem = check.problems[0]
    assert problem.where == f"{path.parent}/{where_suffix}"
    assert needle in problem.message
    assert "\n" not in str(problem)


@pytest.mark.parametrize(
    ("setup", "needle"),
    [
        (lambda p: None, "no such file"),
        (lambda p: p.mkdir(), "is a directory"),
        (lambda p: p.write_text("  \n"), "is empty"),
        (lambda p: p.write_bytes(b'{"goal": "\xff"}'), "not UTF-8"),
    ],
)
def test_unreadable_files_are_one_problem(tmp_path: Path, setup, needle: str) -> None:
    path = tmp_path / "plan.json"
    setup(path)
    check = load_plan_file(path)
    assert len(check.problems) == 1 and check.plan is None
    assert check.problems[0].where == str(path)
    assert needle in check.problems[0].message


def test_utf8_bom_and_unicode_content_are_fine(tmp_path: Path) -> None:
    data = json.loads(SEED.read_text())
    data["steps"][0]["dependencies"] = []
    data["steps"][0]["stepId"] = "migrer-jetons-é"
    path = tmp_path / "plan.json"
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps(data, ensure_ascii=False).encode())
    check = load_plan_file(path)
    assert check.plan is not None and check.plan.order == ["migrer-jetons-é"]


def test_a_json_array_is_not_a_plan(tmp_path: Path) -> None:
    path = tmp_path / "plan.json"
    path.write_text("[]")
    check = load_plan_file(path)
    assert [str(p) for p in check.problems] == [
        "plan: expected an object with 'goal' and 'steps', got array"
    ]


@pytest.mark.parametrize(
    ("text", "needle"), [("[" * 100_000, "nested too deeply"), ("9" * 5000, "digits")]
)
def test_pathological_json_is_one_problem(tmp_path: Path, text: str, needle: str) -> None:
    path = tmp_path / "plan.json"
    path.write_text(text)
    check = load_plan_file(path)
    assert len(check.problems) == 1 and needle in check.problems[0].message
