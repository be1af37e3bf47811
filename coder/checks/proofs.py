"""Proofs a step's tests mean something: `tests_fail_before` (the test would have caught the
bug) and `tests_removed` (a test the step drops, on purpose).

A test that passes after a fix proves little by itself: it may pass on the broken code too.
The proof runs the selection a `tests_pass` on the same names runs, on the code as it was at
the step's checkpoint with the step's own test files laid over it (as SWE-bench lays a fix's
tests over the base), in a throwaway tree beside the worktree (`sandbox.proof_tree`), confined
like every command; it reads both runs with the same reader and judges them with the one
judge (`coder.verdict.proof`). A file or directory named stands for the tests the step added
or changed in it.
"""

from __future__ import annotations

import re
import time

from coder.checks.base import EVIDENCE_BUDGET, Check, VerifyEnv, at_checkpoint, current_text
from coder.verdict.judge import judge, step_policy
from coder.verdict.proof import judge_proof, outcome_of
from coder.verdict.run import TestRun, run_tests
from coder.verdict.scoping import PathsRun, command_for_paths, project_of, targets_for
from coder.verdict.trees import run_at
from contracts import invariants as inv
from contracts.validation import CompiledStep
from sandbox.proof_tree import read_overlay
from summarizers.ast_scope import extract_symbols, language_for
from summarizers.logs import compact_log
from summarizers.runners.names import TEST
from summarizers.runners.table import RUNNERS
from summarizers.runners.testdefs import changed_tests

__all__ = ["check_fails_before", "check_removed", "outcome_of"]


def check_fails_before(invariant: inv.TestsFailBefore, step: CompiledStep, env: VerifyEnv) -> Check:
    kind = "tests_fail_before"
    detail = ", ".join(invariant.paths)
    if not env.test_cmd:
        return Check(kind, "failed", "no test command: pass --test-cmd or set test_cmd", detail)
    project = project_of(env.root)
    selection = command_for_paths(env.test_cmd, invariant.paths, env.root, project)
    if selection.problem:
        return Check(kind, "failed", selection.problem, detail)
    started = time.monotonic()
    before = _run_before(selection, step, env)
    if isinstance(before, str):
        return Check(kind, "failed", before, detail, command_s=time.monotonic() - started)
    after = next((r for r in reversed(env.runs) if _same_run(r, selection.command)), None)
    if after is None:
        after = run_tests(env.sandbox, env.root, selection.command, env.cmd_timeout_s)
    named = tuple(t for t in selection.targets if t.kind == TEST)
    base = env.baseline.facts() if env.baseline else None
    verdict = judge(after.facts(), base, step_policy(named, (), selection.targets))
    proof = judge_proof(before.facts(), verdict, selection.targets, _changed(selection, env))
    spent = time.monotonic() - started
    lines = [*proof.lines]
    if selection.note:
        lines.append(selection.note)
    if not proof.proven:
        shown = after if proof.after_failed else before
        if shown.result.output.strip():
            lines.append(
                compact_log(
                    shown.result.output, budget=EVIDENCE_BUDGET, exit_code=shown.result.exit_code
                ).text
            )
    status = "passed" if proof.proven else "failed"
    return Check(kind, status, "\n".join(lines), detail, command_s=spent, proven=proof.proving)


def _changed(selection: PathsRun, env: VerifyEnv) -> dict[str, list[tuple[str, ...]] | None]:
    """Target name -> the title paths of the tests the step added or changed in its files;
    None where a file's language is not read (then every test in it stands in)."""
    changed = {c.path for c in env.checkpoints.changes_since(env.checkpoint_sha)}
    out: dict[str, list[tuple[str, ...]] | None] = {}
    for target in selection.targets:
        if target.kind == TEST:
            continue
        titles: list[tuple[str, ...]] = []
        readable = True
        for rel in target.files:
            if rel not in changed:
                continue
            now = current_text(env, rel)
            found = changed_tests(at_checkpoint(env, rel), now, rel) if now is not None else []
            if found is None:
                readable = False
                break
            titles += found
        known = out.get(target.name, [])  # a glob's files share its name
        out[target.name] = known + titles if readable and known is not None else None
    return out


def _same_run(run: TestRun, command: str) -> bool:
    """An earlier run of this step that ran exactly this selection to its end: the proof's
    run after the change need not be made again."""
    return run.requested == command and not run.incomplete and not run.result.timed_out


def _run_before(selection: PathsRun, step: CompiledStep, env: VerifyEnv) -> TestRun | str:
    """The selection run on the checkpoint's code with the step's test files over it, or why
    that could not be done. The step's test files: every file it changed that a runner calls a
    test file (a test helper, a `conftest.py`), and the files its names stand for."""
    assert env.test_cmd is not None
    named = {f for t in selection.targets for f in t.files}
    changed = [c.path for c in env.checkpoints.changes_since(env.checkpoint_sha)]
    tests = [p for p in changed if p in named or any(r.is_test_file(p) for r in RUNNERS)]
    overlay = read_overlay(env.root, tests)
    if isinstance(overlay, str):
        return f"the step's test files could not be laid over the checkpoint: {overlay}"
    return run_at(
        env.root,
        env.checkpoint_sha,
        env.sandbox,
        env.test_cmd,
        selection.command,
        env.cmd_timeout_s,
        overlay,
    )


_REMOVAL = re.compile(
    r"\b(?:remove|delete|drop|retire|skip)\w*\b[^.\n]{0,80}\btests?\b"
    r"|\btests?\b[^.\n]{0,80}\b(?:remove|delete|drop|retire|skip|obsolete)\w*\b",
    re.IGNORECASE,
)


def removal_reason(task: str, plan_by_user: bool) -> str:
    """Why tests that ran at the base may be removed in this run, or "": the user wrote the
    plan that removes them, or the task itself asks for tests to go."""
    if plan_by_user:
        return "the plan that removes them is the user's"
    found = _REMOVAL.search(task)
    return f"the task asks for it ({found.group(0)!r})" if found else ""


def check_removed(invariant: inv.TestsRemoved, step: CompiledStep, env: VerifyEnv) -> Check:
    """Each named test is gone or skipped now; a file names the tests it had, of which at least
    one must be gone or skipped (a file deleted counts as all). A test that ran at the base may
    be removed only where the task or the user said so (`VerifyEnv.removal_allowed`): a model
    cannot waive a failing test by declaring it removed."""
    kind = "tests_removed"
    detail = ", ".join(invariant.paths)
    targets = targets_for(env.test_cmd, invariant.paths, env.root)
    base = env.baseline.facts() if env.baseline else None
    at_base = [t for t in (base.outcomes if base else {}) if any(g.covers(t) for g in targets)]
    if not at_base and not env.removal_allowed and (base is None or not base.all_listed):
        at_base = _ran_at_base(invariant.paths, env)
    if at_base and not env.removal_allowed:
        return Check(
            kind,
            "failed",
            f"these tests ran before the run began and the task does not ask to remove them: "
            f"{', '.join(at_base[:8])}{' …' if len(at_base) > 8 else ''}; a test is removed "
            "only where the task (or a plan the user gave) says so: keep them, or fix them",
            detail,
        )
    gone, still = [], []
    to_run: list[str] = []
    for path in invariant.paths:
        rel = path.split("::", 1)[0].split(" > ", 1)[0]
        if not (env.root / rel).exists() and language_for(rel):
            gone.append(f"{path} (file deleted)")
        elif rel != path or not language_for(rel):
            to_run.append(path)
        else:
            earlier = _tests_at_checkpoint(rel, env)
            if not earlier and not at_base:
                still.append(f"{path}: had no test at the checkpoint to remove")
            to_run += earlier or [path]
    run = None
    if to_run and env.test_cmd:
        selection = command_for_paths(env.test_cmd, to_run, env.root)
        run = run_tests(env.sandbox, env.root, selection.command, env.cmd_timeout_s)
        for target in selection.targets:
            now = outcome_of(target, run.facts())
            if now in ("skipped", "missing"):
                defined = now == "skipped" or _defined_now(target.name, env)
                gone.append(f"{target.name} ({'skipped' if defined else 'gone'})")
            elif target.kind == TEST and target.name in invariant.paths:
                still.append(f"{target.name} still runs ({now})")
    for path in invariant.paths:
        if (env.root / path).is_file() and not any(g.startswith(f"{path}::") for g in gone):
            if not any(g.startswith(path) for g in gone):
                still.append(f"{path}: no test in it was removed or skipped")
    evidence = "\n".join(["removed or skipped: " + (", ".join(gone) or "none"), *still])
    if at_base:
        evidence += f"\nremoved although they ran before the run began: {env.removal_allowed}"
    spent = run.result.duration_s if run else 0.0
    return Check(kind, "failed" if still else "passed", evidence, detail, command_s=spent)


def _ran_at_base(paths: list[str], env: VerifyEnv) -> list[str]:
    """The named tests that ran at the base, where the baseline's run cannot say (its
    reporter names no passing test): the same selection run on the run's base commit. A test
    an earlier step of this run added is not there, and may go."""
    if not env.base_commit or not env.test_cmd:
        return []
    selection = command_for_paths(env.test_cmd, paths, env.root)
    run = run_at(
        env.root, env.base_commit, env.sandbox, env.test_cmd, selection.command, env.cmd_timeout_s
    )
    if isinstance(run, str):
        return list(paths)  # cannot look: the task must say so
    facts = run.facts()
    ran = [
        t
        for t, outcome in facts.outcomes.items()
        if outcome != "skipped" and any(g.covers(t) for g in selection.targets)
    ]
    if ran:
        return ran
    return list(paths) if facts.passed or facts.failing else []


def _tests_at_checkpoint(rel: str, env: VerifyEnv) -> list[str]:
    before = at_checkpoint(env, rel)
    if before is None or language_for(rel) != "python":
        return []
    ids = []
    for symbol in extract_symbols(before, "python").symbols:
        parts = symbol.name.split(".")
        if symbol.kind != "class" and parts[-1].startswith("test"):
            ids.append("::".join([rel, *parts]))
    return ids


def _defined_now(test_id: str, env: VerifyEnv) -> bool:
    """Whether a test id's function is still in its file (then it was skipped, not removed);
    a runner's summary may name a skip by file and line, not by id."""
    rel, _, name = test_id.partition("::")
    text = current_text(env, rel)
    if text is None or language_for(rel) != "python":
        return False
    wanted = name.replace("::", ".").split("[", 1)[0]
    return any(s.name == wanted for s in extract_symbols(text, "python").symbols)
