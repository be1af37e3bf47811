"""A plan as a person reads it before it runs: one row per step, in the order steps run.

Nothing in it is ever cut to an ellipsis: a person approves what the table says, so a path
(`inflection/__init__.py`) too long for its column is folded onto the next line whole, and
the files column is given the width of the longest path when the terminal has it."""

from __future__ import annotations

from rich.markup import escape
from rich.table import Table

from contracts.validation import ValidPlan

FILES_MIN = 30
"""The files column is never narrower than its longest path, up to this many columns."""


def plan_table(plan: ValidPlan, title: str) -> Table:
    """Step, files, invariants in words (what the harness will check) and dependencies."""
    table = Table(title=escape(title), show_lines=True, title_justify="left", expand=False)
    longest = max(
        (len(f) for s in plan.steps.values() for f in s.contract.intended_modification.files),
        default=5,
    )
    table.add_column("#", justify="right", no_wrap=True)
    table.add_column("step", overflow="fold", ratio=2)
    table.add_column("files", overflow="fold", min_width=min(longest, FILES_MIN), ratio=3)
    table.add_column("checked after the step", overflow="fold", ratio=4)
    table.add_column("depends on", overflow="fold", ratio=1)
    for index, step_id in enumerate(plan.order, 1):
        step = plan.steps[step_id]
        contract = step.contract
        name = step_id + (f"\n{contract.title}" if contract.title else "")
        files = "\n".join(contract.intended_modification.files)
        checks = "\n".join(f"• {inv.describe()}" for inv in step.invariants)
        checks = checks or "• only these files change (no other check)"
        deps = ", ".join(contract.dependencies) or "—"
        table.add_row(str(index), escape(name), escape(files), escape(checks), escape(deps))
    return table


def plan_title(plan: ValidPlan, version: int | None = None, source: str = "model") -> str:
    label = f"plan v{version}" if version else "plan"
    by = " (yours)" if source == "user" else ""
    goal = f": {plan.plan.goal}" if plan.plan.goal else ""
    return f"{label}{by}{goal}"
