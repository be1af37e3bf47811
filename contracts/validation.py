"""Plan validation: every problem at once, each naming the step and field it is about.

A planner fixes a plan in one revision only if it hears about all of its mistakes together, so
nothing here stops at the first one. Type errors come from pydantic, turned into readable lines;
the rules pydantic cannot express (unique ids, known dependencies, no cycles, paths inside the
repository, rollback targets, compilable invariants) are checked on the raw data step by step,
so one malformed step does not hide the problems of the others.
"""

from __future__ import annotations

import difflib
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from contracts.compiler import InvariantCompileError, compile_invariant, forms_text
from contracts.graph import ancestors, find_cycles, topological_order
from contracts.invariants import Advisory, Invariant
from contracts.paths import covered_by, path_problem
from contracts.plan import Plan, StepContract, json_type
from contracts.readable import Loc, loc_path, readable_errors

_SLUG = re.compile(r"\w[\w.-]*")
_MAX_ID = 128
_HEAD = re.compile(r"HEAD~[1-9][0-9]*")
SCHEMA_KEY = "$schema"
"""Where an editor finds the plan's JSON Schema (`coder schema plan`); ignored by validation."""


@dataclass(frozen=True)
class Problem:
    where: str
    """e.g. `steps[2] (migrate-auth-tokens).intendedModification.files[0]`, or `plan`."""
    message: str
    shape: bool = False
    """The data does not fit the plan's JSON Schema (a wrong type, an unknown or missing
    field): what `coder schema plan` and submit_plan's input schema already rule out. The
    other problems are rules a schema cannot state (ids, dependencies, paths, the forms)."""

    def __str__(self) -> str:
        return f"{self.where}: {self.message}"


@dataclass(frozen=True)
class CompiledStep:
    contract: StepContract
    invariants: list[Invariant]
    """Compiled, in plan order; files_within_scope is implicit and not listed."""


@dataclass(frozen=True)
class ValidPlan:
    plan: Plan
    steps: dict[str, CompiledStep]
    order: list[str]
    """Topological; ties go to the step written first."""


@dataclass(frozen=True)
class PlanCheck:
    plan: ValidPlan | None
    """None when there is any problem."""
    problems: list[Problem]
    shows_forms: bool = False
    """A problem lists the compilable forms (the reader has them from now on)."""

    @property
    def ok(self) -> bool:
        return self.plan is not None


@dataclass
class _Found:
    """Problems as they are found, sorted by step at the end so the report reads top down."""

    entries: list[tuple[int, int, Problem, bool]] = field(default_factory=list)
    forms_known: bool = False
    """The reader has the compilable forms already: a problem refers to them, never repeats."""
    showed_forms: bool = False

    def add(
        self, step: int, where: str, message: str, *, wants_forms: bool = False, shape: bool = False
    ) -> None:
        problem = Problem(where, message, shape)
        self.entries.append((step, len(self.entries), problem, wants_forms))

    def problems(self) -> list[Problem]:
        out: list[Problem] = []
        forms_shown = self.forms_known
        for _, _, problem, wants_forms in sorted(self.entries, key=lambda e: e[:2]):
            if wants_forms:
                tail = f"\n{forms_text()}" if not forms_shown else " (compilable forms: see above)"
                problem = Problem(problem.where, problem.message + tail, problem.shape)
                self.showed_forms |= not forms_shown
                forms_shown = True
            out.append(problem)
        return out


def validate_plan(
    data: object,
    *,
    allow_unverified: bool = False,
    known_verified: frozenset[str] = frozenset(),
    schema_key: bool = True,
    forms_known: bool = False,
) -> PlanCheck:
    """Check a plan as it came off the wire; never raises. `schema_key`: a plan file may name
    its schema (`$schema`); a plan the model submits may not (its input schema has no such
    key). `forms_known`: the reader was shown the compilable forms, so a string that does not
    compile refers to them instead of listing them again."""
    found = _Found(forms_known=forms_known)
    if not isinstance(data, dict):
        found.add(
            -1,
            "plan",
            f"expected an object with 'goal' and 'steps', got {json_type(data)}",
            shape=True,
        )
        return PlanCheck(None, found.problems())
    if schema_key:
        schema_ref = data.get(SCHEMA_KEY, "")
        if not isinstance(schema_ref, str):
            found.add(
                -1,
                SCHEMA_KEY,
                f"is the plan schema's location, a string, not {json_type(schema_ref)}",
                shape=True,
            )
        data = {k: v for k, v in data.items() if k != SCHEMA_KEY}
    goal, notes = _check_top(data, found)
    raw_steps = data.get("steps")
    if not isinstance(raw_steps, list):
        return PlanCheck(None, found.problems())
    if not raw_steps:
        found.add(-1, "steps", "the plan has no steps; give at least one")
    wheres = [_step_where(i, raw) for i, raw in enumerate(raw_steps)]
    contracts = [_check_types(i, raw, wheres[i], found) for i, raw in enumerate(raw_steps)]
    graph = _check_graph(raw_steps, wheres, known_verified, found)
    compiled: list[list[Invariant]] = []
    for i, raw in enumerate(raw_steps):
        step = raw if isinstance(raw, dict) else {}
        files = _check_files(i, step, wheres[i], found)
        _check_rollback(i, step, wheres[i], files, graph, known_verified, found)
        compiled.append(_compile_step(i, step, wheres[i], allow_unverified, found))
    if found.entries:
        problems = found.problems()
        return PlanCheck(None, problems, shows_forms=found.showed_forms)
    steps = [contract for contract in contracts if contract is not None]
    plan = Plan(goal=goal, notes=notes, steps=steps)
    by_id = {s.step_id: CompiledStep(s, invs) for s, invs in zip(steps, compiled, strict=True)}
    return PlanCheck(ValidPlan(plan, by_id, topological_order(steps)), [])


def load_plan_file(
    path: Path, *, allow_unverified: bool = False, known_verified: frozenset[str] = frozenset()
) -> PlanCheck:
    """Read and validate a plan file (JSON); a file that cannot be read is one clear problem."""
    try:
        text = path.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        return _unreadable(str(path), "no such file")
    except IsADirectoryError:
        return _unreadable(str(path), "is a directory, not a plan file")
    except UnicodeDecodeError as exc:
        return _unreadable(str(path), f"not UTF-8 text (bad byte at offset {exc.start})")
    except OSError as exc:
        return _unreadable(str(path), f"cannot read it: {exc.strerror or exc}")
    if not text.strip():
        return _unreadable(str(path), "is empty; a plan file holds one JSON object {goal, steps}")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        return _unreadable(f"{path}:{exc.lineno}:{exc.colno}", f"not valid JSON: {exc.msg}")
    except (ValueError, RecursionError) as exc:  # e.g. a 5,000-digit number, [[[[...]]]]
        reason = "nested too deeply" if isinstance(exc, RecursionError) else str(exc)
        return _unreadable(str(path), f"not a usable JSON plan: {reason}")
    return validate_plan(data, allow_unverified=allow_unverified, known_verified=known_verified)


def _unreadable(where: str, message: str) -> PlanCheck:
    return PlanCheck(None, [Problem(where, message)])


def _check_top(data: dict[str, Any], found: _Found) -> tuple[str, str | None]:
    """Everything but the steps; returns the goal and the notes."""
    top = {**data, "steps": []} if isinstance(data.get("steps"), list) else data
    try:
        checked = Plan.model_validate(top)
        return checked.goal, checked.notes
    except ValidationError as exc:
        for loc, message in readable_errors(exc, Plan):
            if loc[:1] == ("steps",) and len(loc) > 1:
                continue  # a non-list `steps` yields per-element noise; its own error suffices
            found.add(-1, loc_path(loc) or "plan", message, shape=True)
        notes = data.get("notes")
        goal = data["goal"] if isinstance(data.get("goal"), str) else ""
        return goal, notes if isinstance(notes, str) else None


def _step_where(index: int, raw: object) -> str:
    step_id = raw.get("stepId") if isinstance(raw, dict) else None
    if isinstance(step_id, str) and step_id:
        shown = step_id if len(step_id) <= 60 else step_id[:57] + "..."
        return f"steps[{index}] ({shown})"
    return f"steps[{index}]"


def _at(where: str, loc: Loc) -> str:
    if not loc:
        return where
    suffix = loc_path(loc)
    return f"{where}{suffix}" if isinstance(loc[0], int) else f"{where}.{suffix}"


def _check_types(index: int, raw: object, where: str, found: _Found) -> StepContract | None:
    try:
        return StepContract.model_validate(raw)
    except ValidationError as exc:
        for loc, message in readable_errors(exc, StepContract):
            found.add(index, _at(where, loc), message, shape=True)
        return None


def _check_graph(
    raw_steps: list[Any], wheres: list[str], known_verified: frozenset[str], found: _Found
) -> dict[str, list[str]]:
    """Ids, dependencies and cycles; returns stepId -> dependencies for the checks after."""
    first: dict[str, int] = {}
    graph: dict[str, list[str]] = {}
    for i, raw in enumerate(raw_steps):
        step_id = raw.get("stepId") if isinstance(raw, dict) else None
        if not isinstance(step_id, str) or not step_id:
            continue
        if step_id in first:
            found.add(i, f"{wheres[i]}.stepId", f"duplicate stepId; steps[{first[step_id]}] has it")
        else:
            first[step_id] = i
            _check_slug(i, step_id, wheres[i], found)
        deps = raw.get("dependencies")
        graph.setdefault(step_id, []).extend(
            d for d in (deps if isinstance(deps, list) else []) if isinstance(d, str)
        )
    for i, raw in enumerate(raw_steps):
        deps = raw.get("dependencies") if isinstance(raw, dict) else None
        for j, dep in enumerate(deps if isinstance(deps, list) else []):
            if isinstance(dep, str) and dep not in graph and dep not in known_verified:
                found.add(i, f"{wheres[i]}.dependencies[{j}]", _unknown_dependency(dep, graph))
    for cycle in find_cycles(graph):
        start = first[cycle[0]]
        message = (
            "the step depends on itself"
            if len(cycle) == 2
            else f"dependency cycle: {' -> '.join(cycle)} (each depends on the next)"
        )
        found.add(start, f"{wheres[start]}.dependencies", message)
    return graph


def _check_slug(index: int, step_id: str, where: str, found: _Found) -> None:
    if len(step_id) > _MAX_ID:
        found.add(index, f"{where}.stepId", f"is {len(step_id)} characters; keep it to {_MAX_ID}")
    elif not _SLUG.fullmatch(step_id):
        found.add(
            index,
            f"{where}.stepId",
            f"{step_id!r} is not a slug; use letters, digits, '-', '_' or '.', "
            "starting with a letter or digit",
        )


def _unknown_dependency(dep: str, graph: dict[str, list[str]]) -> str:
    close = difflib.get_close_matches(dep, list(graph), n=1, cutoff=0.75)
    hint = f"; did you mean {close[0]!r}?" if close else ""
    return f"{dep!r} is not a step of this plan nor one verified in an earlier plan version{hint}"


def _check_files(index: int, step: dict[str, Any], where: str, found: _Found) -> list[str] | None:
    """The step's file globs when all of them are usable, else None."""
    modification = step.get("intendedModification")
    files = modification.get("files") if isinstance(modification, dict) else None
    if not isinstance(files, list):
        return None
    usable = True
    for j, path in enumerate(files):
        if not isinstance(path, str):
            usable = False
            continue
        problem = path_problem(path)
        if problem is not None:
            found.add(index, f"{where}.intendedModification.files[{j}]", f"{path!r} {problem}")
            usable = False
    return files if usable and files else None


def _check_rollback(
    index: int,
    step: dict[str, Any],
    where: str,
    files: list[str] | None,
    graph: dict[str, list[str]],
    known_verified: frozenset[str],
    found: _Found,
) -> None:
    rollback = step.get("rollbackPlan")
    if not isinstance(rollback, dict):
        return
    where = f"{where}.rollbackPlan"
    target = rollback.get("gitCheckout")
    if isinstance(target, str):
        message = _target_problem(target, step.get("stepId"), graph, known_verified)
        if message:
            found.add(index, f"{where}.gitCheckout", message)
    discard = rollback.get("discardPaths")
    for j, path in enumerate(discard if isinstance(discard, list) else []):
        if not isinstance(path, str):
            continue
        problem = path_problem(path)
        if problem is not None:
            found.add(index, f"{where}.discardPaths[{j}]", f"{path!r} {problem}")
        elif files is not None and not covered_by(files, path):
            found.add(
                index,
                f"{where}.discardPaths[{j}]",
                f"{path!r} is outside this step's files ({', '.join(files)}); "
                "a step may discard only what it may touch",
            )


def _target_problem(
    target: str, step_id: object, graph: dict[str, list[str]], known_verified: frozenset[str]
) -> str | None:
    usage = (
        "use 'HEAD~N' (N >= 1; HEAD~1 is the checkpoint just before this step) or 'step:<stepId>'"
    )
    if _HEAD.fullmatch(target):
        return None
    if not target.startswith("step:"):
        return f"{target!r} is not a rollback target; {usage}"
    ref = target.removeprefix("step:")
    if ref == step_id or ref in known_verified:
        return None
    if ref not in graph:
        return f"{target!r} names no step of this plan nor one verified earlier; {usage}"
    if isinstance(step_id, str) and ref in ancestors(graph, step_id):
        return None
    return (
        f"{target!r} is neither this step nor one it depends on, so that checkpoint may not "
        "exist when this step rolls back; add it to dependencies or use 'HEAD~N'"
    )


def _compile_step(
    index: int, step: dict[str, Any], where: str, allow_unverified: bool, found: _Found
) -> list[Invariant]:
    modification = step.get("intendedModification")
    items = modification.get("invariants") if isinstance(modification, dict) else None
    compiled: list[Invariant] = []
    for j, item in enumerate(items if isinstance(items, list) else []):
        if not isinstance(item, str | dict):
            continue
        try:
            compiled.append(compile_invariant(item))
        except InvariantCompileError as exc:
            if exc.unmatched_text and allow_unverified and isinstance(item, str):
                compiled.append(Advisory(text=item.strip(), source=item))
                continue
            base = f"{where}.intendedModification.invariants[{j}]"
            for loc, message in exc.reasons:
                found.add(
                    index,
                    _at(base, loc),
                    message,
                    wants_forms=exc.unmatched_text,
                    shape=exc.shape,
                )
    return compiled
