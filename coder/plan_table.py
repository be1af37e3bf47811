"""A plan as a person reads it before it runs: one row per step, in the order steps run."""

from __future__ import annotations

from rich.markup import escape
from rich.table import Table

from contracts.validation import ValidPlan


def plan_table(plan: ValidPlan, title: str) -> Table:
    """Step, files, invariants in words (what the harness will check) and dependencies."""
    table = Table(title=escape(title), show_lines=True, title_justify="left", expand=False)
    table.add_column("#", justify="right")
    table.add_column("step")
    table.add_column("files")
    table.add_column("checked after the step")
    table.add_column("depends on")
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
