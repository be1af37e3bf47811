"""The tool vocabulary the model sees: one pydantic model per tool, grouped by phase.

The JSON schemas sent to the model are generated from these models, and the same models
validate the arguments that come back, so the two can never drift apart: `submit_plan`'s is
the plan's own model (contracts.plan, with the invariant objects), the one `validate_plan`
checks a plan's shape with. The models are strict, as JSON Schema is.
"""

from __future__ import annotations

from functools import cache
from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, ValidationError

from coder.models.base import ToolSpec
from contracts.plan import Plan, integral
from contracts.schema import plan_input_schema, wire_schema


class _Args(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


LineNumber = Annotated[int, Field(ge=1), BeforeValidator(integral)]


class ReadFile(_Args):
    """Read a file of the repository, with line numbers. Ranges are 1-based and inclusive."""

    path: str
    start_line: LineNumber | None = None
    end_line: LineNumber | None = None


class ListFiles(_Args):
    """List repository files, optionally filtered by a glob (`src/**/*.py`, `*.{ini,cfg}`)."""

    glob: str | None = None


class Search(_Args):
    """Search file contents for a regular expression; returns path:line: text as in the file."""

    pattern: str = Field(min_length=1)
    glob: str | None = None


class EditFile(_Args):
    """Replace old_text, which must occur exactly once in the file, with new_text."""

    path: str
    old_text: str = Field(min_length=1)
    new_text: str


class WriteFile(_Args):
    """Create or overwrite a whole file."""

    path: str
    content: str


class DeleteFile(_Args):
    """Delete a file."""

    path: str


class Run(_Args):
    """Run a bash command in the repository, confined: no network, no secrets, timed out.
    Output is compacted: no need to pipe it into head or tail. A failure anywhere in the last
    pipeline fails the command, as with `set -o pipefail` (`make test | tail` fails when the
    tests fail), but not one stopped by SIGPIPE because a later `head` stopped reading. .git
    is read-only: git log, diff and `git show HEAD:FILE` (the code before your change) work;
    git stash, commit, checkout and reset cannot write (the harness commits verified work)."""

    command: str = Field(min_length=1)


class RestoreAttempt(_Args):
    """Restore this step's last rolled-back attempt as it left the files (all, or only
    `paths`; files outside the step's are not, the result names them), then edit what was
    wrong instead of re-typing what was right."""

    paths: list[str] | None = None


class FinishStep(_Args):
    """Declare the current step done; the harness then verifies its invariants itself. The
    summary is for the trace and the next step; a call without one still ends the step."""

    summary: str = ""


class FinalAnswer(_Args):
    """Declare the task done. `tests_removed`: tests (ids or files) the task asked you to delete
    or skip; the final check does not count them as missing, and the user is told which."""

    summary: str = ""
    tests_removed: list[str] = []


class CritiqueDone(_Args):
    """Give the verdict on the attempt: "ok" ships it as it is; "problem" (say what is wrong)
    discards it, and a fresh attempt starts from the original code with your critique."""

    verdict: Literal["ok", "problem"]
    problem: str | None = None


class AskUser(_Args):
    """Ask the person a question; only when the task cannot go on without an answer."""

    question: str = Field(min_length=1)


class StopRun(_Args):
    """Stop the run, giving the reason."""

    reason: str


SUBMIT_PLAN = (
    "Submit the plan: a goal, notes for the executors and a list of step contracts (see the "
    "plan format)."
)

TOOL_ARGS: dict[str, type[BaseModel]] = {
    "read_file": ReadFile,
    "list_files": ListFiles,
    "search": Search,
    "edit_file": EditFile,
    "write_file": WriteFile,
    "delete_file": DeleteFile,
    "run": Run,
    "finish_step": FinishStep,
    "restore_attempt": RestoreAttempt,
    "final_answer": FinalAnswer,
    "critique_done": CritiqueDone,
    "submit_plan": Plan,
    "ask_user": AskUser,
    "stop": StopRun,
}

READ_TOOLS = ("read_file", "list_files", "search")
PLAN_TOOLS = (*READ_TOOLS, "run", "submit_plan", "ask_user", "stop")
EXECUTE_TOOLS = (
    *READ_TOOLS,
    "edit_file",
    "write_file",
    "delete_file",
    "restore_attempt",
    "run",
    "finish_step",
    "stop",
)
REACT_TOOLS = (*READ_TOOLS, "edit_file", "write_file", "delete_file", "run", "final_answer", "stop")
CRITIQUE_TOOLS = (*READ_TOOLS, "run", "critique_done", "stop")

PHASE_ENDING = frozenset({"submit_plan", "finish_step", "final_answer", "critique_done"})


def tool_specs(names: tuple[str, ...]) -> list[ToolSpec]:
    return [_spec(name) for name in names]


@cache
def _spec(name: str) -> ToolSpec:
    """Built once per tool: the schema is sent with every model call and never changes."""
    if name == "submit_plan":
        return ToolSpec(name=name, description=SUBMIT_PLAN, input_schema=plan_input_schema())
    model = TOOL_ARGS[name]
    description = " ".join((model.__doc__ or "").split())
    return ToolSpec(name=name, description=description, input_schema=wire_schema(model))


def usage_line(name: str) -> str:
    """The exact call form, shown when the model gets a tool's arguments wrong."""
    model = TOOL_ARGS[name]
    fields = []
    for field_name, info in model.model_fields.items():
        optional = "" if info.is_required() else "?"
        fields.append(f'"{info.alias or field_name}{optional}": …')
    return f"{name} {{{', '.join(fields)}}}"


def args_problem(name: str, args: dict[str, Any]) -> str | None:
    """What is wrong with a call's input by its tool's model, or None. `submit_plan` is judged
    whole by `validate_plan` (its shape by the same models), so it is not checked here."""
    if name not in TOOL_ARGS or name == "submit_plan":
        return None
    try:
        TOOL_ARGS[name].model_validate(args)
    except ValidationError as exc:
        return bad_arguments(name, exc)
    return None


def bad_arguments(tool: str, exc: ValidationError) -> str:
    problems = "; ".join(
        f"{'.'.join(str(p) for p in e['loc']) or '(arguments)'}: {e['msg']}" for e in exc.errors()
    )
    return f"bad arguments for {tool}: {problems}. Use: {usage_line(tool)}"
