"""`coder show --transcript` and `--diff`: what the model did, call by call, and what the run
changed, read from the run directory after the fact.

The transcript is the trace's conversation: each model call (its phase and tokens), what the
model said, each tool call with its full input, and what came back, in order, with the
harness's own milestones (plan versions, steps, checks, rollbacks) between them. Every value
came from a model or a repository, so it is printed as plain text, never as markup.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.syntax import Syntax

from coder.display import plain

OBSERVATION_LINES = 60
"""An observation longer than this is shown by its first lines and a count of the rest."""


def transcript_lines(events: list[dict[str, Any]]) -> list[str]:
    """The run's conversation and milestones as plain lines."""
    lines: list[str] = []
    for e in events:
        kind = e.get("type")
        if kind == "model_call":
            lines.append(
                f"── model call {e.get('turn', '?')} ({e.get('phase', '?')}): "
                f"{_n(e.get('tokens_in'))} tokens in, {_n(e.get('tokens_out'))} out"
            )
        elif kind == "decision" and str(e.get("text") or "").strip():
            lines.append("model says:")
            lines.extend(_indented(str(e["text"])))
        elif kind == "action":
            lines.append(f"→ {e.get('tool', '?')} {_args(e.get('args'))}")
        elif kind == "observation":
            status = e.get("status", "?")
            lines.append(f"← {e.get('tool') or 'harness'} [{status}]")
            lines.extend(_indented(str(e.get("text") or ""), OBSERVATION_LINES))
        elif kind in ("plan_submitted", "plan_edited"):
            steps = ", ".join(map(str, e.get("steps") or []))
            lines.append(f"== plan v{e.get('version', '?')}: {steps}")
        elif kind == "step_started":
            lines.append(f"== step {e.get('step', '?')} (attempt {e.get('attempt', '?')})")
        elif kind == "verification":
            what = e.get("kind", "?") if e.get("step") else "final check"
            lines.append(f"   check {what}: {e.get('status', '?')} {e.get('evidence') or ''}")
        elif kind == "rollback":
            lines.append(f"== rolled back {e.get('step') or 'the change'} to {e.get('to', '?')}")
        elif kind == "step_verified":
            lines.append(f"== verified {e.get('step', '?')} → {str(e.get('commit', ''))[:10]}")
        elif kind == "run_finished":
            lines.append(
                f"== {e.get('status', '?')} ({e.get('stop_reason', '?')}): {e.get('message', '')}"
            )
    return [plain(line) for line in lines]


def print_transcript(console: Console, events: list[dict[str, Any]]) -> None:
    console.rule("transcript")
    if not events:
        console.print("(no trace)")
    for line in transcript_lines(events):
        console.print(line, markup=False, highlight=False, soft_wrap=True)


def run_patch(run_dir: Path, result: dict[str, Any] | None) -> str | None:
    """The run's whole change: final.patch, else the patch result.json carries."""
    patch_file = run_dir / "final.patch"
    if patch_file.is_file():
        return patch_file.read_bytes().decode("utf-8", errors="replace")
    patch = (result or {}).get("patch")
    return patch if isinstance(patch, str) else None


def print_diff(console: Console, run_dir: Path, result: dict[str, Any] | None) -> None:
    console.rule("diff")
    patch = run_patch(run_dir, result)
    if not patch or not patch.strip():
        console.print("(the run changed nothing)")
        return
    text = plain(patch)
    if console.is_terminal:
        console.print(Syntax(text, "diff", theme="ansi_dark", word_wrap=True))
    else:
        console.print(text, markup=False, highlight=False, soft_wrap=True, end="")


def _args(args: object) -> str:
    if isinstance(args, dict) and set(args) == {"command"}:
        return str(args["command"])
    return json.dumps(args, ensure_ascii=False)


def _indented(text: str, limit: int | None = None) -> list[str]:
    lines = text.splitlines() or [""]
    shown = lines if limit is None else lines[:limit]
    out = [f"    {line}" for line in shown]
    if len(lines) > len(shown):
        out.append(f"    … {len(lines) - len(shown)} more line(s)")
    return out


def _n(value: object) -> str:
    return f"{value:,}" if isinstance(value, int) else str(value)
