"""The plan and its step contracts, exactly as they travel on the wire (camelCase).

Invariants arrive as strings or objects; `contracts.validation.validate_plan` compiles the
strings and reports every problem at once. These models only describe shape.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field
from pydantic.alias_generators import to_camel


class WireModel(BaseModel):
    """Strict, as JSON Schema is: `"3"` is not an integer, a number is not a string, so the
    schema the model is sent (contracts.schema) allows exactly what validation accepts."""

    model_config = ConfigDict(
        alias_generator=to_camel,
        populate_by_name=True,
        extra="forbid",
        frozen=True,
        use_attribute_docstrings=True,
        strict=True,
    )

    def wire(self) -> dict[str, Any]:
        """The camelCase JSON-ready form, without unset optional fields."""
        return self.model_dump(mode="json", by_alias=True, exclude_none=True)


def json_type(value: object) -> str:
    """The JSON name of a value's type, for messages a planner can act on."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list | tuple):
        return "array"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__


def integral(value: object) -> object:
    """JSON Schema's "integer" is any number with no fraction, 3.0 too: as an int (never
    "3" or true, which strict validation refuses). Put it after a Field's bounds in an
    Annotated (`Annotated[int, Field(ge=1), BeforeValidator(integral)]`), or pydantic writes
    the bound into the JSON Schema as `ge`, a keyword JSON Schema does not know."""
    return int(value) if isinstance(value, float) and value.is_integer() else value


def _string_or_object(value: object) -> object:
    # One clear message instead of one error per member of the union.
    if isinstance(value, str | dict):
        return value
    raise ValueError(f"an invariant is a string or an object with a kind, not {json_type(value)}")


InvariantItem = Annotated[str | dict[str, Any], BeforeValidator(_string_or_object)]
"""A natural-language invariant, or an object such as {"kind": "command_succeeds", ...}."""


class IntendedModification(WireModel):
    files: list[str] = Field(min_length=1)
    """Repo-relative paths or globs; the step may create, edit or delete only these."""
    invariants: list[InvariantItem] = Field(default_factory=list)
    """What must hold after the step; checked by the verifier, not the executor."""


class RollbackPlan(WireModel):
    git_checkout: str = "HEAD~1"
    """`HEAD~N` (N >= 1; HEAD~1 is the checkpoint just before the step) or `step:<stepId>`."""
    discard_paths: list[str] | None = None
    """Paths to restore on rollback; each must lie within the step's files."""


class StepContract(WireModel):
    step_id: str = Field(min_length=1)
    """Unique slug: letters, digits, '-', '_' or '.'."""
    title: str | None = None
    dependencies: list[str] = Field(default_factory=list)
    """stepIds of this plan, or of steps verified in an earlier plan version."""
    intended_modification: IntendedModification
    rollback_plan: RollbackPlan = Field(default_factory=RollbackPlan)


class Plan(WireModel):
    goal: str = ""
    notes: str | None = None
    """What the planner found, for the executors (root cause, the lines involved, decisions
    taken); every step briefing and every revision carries it with the goal."""
    steps: list[StepContract]
