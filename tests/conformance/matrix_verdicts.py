"""A cell run through coder's public contracts and judged: the scripted model drives one run,
and the verdicts are read from what the run wrote (result.json, trace.jsonl), never from
coder's internals.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from matrix_cells import Cell, Expected

from coder.loop.runner import RunOptions, run_task

_COMMAND_TIMEOUT_S = 300.0
"""node-tap on a loaded 2-core machine takes tens of seconds a run."""


@dataclass
class Observed:
    step: str | None = None
    proof: str | None = None
    final: str = "not verified"
    refused: str | None = None
    """Why the run did not start (coder's exit 2), when it did not."""
    result: dict[str, Any] = field(default_factory=dict)
    events: list[dict[str, Any]] = field(default_factory=list)

    def checks(self, kind: str) -> list[dict[str, Any]]:
        return [e for e in self.events if e["type"] == "verification" and e.get("kind") == kind]

    def first(self, kind: str) -> dict[str, Any] | None:
        found = self.checks(kind)
        return found[0] if found else None


TASK = "absolute() returns a negative argument unchanged; make it return its magnitude"
REMOVAL_TASK = TASK + ", and delete the test of absolute(0): it is obsolete"
"""A deletion named by `tests_removed` verifies only where the task asks for it (issue 32: a
model cannot waive a test that ran at the base by declaring it removed)."""


def run_cell(
    repo: Path, out: Path, script: dict[str, Any], test_cmd: str, task: str = TASK
) -> Observed:
    """One `coder run` of the cell's script on its repository (in process, as `coder run
    --model script:FILE --test-cmd CMD --no-revise --out DIR` would)."""
    path = out.parent / "script.json"
    path.write_text(json.dumps(script, indent=1), encoding="utf-8")
    options = RunOptions(
        repo=repo,
        task=task,
        model=f"script:{path}",
        test_cmd=test_cmd,
        revise=False,
        out_dir=out,
        cmd_timeout_s=_COMMAND_TIMEOUT_S,
    )
    try:
        run_task(options)
    except Exception as exc:  # coder's exit 2 (UsageError) and anything else, as evidence
        return Observed(refused=f"{type(exc).__name__}: {exc}")
    result = json.loads((out / "result.json").read_text(encoding="utf-8"))
    events = [
        json.loads(line)
        for line in (out / "trace.jsonl").read_text(encoding="utf-8").splitlines()
        if line.strip()
    ]
    seen = Observed(result=result, events=events)
    step, proof = seen.first("tests_pass"), seen.first("tests_fail_before")
    seen.step = step["status"] if step else None
    seen.proof = proof["status"] if proof else None
    final = seen.first("final_check")
    verified = result.get("status") == "verified" and (final is None or final["status"] == "passed")
    seen.final = "verified" if verified else "not verified"
    return seen


def differences(cell: Cell, seen: Observed) -> list[str]:
    """What in this run differs from the cell's specification (empty: the cell holds)."""
    want = cell.expected
    wrong: list[str] = []
    if seen.refused:
        return [f"the run did not start: {seen.refused}"]
    if want.step is not None and seen.step != want.step:
        wrong.append(f"step (tests_pass) {seen.step}, expected {want.step}")
    if want.proof is not None and seen.proof != want.proof:
        wrong.append(f"proof (tests_fail_before) {seen.proof}, expected {want.proof}")
    if seen.final != want.final:
        wrong.append(f"final {seen.final}, expected {want.final}")
    wrong += _state_claims(cell, seen)
    return wrong


def _evidence(seen: Observed, kind: str) -> str:
    check = seen.first(kind)
    return str(check.get("evidence") or check.get("detail") or "") if check else ""


def _state_claims(cell: Cell, seen: Observed) -> list[str]:
    """What the state of the base (or an unknown runner) adds to the verdicts."""
    wrong: list[str] = []
    if cell.state == "artifacts":
        told = [
            e["text"]
            for e in seen.events
            if e["type"] == "observation" and "outside" in str(e.get("text", ""))
        ]
        if told:
            wrong.append(f"the model was blamed for the runner's files: {told[0]}")
        scope = seen.first("files_within_scope")
        if scope and scope["status"] != "passed":
            wrong.append(f"the scope check failed the step: {scope.get('evidence')}")
        patch = str(seen.result.get("patch") or "")
        leaked = [
            name for name in cell.runner.wrote if f"b/{name}" in patch or f"/{name}/" in patch
        ]
        if leaked:
            wrong.append(f"the change holds the runner's files: {', '.join(leaked)}")
    if cell.change == "deleted, waived":
        removal = seen.first("tests_removed")
        if removal is None or removal["status"] != "failed":
            said = removal and removal.get("evidence")
            wrong.append(f"a removal the task did not ask for was not refused: {said!r}")
    if cell.state == "quiet":
        said = [_evidence(seen, k) for k in ("tests_pass", "tests_fail_before", "final_check")]
        zero = [s for s in said if "(0 tests)" in s or "0 tests passed" in s]
        baseline = seen.result.get("baseline") or {}
        if zero:
            wrong.append(f"judged as no tests: {zero[0]}")
        elif baseline.get("passed") == 0 and baseline.get("exit_code") == 0:
            wrong.append("the baseline counted 0 passed tests for a green suite")
    if cell.state == "red hook" and cell.expected.final == "verified":
        final = _evidence(seen, "final_check")
        if seen.final == "verified" and "lint" not in final:
            wrong.append(f"the final check's evidence does not name the red hook: {final!r}")
    if not cell.runner.known and seen.step is not None:
        said = _evidence(seen, "tests_pass").lower()
        if not any(w in said for w in ("whole", "exit code", "not know", "unknown")):
            wrong.append(
                "the evidence does not say the runner is unknown and ran whole: "
                f"{_evidence(seen, 'tests_pass')!r}"
            )
    return wrong


def _show(want: Expected | Observed) -> str:
    return f"step {want.step or '-'}, proof {want.proof or '-'}, final {want.final}"


def report(cell: Cell, seen: Observed, wrong: list[str]) -> str:
    """The cell, what it should and did get, and the evidence lines behind it."""
    lines = [
        f"cell: {cell.id}  (names {cell.selection()!r})",
        f"expected: {_show(cell.expected)}",
        f"actual:   {_show(seen)}",
        *[f"  differs: {w}" for w in wrong],
    ]
    for kind in ("tests_pass", "tests_fail_before", "final_check"):
        for check in seen.checks(kind):
            lines.append(f"  {kind} {check.get('status')}: {check.get('evidence') or ''}")
    for e in seen.events:
        if e["type"] == "observation" and e.get("status") != "ok":
            lines.append(f"  observation {e.get('tool')} {e.get('status')}: {e.get('text')}")
        if e["type"] in ("rollback", "baseline"):
            shown = {k: v for k, v in e.items() if k not in ("ts", "run_id", "seq")}
            lines.append(f"  {e['type']}: {shown}")
    if seen.result:
        lines.append(
            f"  result: {seen.result.get('status')} ({seen.result.get('stop_reason')})"
            f": {seen.result.get('message')}"
        )
    return "\n".join(lines)
