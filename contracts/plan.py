"""The plan and its step contracts, exactly as they travel on the wire (camelCase).

Invariants arrive as strings or objects; `contracts.validation.validate_plan` compiles the
strings and reports every problem at once. These models only describe shape.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel


class WireModel(BaseModel):
    model_config = ConfigDict(
        alias_generator=to_camel, populate_by_name=True, extra="forbid", frozen=True
    )

    def wire(self) -> dict[str, Any]:
        """The camelCase JSON-ready form, without unset optional fields."""
        return self.model_dump(mode="json", by_alias=True, exclude_none=True)


class IntendedModification(WireModel):
    files: list[str] = Field(min_length=1)
    invariants: list[str | dict[str, Any]] = Field(default_factory=list)


class RollbackPlan(WireModel):
    git_checkout: str = "HEAD~1"
    discard_paths: list[str] | None = None


class StepContract(WireModel):
    step_id: str = Field(min_length=1)
    title: str | None = None
    dependencies: list[str] = Field(default_factory=list)
    intended_modification: IntendedModification
    rollback_plan: RollbackPlan = Field(default_factory=RollbackPlan)


class Plan(WireModel):
    goal: str = ""
    steps: list[StepContract]
