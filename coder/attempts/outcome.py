"""The result.json of a run of several attempts: the chosen attempt's change and steps, the
whole run's spend, and the candidates as the selection saw them.

The chosen attempt is the selected one, or with none verified the closest one (its change is
what `coder/<run-id>` then holds, and the run is not verified). Tokens and model turns count
every attempt: they are what the run cost. The timing is the chosen attempt's, and the time
the run spent besides (waiting for the other attempts, selecting) is counted as the harness's,
so the parts still add up to `wall_s`.
"""

from __future__ import annotations

from typing import Any

from coder.attempts.selection import Selection
from contracts.result import STATUS_FOR_REASON, RunResult, Timing, Tokens


def parent_result(
    *,
    run_id: str,
    task: str,
    mode: str,
    models: list[str],
    base_commit: str,
    chosen: RunResult | None,
    selection: Selection,
    stop_reason: str | None,
    wall_s: float,
    turns: int,
) -> RunResult:
    tokens = Tokens(
        input=sum(c.tokens.input for c in selection.candidates),
        output=sum(c.tokens.output for c in selection.candidates),
    )
    wall = round(wall_s, 3)
    reason = stop_reason or _reason(chosen, selection)
    fields: dict[str, Any] = {
        "run_id": run_id,
        "status": STATUS_FOR_REASON[reason],
        "stop_reason": reason,
        "mode": mode,
        "task": task,
        "branch": f"coder/{run_id}",
        "tokens": tokens,
        "wall_s": wall,
        "message": _message(chosen, selection, stop_reason, len(models)),
        "candidates": selection.candidates,
        "selected": selection.selected,
        "model_turns": turns,
    }
    if chosen is None:
        return RunResult.model_validate(
            {
                **fields,
                "model": ", ".join(dict.fromkeys(models)),
                "base_commit": base_commit,
                "final_commit": None,
                "harness_s": wall,
                "timing": Timing(harness_s=wall),
            }
        )
    timing = _timing(chosen.timing, wall)
    kept = chosen.model_dump(exclude=set(fields) | {"timing", "harness_s"})
    return RunResult.model_validate(
        {**kept, **fields, "timing": timing, "harness_s": timing.harness_s}
    )


def _reason(chosen: RunResult | None, selection: Selection) -> str:
    if selection.selected is not None:
        return "completed"
    if chosen is None:
        return "interrupted"
    return chosen.stop_reason if chosen.stop_reason != "completed" else "final_check_failed"


def _message(
    chosen: RunResult | None, selection: Selection, stop_reason: str | None, attempts: int
) -> str:
    if stop_reason == "rejected_by_user":
        return "stopped before the attempts began: nothing was spent"
    if selection.selected is not None:
        why = selection.reasons[-1].split(": ", 1)[-1]
        said = chosen.message if chosen else ""
        return f"attempt {selection.selected} of {attempts} selected ({why}); {said}"
    if selection.closest is not None:
        said = f": {chosen.message}" if chosen and chosen.message else ""
        return f"no attempt verified; attempt {selection.closest} came closest{said}"
    return "no attempt ran" if stop_reason is None else "interrupted before any attempt ended"


def _timing(chosen: Timing, wall: float) -> Timing:
    parts = chosen.model_dump()
    parts.pop("harness_s")
    besides = round(max(0.0, wall - sum(parts.values())), 3)
    return Timing(**parts, harness_s=besides)
