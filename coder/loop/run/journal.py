"""state.json kept current as the run goes, so `coder resume` can continue it.

The journal listens to the trace only for *when* to write: at each moment that changes what a
resume would do (a plan in force, a checkpoint, a verified step, a rollback, the end). What it
writes comes from the live run state, never from re-reading the trace.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Any, Protocol

from coder.loop.run.runtime import Runtime
from coder.verdict.baseline import Baseline
from coder.verdict.run import restored_run
from contracts.result import Timing
from contracts.saved_run import (
    InProgress,
    SavedBaseline,
    SavedLimits,
    SavedRun,
    SavedSpent,
    save_run,
)
from sandbox.confine import CommandResult
from sandbox.gitcli import git
from sandbox.workspace import Workspace


class _Resumed(Protocol):
    @property
    def run_id(self) -> str: ...


class RunFlags(Protocol):
    """What the journal records of the run's options (`coder.loop.runner.RunOptions` is one):
    a protocol, so the journal needs nothing of the runner that attaches it."""

    @property
    def sandbox(self) -> str | None: ...

    @property
    def resume(self) -> _Resumed | None: ...


SAVE_ON = frozenset(
    {
        "baseline",
        "run_resumed",
        "plan_submitted",
        "plan_approved",
        "plan_edited",
        "plan_revised",
        "checkpoint",
        "step_verified",
        "rollback",
        "run_finished",
    }
)


class Journal:
    def __init__(self, rt: Runtime, record: SavedRun) -> None:
        self.rt = rt
        self.record = record

    @classmethod
    def attach(
        cls, rt: Runtime, options: RunFlags, model_spec: str, workspace: Workspace
    ) -> Journal:
        limits = rt.limits
        record = SavedRun(
            run_id=rt.trace.run_id,
            repo=str(workspace.repo),
            branch=workspace.branch,
            base_commit=workspace.base_commit,
            head=workspace.base_commit,
            mode=rt.mode,
            model=model_spec,
            task=rt.task,
            task_context=rt.task_context,
            test_cmd=rt.test_cmd,
            sandbox=options.sandbox,
            allow_unverified=rt.allow_unverified,
            revise=rt.revise,
            approve=rt.approval is not None,
            limits=SavedLimits(
                max_turns=limits.max_turns,
                max_revisions=limits.max_revisions,
                timeout_s=limits.timeout_s,
                cmd_timeout_s=limits.cmd_timeout_s,
                max_tokens=limits.max_tokens,
            ),
            resumed_from=options.resume.run_id if options.resume else None,
        )
        journal = cls(rt, record)
        rt.trace.subscribe(journal)
        return journal

    def __call__(self, event: dict[str, Any]) -> None:
        kind = event["type"]
        if kind == "checkpoint":
            self.record.in_progress = InProgress(step=event["step"], checkpoint=event["sha"])
        elif kind in ("step_verified", "rollback") and event.get("step"):
            self.record.in_progress = None
        elif kind == "run_finished":
            self.record.status = "ended"
            self.record.stop_reason = event["stop_reason"]
            self.record.message = event.get("message", "")
        if kind in SAVE_ON:
            self.save()

    def save(self) -> None:
        state, record = self.rt.state, self.record
        head = git(["rev-parse", "HEAD"], self.rt.root, check=False).decode().strip()
        record.head = head or record.head
        record.spent = SavedSpent(
            turns=state.turns,
            input_tokens=state.input_tokens,
            output_tokens=state.output_tokens,
            cache_read_tokens=state.cache_read_tokens,
            cache_write_tokens=state.cache_write_tokens,
            wall_s=round(state.elapsed(), 3),
            timing=Timing(**{k: round(v, 3) for k, v in asdict(state.spent).items()}),
            plan_versions=state.plan_versions,
            revisions=state.revisions,
            rollbacks=state.rollbacks,
        )
        record.plan = state.plan.plan.wire() if state.plan else None
        record.plan_version = state.plan_version or None
        record.plan_sources = list(state.plan_sources)
        record.steps = [o.model_copy(deep=True) for o in list(state.steps.values())]
        record.step_commits = dict(state.step_commits)
        record.verified = list(state.verified)
        record.awaiting_revision = state.awaiting_revision
        record.failures = dict(state.failures)
        if self.rt.baseline is not None and record.baseline is None:
            record.baseline = saved_baseline(self.rt.baseline)
        scan = self.rt.trace.redact.scan
        if scan:  # a string that holds a secret the harness holds is withheld, whatever its form
            data = record.model_dump(mode="json")
            kept = scan.withhold(data)
            if kept != data:
                save_run(self.rt.run_dir, type(record).model_validate(kept))
                return
        save_run(self.rt.run_dir, record)


def saved_baseline(base: Baseline) -> SavedBaseline:
    run = base.run
    return SavedBaseline(
        command=base.command,
        ran=run.command if run else None,
        exit_code=base.exit_code,
        timed_out=base.timed_out,
        duration_s=round(base.duration_s, 3),
        outcomes=dict(run.outcomes) if run else {},
        messages=dict(run.messages) if run else {},
        incomplete=base.incomplete,
        removed=list(run.removed) if run else [],
        missing_environment=list(base.missing_environment),
    )


def restored_baseline(saved: SavedBaseline) -> Baseline:
    """The baseline as the run took it, less its log (nothing judges by the log)."""
    if saved.command is None:
        return Baseline(None)
    ran = saved.ran or saved.command
    result = CommandResult(
        command=ran,
        exit_code=saved.exit_code if saved.exit_code is not None else 124,
        duration_s=saved.duration_s,
        output="",
        timed_out=saved.timed_out,
    )
    run = restored_run(
        saved.command,
        ran,
        result,
        saved.outcomes,
        saved.messages,
        saved.incomplete,
        list(saved.removed),
    )
    return Baseline(saved.command, run, saved.duration_s, list(saved.missing_environment))
