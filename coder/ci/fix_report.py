"""What `coder ci fix` did, as one model (JSON) and as the PR comment (markdown)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Literal

import unidiff
from pydantic import BaseModel, ConfigDict, Field

from coder.ci.comments import FIX_MARKER
from coder.ci.pr_effect import PrEffect, PrHunk
from coder.ci.render import fenced, folded
from coder.loop.state.trace import read_trace
from contracts.result import PullRequestRecord, RunResult
from summarizers.logformats.context import is_test_path

FixStatus = Literal[
    "tests_pass", "old_failures_only", "pushed", "not_verified", "push_failed", "reverts_pr"
]
FixFailOn = Literal["revert"]
PATCH_CHARS = 40_000
"""The patch shown in the comment is cut here (GitHub's limit is 65,536 for the whole body)."""

EXIT_FOR_STATUS: dict[str, int] = {
    "tests_pass": 0,
    "old_failures_only": 0,
    "pushed": 0,
    "not_verified": 1,
    "push_failed": 1,
    "reverts_pr": 1,
}


class FixStep(BaseModel):
    model_config = ConfigDict(extra="forbid")

    step_id: str
    status: str
    commit: str | None = None
    checks: list[str] = Field(default_factory=list)
    """Each invariant of the last attempt as `kind: status`."""
    summary: str | None = None
    """What the model said it did (its finish_step summary, last attempt)."""


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
    pr: PullRequestRecord | None = None
    """Which PR, and (once pushed) the branch and commit the fix went to."""
    pr_effect: PrEffect | None = None
    """What the verified fix does to the PR's own change; None without --base."""
    patch: str = ""
    """The agent's whole change against head."""

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
    "reverts_pr": "❌ The agent's fix reverts this PR's change; nothing was pushed "
    "(`--fail-on revert`).",
}
REVERTING_HEADLINE = (
    "⚠️ The tests pass with the agent's fix, but it reverts this PR's change: merging it "
    "would drop what the PR set out to do. It is on its own branch."
)


def fix_steps(result: RunResult, run_dir: Path) -> list[FixStep]:
    """The run's steps with what the model said each did, read back from its trace."""
    summaries = _finish_summaries(run_dir / "trace.jsonl")
    return [
        FixStep(
            step_id=s.stepId,
            status=s.status,
            commit=s.commit,
            checks=[f"{i.kind}: {i.status}" for i in s.invariants],
            summary=summaries.get(s.stepId),
        )
        for s in result.steps
    ]


def _finish_summaries(trace: Path) -> dict[str, str]:
    summaries: dict[str, str] = {}
    step: str | None = None
    for event in read_trace(trace) if trace.is_file() else []:
        if event.get("type") == "step_started":
            step = event.get("step")
        elif event.get("type") == "action" and event.get("tool") == "finish_step" and step:
            summary = (event.get("args") or {}).get("summary")
            if isinstance(summary, str) and summary.strip():
                summaries[step] = summary.strip()
    return summaries


def render_fix_markdown(report: FixReport) -> str:
    effect = report.pr_effect
    headline = _HEADLINES[report.status]
    if report.status == "pushed" and effect is not None and effect.reverts_all:
        headline = REVERTING_HEADLINE
    if report.status == "pushed" and (tests_only := _tests_only(report.patch)):
        headline += f" It changes tests only: {tests_only}."
    lines = [FIX_MARKER, "## coder ci fix", "", headline, "", report.message]
    if effect is not None:
        lines += ["", f"**What the fix does to the PR:** {effect.sentence}.", "", _hunks(effect)]
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
    said = [f"- `{s.step_id}`: {_text(s.summary)}" for s in report.steps if s.summary]
    if said:
        lines += ["", folded("what the agent says it did", "\n".join(said))]
    if report.patch.strip():
        lines += ["", _patch(report.patch)]
    if report.stop_reason and report.status != "pushed":
        lines += ["", f"Stop reason: `{report.stop_reason}`"]
    if report.log:
        lines += ["", folded("test output at head, compacted", fenced(report.log))]
    if report.run_id:
        lines += ["", f"<sub>run {report.run_id}, test command `{report.test_cmd}`</sub>"]
    return "\n".join(lines).rstrip() + "\n"


def _tests_only(patch: str) -> str:
    """The files of a fix that touches nothing but tests, for the headline: a failing test made
    to pass by changing the test is what a reviewer must see first. "" for any other fix."""
    try:
        files = list(unidiff.PatchSet(patch)) if patch.strip() else []
    except unidiff.UnidiffParseError:
        return ""
    paths = [f.path for f in files]
    if not paths or not all(is_test_path(p) for p in paths):
        return ""
    return ", ".join(f"`{f.path}` (+{f.added} −{f.removed})" for f in files)


def _hunks(effect: PrEffect) -> str:
    rows = ["| file | line at head | changed lines | the fix |", "|---|---|---|---|"]
    rows += [f"| `{h.path}` | {h.head_line} | {h.lines} | {_fate(h)} |" for h in effect.hunks]
    n = len(effect.hunks)
    return folded(f"the PR's {n} hunk{'s' if n != 1 else ''}, one by one", "\n".join(rows))


def _fate(hunk: PrHunk) -> str:
    if hunk.fate == "changed" and hunk.reverted_lines:
        return f"changed ({hunk.reverted_lines} line(s) back as at base)"
    return hunk.fate


def _patch(patch: str) -> str:
    added = sum(
        1 for line in patch.splitlines() if line.startswith("+") and not line.startswith("+++")
    )
    removed = sum(
        1 for line in patch.splitlines() if line.startswith("-") and not line.startswith("---")
    )
    shown = patch
    note = ""
    if len(patch) > PATCH_CHARS:
        shown = patch[:PATCH_CHARS]
        note = (
            "\n\n(patch cut to fit the comment; `final.patch` in the run directory has all of it)"
        )
    return folded(f"the patch (+{added} −{removed})", fenced(shown, lang="diff") + note)


def _text(text: str | None) -> str:
    """Model-written text as inert text in the comment: one code span, so no link, image,
    autolink, mention or HTML in it is rendered (none clickable, none unfolding a block)."""
    flat = " ".join((text or "").split())
    ticks = "`" * (1 + max((len(run) for run in re.findall("`+", flat)), default=0))
    pad = " " if flat.startswith("`") or flat.endswith("`") else ""
    return f"{ticks}{pad}{flat}{pad}{ticks}"
