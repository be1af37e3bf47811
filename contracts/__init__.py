"""Wire models and the pure functions over them: plan validation, invariant compiling, order."""

from contracts.compiler import COMPILABLE_FORMS, InvariantCompileError, compile_invariant
from contracts.graph import CycleError, ready_steps, topological_order
from contracts.plan import Plan, StepContract
from contracts.schema import SCHEMA_NAMES, UnknownSchemaError, json_schema
from contracts.script import Script, ScriptError, load_script
from contracts.validation import (
    CompiledStep,
    PlanCheck,
    Problem,
    ValidPlan,
    load_plan_file,
    validate_plan,
)

__all__ = [
    "COMPILABLE_FORMS",
    "SCHEMA_NAMES",
    "CompiledStep",
    "CycleError",
    "InvariantCompileError",
    "Plan",
    "PlanCheck",
    "Problem",
    "Script",
    "ScriptError",
    "StepContract",
    "UnknownSchemaError",
    "ValidPlan",
    "compile_invariant",
    "json_schema",
    "load_plan_file",
    "load_script",
    "ready_steps",
    "topological_order",
    "validate_plan",
]
