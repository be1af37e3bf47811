"""What the harness saw of one bench run, read from its trace, its result and its repository.

The failure class of a run (coder/bench/classes.py) and its cost are derived from this alone:
the checks that failed and why, how the run stopped, the baseline's environment diagnosis, and
two looks at the shipped change the run loop itself does not take in every mode (public
signatures it breaks, files it changed outside its scope). Nothing here reads the fixture's
tags or its acceptance suite.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from coder.ci.gitrefs import changed_paths, file_at
from coder.ci.symbols import file_symbol_changes
from coder.loop.state.trace import read_trace
from contracts.result import RunResult
from sandbox.globs import normalize_path
from sandbox.policy import out_of_scope
from summarizers.tokens import clip_chars

CACHE_WRITE, CACHE_READ, UNCACHED = 1.25, 0.1, 1.0
"""Billed input as Anthropic bills a cached prompt (and the context benchmark counts it)."""
FILE_TOOLS = frozenset({"edit_file", "write_file", "delete_file"})
REFUSED = "refused: this exact call already failed twice"
HEAD_CHARS = 240


@dataclass(frozen=True)
class FailedCheck:
    """A step verification that failed (contract mode)."""

    kind: str
    step: str
    timed_out: bool = False
    regressed: list[str] = field(default_factory=list)
    """Tests that passed at the base and failed in this check's run."""
    head: str = ""
    """The first line of the check's evidence: why, in the verifier's words."""

    def said(self) -> str:
        return clip_chars(f"{self.step} {self.kind}: {self.head}", HEAD_CHARS)


@dataclass(frozen=True)
class RunEvidence:
    mode: str
    stop_reason: str
    final_passed: bool | None = None
    final_timed_out: bool = False
    new_failures: list[str] = field(default_factory=list)
    missing_environment: list[str] = field(default_factory=list)
    failed_checks: list[FailedCheck] = field(default_factory=list)
    ended_on_parse_errors: bool = False
    refusals: int = 0
    """Calls the loop breaker refused (the same failing call a third time)."""
    command_timeouts: int = 0
    """The model's own `run` commands that hit their time limit."""
    breaking: list[str] = field(default_factory=list)
    """`path: symbol` for each public symbol the shipped change breaks callers of."""
    drifted: list[str] = field(default_factory=list)
    """Files the shipped change touches outside its scope: outside every step's files (plan),
    or changed by no file tool call of the attempt that shipped (react, reflect)."""
    billed_input: float = 0.0
    output_tokens: int = 0
    model_s: float = 0.0


def gather(run_dir: Path, result: RunResult, repo: Path) -> RunEvidence:
    events = read_trace(run_dir / "trace.jsonl")
    shipped = result.final_commit or result.base_commit
    changed = [c.path for c in changed_paths(repo, result.base_commit, shipped)]
    final = result.final_check
    return RunEvidence(
        mode=result.mode,
        stop_reason=result.stop_reason,
        final_passed=final.passed if final else None,
        final_timed_out=bool(final and final.timed_out),
        new_failures=list(final.new_failures) if final else [],
        missing_environment=_missing_environment(events),
        failed_checks=_failed_checks(events),
        ended_on_parse_errors=_ended_on_parse_errors(events),
        refusals=sum(
            1 for e in _of(events, "observation") if str(e.get("text", "")).startswith(REFUSED)
        ),
        command_timeouts=_command_timeouts(events),
        breaking=breaking_changes(repo, result.base_commit, shipped, changed),
        drifted=_drifted(result.mode, run_dir, events, changed),
        billed_input=round(billed_input(events), 1),
        output_tokens=sum(int(e.get("tokens_out") or 0) for e in _of(events, "model_call")),
        model_s=round(sum(float(e.get("latency_s") or 0) for e in _of(events, "model_call")), 3),
    )


def billed_input(events: list[dict[str, Any]]) -> float:
    """Input tokens as billed: cache writes at 1.25x, cache reads at 0.1x, the rest at 1x."""
    total = 0.0
    for e in _of(events, "model_call"):
        read, write = int(e.get("cache_read") or 0), int(e.get("cache_write") or 0)
        plain = max(0, int(e.get("tokens_in") or 0) - read - write)
        total += plain * UNCACHED + write * CACHE_WRITE + read * CACHE_READ
    return total


def breaking_changes(repo: Path, base: str, head: str, paths: list[str]) -> list[str]:
    """Public symbols whose change breaks a call that worked at the base (the PR bot's and the
    verifier's compatibility judgement); tests, examples and private modules never count."""
    found = []
    for path in paths:
        changes = file_symbol_changes(path, file_at(repo, base, path), file_at(repo, head, path))
        found += [f"{path}: {c.name}" for c in changes.changes if c.compatible is False]
    return found


def _of(events: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [e for e in events if e.get("type") == kind]


def _missing_environment(events: list[dict[str, Any]]) -> list[str]:
    for e in _of(events, "baseline"):
        return list(e.get("missing_environment") or [])
    return []


def _failed_checks(events: list[dict[str, Any]]) -> list[FailedCheck]:
    return [
        FailedCheck(
            kind=str(e["kind"]),
            step=str(e["step"]),
            timed_out=bool(e.get("timed_out")),
            regressed=list(e.get("regressed") or []),
            head=str(e.get("evidence") or "").split("\n", 1)[0],
        )
        for e in _of(events, "verification")
        if e.get("step") is not None and e.get("status") == "failed"
    ]


def _ended_on_parse_errors(events: list[dict[str, Any]]) -> bool:
    decisions = _of(events, "decision")
    return bool(decisions) and decisions[-1].get("decision") == "parse_error"


def _command_timeouts(events: list[dict[str, Any]]) -> int:
    return sum(
        1
        for e in _of(events, "observation")
        if e.get("tool") == "run" and "\ntimed out after " in str(e.get("text", ""))
    )


def _drifted(
    mode: str, run_dir: Path, events: list[dict[str, Any]], changed: list[str]
) -> list[str]:
    if mode == "contract":
        return []  # files_within_scope checked every step from the git diff
    if mode == "plan":
        plans = sorted(run_dir.glob("plan.v*.json"), key=lambda p: int(p.stem.split(".v")[-1]))
        if not plans:
            return []
        plan = json.loads(plans[-1].read_text(encoding="utf-8"))
        files = [f for s in plan.get("steps", []) for f in s["intendedModification"]["files"]]
        return out_of_scope(changed, files, protected=())
    edited = _edited_by_tools(events)
    return [path for path in changed if path not in edited]


def _edited_by_tools(events: list[dict[str, Any]]) -> set[str]:
    """Paths a file tool changed, in the attempt that shipped (after the last discard)."""
    discards = [
        i for i, e in enumerate(events) if e.get("type") == "rollback" and e.get("to") == "base"
    ]
    shipped = events[discards[-1] + 1 :] if discards else events
    asked = {
        e.get("call_id"): normalize_path(str(e.get("args", {}).get("path", "")))
        for e in _of(shipped, "action")
        if e.get("tool") in FILE_TOOLS
    }
    return {
        asked[e["call_id"]]
        for e in _of(shipped, "observation")
        if e.get("call_id") in asked and e.get("status") == "ok"
    }
