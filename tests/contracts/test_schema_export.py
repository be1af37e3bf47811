import json
from pathlib import Path

import pytest

from contracts.compiler import COMPILABLE_FORMS
from contracts.invariants import INVARIANT_KINDS
from contracts.schema import SCHEMA_NAMES, UnknownSchemaError, json_schema

jsonschema = pytest.importorskip("jsonschema")
DATA = Path(__file__).parent / "data"


@pytest.mark.parametrize("name", ["plan", "script", "result"])
def test_each_schema_is_valid_draft_2020_12(name: str) -> None:
    schema = json_schema(name)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    jsonschema.Draft202012Validator.check_schema(schema)
    json.dumps(schema)  # serialisable as printed by `coder schema`


def test_names() -> None:
    assert SCHEMA_NAMES == ("plan", "script", "result")


def test_unknown_name_lists_the_known_ones() -> None:
    with pytest.raises(UnknownSchemaError) as caught:
        json_schema("plans")
    assert str(caught.value) == "unknown schema 'plans'; known: plan, script, result"


def plan_validator():
    return jsonschema.Draft202012Validator(json_schema("plan"))


def test_seed_plan_matches_the_plan_schema() -> None:
    plan_validator().validate(json.loads((DATA / "seed_plan.json").read_text()))


@pytest.mark.parametrize(
    "mutate",
    [
        lambda p: p["steps"][0].update(gitCheckout="x"),
        lambda p: p["steps"][0]["rollbackPlan"].update(gitCheckout="HEAD~0"),
        lambda p: p["steps"][0]["intendedModification"]["invariants"].append({"kind": "nope"}),
        lambda p: p["steps"][0]["intendedModification"]["invariants"].append(
            {"kind": "command_succeeds"}
        ),
        lambda p: p["steps"][0]["intendedModification"].update(files=[]),
        lambda p: p["steps"][0].pop("stepId"),
    ],
)
def test_plan_schema_rejects_what_validation_rejects(mutate) -> None:
    plan = json.loads((DATA / "seed_plan.json").read_text())
    mutate(plan)
    assert list(plan_validator().iter_errors(plan))


def test_plan_schema_names_every_kind_and_the_forms() -> None:
    text = json.dumps(json_schema("plan"))
    for kind in INVARIANT_KINDS:
        assert f'"{kind}"' in text
    assert COMPILABLE_FORMS[0] in text
    assert "files_within_scope" not in text and "advisory" not in text
    assert '"source"' not in text


def test_script_schema_accepts_the_design_example() -> None:
    example = json.loads((DATA / "script_example.json").read_text())
    jsonschema.Draft202012Validator(json_schema("script")).validate(example)


def test_result_schema_comes_from_the_run_result_model() -> None:
    schema = json_schema("result")
    for key in ("run_id", "status", "stop_reason", "steps", "tokens", "patch"):
        assert key in schema["properties"]
