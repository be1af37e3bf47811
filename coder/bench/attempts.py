"""`coder bench --attempts N`: each fixture or instance × mode is one `coder run --attempts N`,
and the report says what the attempts bought, per mode, side by side:

- resolved@1: the first attempt alone resolved (what one run would have given);
- resolved@N: what coder's selection chose resolved (the selected attempt, or with none
  verified the closest one: the change the run's branch holds);
- oracle: any attempt resolved (what a perfect selector would reach);

with the tokens and the wall time of the first attempt alone and of the whole run.

Attempt i replays its own script when there is one: a fixture's `scripts/<mode>.a<i>.json`
(`script:DIR`: `DIR/<name>.<mode>.a<i>.json`), else the attempt-1 script; any other model is
the same model for every attempt.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from rich.table import Table

from coder.bench.jobs import Row

Judge = Callable[[str | None], bool]
"""Whether the tree at a commit resolves the task (None: no commit, the base)."""


def attempt_models(default: Path, model: str | None, attempts: int) -> list[str]:
    """One model spec per attempt. `default` is attempt 1's script (`<dir>/<mode>.json` or
    `DIR/<name>.<mode>.json`), used when `model` is none or a `script:` path."""
    if model and not model.startswith("script:"):
        return [model] * attempts
    first = Path(model.removeprefix("script:")) if model else default
    return [f"script:{variant(first, i)}" for i in range(1, attempts + 1)]


def variant(script: Path, attempt: int) -> Path:
    """Attempt `attempt`'s script beside `script` (`x.json` -> `x.a2.json`), if there is one."""
    if attempt == 1:
        return script
    own = script.with_name(f"{script.stem}.a{attempt}{script.suffix}")
    return own if own.is_file() else script


def is_variant(script: Path) -> bool:
    """Whether `script` is a later attempt's script (`x.a2.json`), not a run's own."""
    return re.fullmatch(r"a[2-9]|a[1-9][0-9]+", Path(script.stem).suffix[1:]) is not None


def attempt_fields(result: Any, run_dir: Path, judge: Judge) -> Row:
    """The row fields of a run of several attempts: each attempt judged on its own commit.
    (The row's `resolved` is the run's own: the commit its branch holds, the selected
    attempt's or with none verified the closest one's.)"""
    from coder.attempts.facts import load_result

    judged: list[dict[str, Any]] = []
    for candidate in result.candidates or []:
        own = load_result(run_dir / f"a{candidate.attempt}")
        commit = own.final_commit if own else None
        resolved = candidate.status != "not_run" and judge(commit)
        judged.append(
            {
                "attempt": candidate.attempt,
                "status": candidate.status,
                "selected": candidate.selected,
                "resolved": resolved,
                "tokens": candidate.tokens.input + candidate.tokens.output,
                "wall_s": candidate.wall_s,
                "proofs": f"{candidate.proofs_passed}/{candidate.proofs_total}",
            }
        )
    first = judged[0] if judged else {"resolved": False, "tokens": 0, "wall_s": 0.0}
    return {
        "attempts": judged,
        "selected": result.selected,
        "resolved_at_1": first["resolved"],
        "oracle": any(j["resolved"] for j in judged),
        "tokens_at_1": first["tokens"],
        "wall_at_1": first["wall_s"],
    }


def chosen_dir(run_dir: Path, result: Any) -> Path:
    """Where the evidence of the change a run holds is: a run of attempts keeps each
    attempt's run in `a<i>/`, and the one its branch holds is the run's evidence."""
    from coder.attempts.facts import load_result

    for candidate in result.candidates or []:
        own = run_dir / f"a{candidate.attempt}"
        if candidate.selected:
            return own
        kept = load_result(own) if result.selected is None else None
        if kept is not None and kept.final_commit == result.final_commit:
            return own
    return run_dir


def attempts_summary(rows: Sequence[Row], modes: Sequence[str]) -> dict[str, dict[str, Any]]:
    summary: dict[str, dict[str, Any]] = {}
    for mode in modes:
        runs = [r for r in rows if r.get("mode") == mode and "attempts" in r]
        if not runs:
            continue
        summary[mode] = {
            "runs": len(runs),
            "resolved_at_1": sum(1 for r in runs if r["resolved_at_1"]),
            "resolved_at_n": sum(1 for r in runs if r["resolved"]),
            "oracle": sum(1 for r in runs if r["oracle"]),
            "mean_tokens_at_1": _mean([r["tokens_at_1"] for r in runs]),
            "mean_tokens_at_n": _mean([_tokens(r) for r in runs]),
            "mean_wall_at_1": _mean([r["wall_at_1"] for r in runs]),
            "mean_wall_at_n": _mean([float(r.get("wall_s") or 0.0) for r in runs]),
        }
    return summary


def attempts_view(summary: dict[str, dict[str, Any]], attempts: int) -> Table:
    table = Table(title=f"{attempts} attempts: what selection buys", title_justify="left")
    for name in (
        "mode",
        "@1",
        f"@{attempts}",
        "oracle",
        "tokens @1",
        f"@{attempts}",
        "wall @1",
        f"@{attempts}",
    ):  # noqa: E501
        table.add_column(name, justify="left" if name == "mode" else "right")
    for mode, s in summary.items():
        n = s["runs"]
        table.add_row(
            mode,
            f"{s['resolved_at_1']}/{n}",
            f"{s['resolved_at_n']}/{n}",
            f"{s['oracle']}/{n}",
            f"{s['mean_tokens_at_1']:,.0f}",
            f"{s['mean_tokens_at_n']:,.0f}",
            f"{s['mean_wall_at_1']:.0f}s",
            f"{s['mean_wall_at_n']:.0f}s",
        )
    return table


def _tokens(row: Row) -> int:
    tokens = row.get("tokens") or {}
    return int(tokens.get("input", 0)) + int(tokens.get("output", 0))


def _mean(values: list[float]) -> float:
    return sum(values) / len(values) if values else 0.0
