"""result.json and final.patch, written from state whatever way the run ended."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from coder.loop.state.diskfull import disk_full
from coder.models.pricing import billed_input
from contracts.result import STATUS_FOR_REASON, FinalCheck, RunResult, Timing, Tokens
from sandbox.gitcli import git, git_to_file
from sandbox.secrets import SecretScan

PATCH_INLINE_BYTES = 4 << 20
"""Past this, result.json's `patch` does not hold the patch: it says so and points at
final.patch (a step's change is bounded, a run's many steps are not)."""

if TYPE_CHECKING:
    from coder.loop.run.runtime import Runtime
    from coder.loop.state.state import RunState, Spent


def write_outputs(
    rt: Runtime,
    *,
    options: Any,
    model_spec: str,
    workspace: Any,
    reason: str,
    message: str,
    final: FinalCheck | None,
) -> RunResult:
    state = rt.state
    final_commit = git(["rev-parse", "HEAD"], rt.root, check=False).decode().strip() or None
    # Bytes, not text: a patch may touch files in any encoding and must apply byte for byte.
    # Written by git straight to the file: the harness never holds a patch of any size beyond
    # the secret scan, which a step's change bound keeps bounded.
    final_patch = rt.run_dir / "final.patch"
    if not _patch_written(final_patch, workspace.base_commit, rt.root):
        message += "; final.patch could not be written (is the disk full?)"
    elif rt.trace.redact.scan.holds(final_patch.read_bytes()):
        final_patch.write_bytes(b"")
        message += "; final.patch withheld: the change holds a secret the harness holds"
    patch = inline_patch(final_patch)
    wall = state.elapsed()
    timing = _timing(state.spent, wall)
    steps = [state.steps[s] for s in (state.plan.order if state.plan else []) if s in state.steps]
    steps += [o for s, o in state.steps.items() if o not in steps]
    result = RunResult(
        run_id=rt.trace.run_id,
        status=STATUS_FOR_REASON[reason],
        stop_reason=reason,  # type: ignore[arg-type]
        mode=rt.mode,  # type: ignore[arg-type]
        model=model_spec,
        task=rt.task,
        base_commit=workspace.base_commit,
        branch=workspace.branch,
        final_commit=final_commit,
        steps=steps,
        plan_versions=state.plan_versions,
        rollbacks=state.rollbacks,
        revisions=state.revisions,
        model_turns=state.turns,
        tokens=run_tokens(state, model_spec),
        wall_s=round(wall, 3),
        harness_s=timing.harness_s,
        timing=timing,
        patch=patch,
        message=message,
        final_check=final,
        baseline=rt.baseline.result() if rt.baseline else None,
        pr=options.pr,
        plan_source=state.plan_sources[0] if state.plan_sources else None,
        plan_sources=state.plan_sources,
        resumed_from=options.resume.run_id if options.resume else None,
    )
    _drop_partial(rt.run_dir)
    try:
        save_result(rt.run_dir, result)
    except OSError as exc:
        if (full := disk_full(exc)) is None:
            raise
        result.message += f"; result.json could not be written: {full}"
    return result


def run_tokens(state: RunState, model_spec: str) -> Tokens:
    """The run's tokens; with the cache figures and billed input when the provider
    reported any cache reads or writes."""
    tokens = Tokens(input=state.input_tokens, output=state.output_tokens)
    read, write = state.cache_read_tokens, state.cache_write_tokens
    if read or write:
        billed = billed_input(model_spec, state.input_tokens, read, write)
        tokens = tokens.model_copy(
            update={"cache_read": read, "cache_write": write, "billed_input": round(billed, 1)}
        )
    return tokens


def _drop_partial(run_dir: Path) -> None:
    """What a write cut short (a full disk) left: a temporary file, an empty plan file. A run
    directory holds whole files or none."""
    for partial in run_dir.glob("*.tmp"):
        partial.unlink(missing_ok=True)
    for plan in run_dir.glob("plan.v*.json"):
        try:
            json.loads(plan.read_bytes())
        except ValueError:
            plan.unlink(missing_ok=True)


def _patch_written(final_patch: Path, base: str, root: Path) -> bool:
    """final.patch written whole by git; a partial one (no room) is removed, never left."""
    try:
        written = git_to_file(["diff", "--binary", base, "HEAD"], root, final_patch) == 0
    except OSError as exc:
        if disk_full(exc) is None:
            raise
        written = False
    if not written:
        final_patch.unlink(missing_ok=True)
    return written


def inline_patch(final_patch: Path, cap: int = PATCH_INLINE_BYTES) -> str:
    """The patch for result.json: all of final.patch, or past `cap` a line saying where it is."""
    size = final_patch.stat().st_size if final_patch.exists() else 0
    if size > cap:
        return f"(the patch is {size} bytes, over the {cap} shown here: see final.patch)\n"
    return final_patch.read_bytes().decode("utf-8", errors="replace") if size else ""


def save_result(run_dir: Path, result: RunResult) -> None:
    """(Re)write result.json: after the run, and when something later adds to it (--apply,
    the PR bot's push)."""
    text = result.model_dump_json(indent=2)
    scan = SecretScan.of_environment()
    if scan:  # a string that holds a secret, in any form this scan knows, is withheld
        data = json.loads(text)
        kept = scan.withhold(data)
        if kept != data:
            text = json.dumps(kept, indent=2, ensure_ascii=False)
    (run_dir / "result.json").write_text(text + "\n", encoding="utf-8")


def _timing(spent: Spent, wall: float) -> Timing:
    parts = {name: round(seconds, 3) for name, seconds in vars(spent).items()}
    return Timing(**parts, harness_s=round(max(0.0, wall - spent.accounted()), 3))
