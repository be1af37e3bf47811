"""What `coder ci fix` did, as one model (JSON) and as the PR comment (markdown)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from coder.ci.comments import FIX_MARKER
from coder.ci.render import fenced

FixStatus = Literal["tests_pass", "old_failures_only", "pushed", "not_verified", "push_failed"]

EXIT_FOR_STATUS: dict[str, int] = {
    "tests_pass": 0,
    "old_failures_only": 0,
    "pushed": 0,
    "not_verified": 1,
    "push_failed": 1,
}


class FixStep(BaseModel):
    model_config = ConfigDict(extra="forbid")

    step_id: str
    status: str
    commit: str | None = None
    checks: list[str] = Field(default_factory=list)
    """Each invariant of the last attempt as `kind: status`."""


class FixReport(BaseModel):
    model_config = ConfigDict(extra="forbid")

    status: FixStatus
    message: str
    """One line for the person: what happened and, when nothing was pushed, why."""
    head: str
    test_cmd: str | None = None
    failing: list[str] = Field(default_factory=list)
    """The failing tests the agent was asked to fix."""
    run_id: str | None = None
    run_dir: str | None = None
    stop_reason: str | None = None
    final_commit: str | None = None
    steps: list[FixStep] = Field(default_factory=list)
    remote: str | None = None
    branch: str | None = None
    """The branch the fix was (or would have been) pushed to."""
    compare_url: str | None = None
    log: str = ""
    """The compacted test output at head."""

    @property
    def exit_code(self) -> int:
        return EXIT_FOR_STATUS[self.status]


_HEADLINES = {
    "tests_pass": "✅ Tests pass at head; nothing to fix.",
    "old_failures_only": "⚠️ Tests fail at head, but only those that already fail at base; "
    "nothing for this PR to fix.",
    "pushed": "🔧 The agent fixed the failing tests; the verified change is on its own branch.",
    "not_verified": "❌ The agent's fix did not verify; nothing was pushed.",
    "push_failed": "❌ The fix verified but could not be pushed.",
}


def render_fix_markdown(report: FixReport) -> str:
    lines = [FIX_MARKER, "## coder ci fix", "", _HEADLINES[report.status], "", report.message]
    if report.branch and report.status == "pushed":
        where = f"`{report.remote}/{report.branch}`" if report.remote else f"`{report.branch}`"
        lines += ["", f"Branch: {where} at `{(report.final_commit or '')[:10]}`"]
        if report.compare_url:
            lines.append(f"Compare: {report.compare_url}")
        lines += [
            "",
            "To take it into this PR:",
            "",
            fenced(
                f"git fetch {report.remote or 'origin'} {report.branch}\n"
                "git merge --ff-only FETCH_HEAD"
            ),
        ]
    if report.failing:
        shown = ", ".join(f"`{t}`" for t in report.failing[:20])
        more = f" and {len(report.failing) - 20} more" if len(report.failing) > 20 else ""
        lines += ["", f"Failing tests at head `{report.head[:10]}`: {shown}{more}"]
    if report.steps:
        rows = ["| step | status | checks | commit |", "|---|---|---|---|"]
        rows += [
            f"| `{s.step_id}` | {s.status} | {', '.join(s.checks)} | "
            f"{f'`{s.commit[:10]}`' if s.commit else ''} |"
            for s in report.steps
        ]
        lines += ["", *rows]
    if report.stop_reason and report.status != "pushed":
        lines += ["", f"Stop reason: `{report.stop_reason}`"]
    if report.log:
        lines += [
            "",
            "<details><summary>test output at head, compacted</summary>",
            "",
            fenced(report.log),
            "",
            "</details>",
        ]
    if report.run_id:
        lines += ["", f"<sub>run {report.run_id}, test command `{report.test_cmd}`</sub>"]
    return "\n".join(lines).rstrip() + "\n"
