"""A plan file may say where its JSON Schema is (`"$schema"`), as editors expect; validation
ignores the key, and the exported schema allows it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from contracts.schema import json_schema
from contracts.validation import load_plan_file, validate_plan

SEED = json.loads((Path(__file__).parent / "data" / "seed_plan.json").read_text())


def _plan(**top: object) -> dict:
    step = {**SEED["steps"][0], "dependencies": []}
    return {**top, "goal": SEED["goal"], "steps": [step]}


def test_a_schema_reference_is_ignored_by_validation(tmp_path: Path) -> None:
    check = validate_plan(_plan(**{"$schema": "./plan.schema.json"}))
    assert check.ok, check.problems
    assert "$schema" not in check.plan.plan.wire()  # type: ignore[union-attr]
    path = tmp_path / "plan.json"
    path.write_text(json.dumps(_plan(**{"$schema": "https://example.invalid/plan.json"})))
    assert load_plan_file(path).ok


def test_a_schema_reference_that_is_not_a_string_is_a_problem() -> None:
    check = validate_plan(_plan(**{"$schema": 3}))
    assert [(p.where, p.message) for p in check.problems] == [
        ("$schema", "is the plan schema's location, a string, not number")
    ]


def test_the_exported_schema_accepts_what_validation_accepts() -> None:
    jsonschema = pytest.importorskip("jsonschema")
    validator = jsonschema.Draft202012Validator(json_schema("plan"))
    assert not list(validator.iter_errors(_plan(**{"$schema": "./plan.schema.json"})))
    assert list(validator.iter_errors(_plan(**{"$schema": 3})))
    assert list(validator.iter_errors(_plan(schema="x")))  # any other unknown key is still wrong
