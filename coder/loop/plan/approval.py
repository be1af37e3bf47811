"""--approve: a person sees every plan version before any step of it runs.

After a plan version is accepted (the first and every revision) the person is shown it and
chooses: run it, edit it (their editor on the JSON; the edit is validated like any plan and
becomes a version of its own), or stop the run (`rejected_by_user`). Every answer that is not
a decision, every edit that fails, costs one round, and the rounds are bounded: nothing runs
that was not approved, and nothing waits forever. Running out of rounds ends the run with
`needs_input`, not as a rejection: the person never chose to stop it.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from coder.loop.plan.given_plan import escaping_files
from coder.loop.plan.planning import record_version
from coder.loop.run.runtime import Runtime
from coder.loop.state.state import RunStop
from contracts.result import PlanSource
from contracts.schema import json_schema
from contracts.validation import SCHEMA_KEY, ValidPlan, validate_plan

MAX_ROUNDS = 6
ANSWERS = {
    "run": ("r", "run", "y", "yes"),
    "edit": ("e", "edit"),
    "stop": ("s", "stop", "n", "no", "q", "quit"),
}


class EditorUnavailable(Exception):
    """The editor could not be started; one line saying which and how to pick another."""


class Reviewer(Protocol):
    """The person at the terminal."""

    def show(self, plan: ValidPlan, version: int, source: PlanSource) -> None: ...

    def choose(self, question: str) -> str:
        """One answer; EOFError when the terminal has no more input."""
        ...

    def edit(self, path: Path) -> int:
        """Open the editor on `path` and wait; its exit status (EditorUnavailable)."""
        ...

    def say(self, line: str) -> None: ...


@dataclass
class PlanApproval:
    reviewer: Reviewer | None
    """None without a terminal: only a plan given with --plan can be approved then."""
    max_rounds: int = MAX_ROUNDS

    def review(
        self, rt: Runtime, plan: ValidPlan, version: int, source: PlanSource
    ) -> tuple[ValidPlan, int]:
        """The version to run and its number (the one shown, or the person's edit of it);
        RunStop when the person stops the run."""
        if source == "user" and plan is rt.given_plan:
            rt.trace.emit("plan_approved", version=version, by="plan_file")
            return plan, version
        if self.reviewer is None:
            raise RunStop(
                "needs_input",
                f"plan v{version} needs your approval (--approve) and there is no terminal to ask on",
            )
        scratch = Path(tempfile.mkdtemp(prefix="coder-plan-"))
        try:
            return self._rounds(rt, self.reviewer, plan, version, source, scratch)
        finally:
            shutil.rmtree(scratch, ignore_errors=True)

    def _rounds(
        self,
        rt: Runtime,
        reviewer: Reviewer,
        plan: ValidPlan,
        version: int,
        source: PlanSource,
        scratch: Path,
    ) -> tuple[ValidPlan, int]:
        for _ in range(self.max_rounds):
            reviewer.show(plan, version, source)
            try:
                answer = reviewer.choose(f"plan v{version}: [r]un it, [e]dit it, or [s]top?")
            except EOFError:
                answer = "stop"
            decision = _decision(answer)
            if decision == "run":
                rt.trace.emit("plan_approved", version=version, by="terminal")
                return plan, version
            if decision == "stop":
                rt.trace.emit("plan_declined", version=version)
                raise RunStop("rejected_by_user", f"you stopped the run at plan v{version}")
            if decision is None:
                reviewer.say(f"{answer.strip()!r} is not an answer; type r, e or s")
                continue
            edited = _edit(rt, reviewer, plan, version, scratch)
            if edited is not None:
                version = record_version(rt, edited, "user", "plan_edited", from_version=version)
                plan, source = edited, "user"
                reviewer.say(f"your edit is plan v{version}")
        rt.trace.emit("plan_declined", version=version, rounds=self.max_rounds)
        raise RunStop(  # the person never chose to stop: the run waits on their decision
            "needs_input",
            f"no decision on plan v{version} after {self.max_rounds} prompts; nothing of it ran",
        )


def _decision(answer: str) -> str | None:
    said = answer.strip().lower()
    return next((name for name, words in ANSWERS.items() if said in words), None)


def _edit(
    rt: Runtime, reviewer: Reviewer, plan: ValidPlan, version: int, scratch: Path
) -> ValidPlan | None:
    """The person's valid edit, or None (and why, said to them) with the plan unchanged.

    A failed validation keeps their text, so the next edit starts from it; an editor that
    exited non-zero (`:cq`) threw its edit away, so the next one starts from the plan again."""
    path = scratch / f"plan.v{version}.json"
    if not path.exists():
        _write_draft(path, plan)
    try:
        status = reviewer.edit(path)
    except EditorUnavailable as exc:
        reviewer.say(f"{exc}; plan v{version} is unchanged")
        return None
    if status != 0:
        path.unlink(missing_ok=True)
        reviewer.say(f"the editor exited with status {status}; plan v{version} is unchanged")
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8-sig"))
    except (OSError, UnicodeDecodeError) as exc:
        reviewer.say(f"cannot read your edit ({exc}); plan v{version} is unchanged")
        return None
    except json.JSONDecodeError as exc:
        where = f"line {exc.lineno}, column {exc.colno}"
        reviewer.say(
            f"your edit is not valid JSON ({where}: {exc.msg}); plan v{version} is unchanged"
        )
        return None
    check = validate_plan(
        data, allow_unverified=rt.allow_unverified, known_verified=frozenset(rt.state.verified)
    )
    problems = [str(p) for p in check.problems]
    if check.plan is not None:
        problems = escaping_files(check.plan, rt.root)
    if problems:
        head = f"your edit is not a valid plan; plan v{version} is unchanged"
        reviewer.say(f"{head}: {problems[0]}" if len(problems) == 1 else f"{head}:")
        for problem in problems if len(problems) > 1 else []:
            reviewer.say(f"  {problem}")
        return None
    assert check.plan is not None
    if check.plan.plan == plan.plan:
        path.unlink(missing_ok=True)
        reviewer.say(f"no change; plan v{version} stays as it is")
        return None
    path.unlink(missing_ok=True)
    return check.plan


def _write_draft(path: Path, plan: ValidPlan) -> None:
    """The plan as JSON, pointing at the plan schema so an editor that knows JSON Schema
    checks the edit as it is typed."""
    schema = path.parent / "plan.schema.json"
    schema.write_text(json.dumps(json_schema("plan"), indent=2) + "\n", encoding="utf-8")
    draft = {SCHEMA_KEY: f"./{schema.name}", **plan.plan.wire()}
    path.write_text(json.dumps(draft, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
