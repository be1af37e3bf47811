"""Proofs a step's tests mean something: `tests_fail_before` (the test would have caught the
bug) and `tests_removed` (a test the step drops, on purpose), plus the rule that a step which
changed nothing is not verified.

A test that passes after a fix proves little by itself: it may pass on the broken code too.
The proof runs the named tests on the code as it was at the step's checkpoint, with the step's
own version of the test files laid over it, in a throwaway tree beside the worktree
(`sandbox.proof_tree`), confined like every command; they must fail there and pass in the
worktree. A test file named instead of ids means the tests the step added or changed in it,
found by diffing its test functions (tree-sitter) between the checkpoint and now.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from coder.config import ConfigError, load_repo_config
from coder.loop.runtime import EnvSandbox
from coder.loop.scoping import command_for_paths
from coder.loop.verifier import (
    EVIDENCE_BUDGET,
    Check,
    VerifyEnv,
    _at_checkpoint,
    _current,
    checker,
)
from coder.verdict.run import TestRun, run_tests
from contracts import invariants as inv
from contracts.validation import CompiledStep
from sandbox.confine import Sandbox, SandboxUnavailable, make_sandbox
from sandbox.proof_tree import read_overlay, tree_at
from sandbox.repo_env import RepoEnvironmentError, prepare_tree_environment
from summarizers.ast_scope import extract_symbols, language_for
from summarizers.logs import compact_log
from summarizers.runners.model import FAILING

VACUOUS = "passed before the change too: it would not have caught the bug"


@dataclass(frozen=True)
class _Named:
    """The tests an invariant's paths stand for: ids to run, and what could not be found."""

    ids: list[str]
    problems: list[str]


def step_tests(paths: Iterable[str], env: VerifyEnv) -> _Named:
    """Ids as given; a Python test file stands for the tests the step added or changed in it
    (`file::test`, `file::Class::test`); a file of another language stands for itself."""
    ids: list[str] = []
    problems: list[str] = []
    for path in paths:
        if "::" in path or language_for(path) != "python":
            ids.append(path)
            continue
        found = _changed_tests(path, env)
        if found:
            ids += found
        else:
            problems.append(
                f"{path}: the step added or changed no test function there; name the tests by "
                f"id (`{path}::test_name`) or add the test in this step"
            )
    return _Named(list(dict.fromkeys(ids)), problems)


def _changed_tests(rel: str, env: VerifyEnv) -> list[str]:
    now = _current(env, rel)
    if now is None:
        return []
    before = _at_checkpoint(env, rel) or ""
    old = {s.name: s for s in extract_symbols(before, "python").symbols}
    found = []
    for symbol in extract_symbols(now, "python").symbols:
        parts = symbol.name.split(".")
        if symbol.kind == "class" or not parts[-1].startswith("test"):
            continue
        if len(parts) > 1 and not parts[0].startswith("Test"):
            continue
        was = old.get(symbol.name)
        if was is None or (was.signature, was.body_hash) != (symbol.signature, symbol.body_hash):
            found.append("::".join([rel, *parts]))
    return found


def outcome_of(test_id: str, run: TestRun) -> str:
    """passed | failed | skipped | missing: a parametrized test is each of its cases (pytest's
    `test[id]`, parameterized's `test_0_...`), a file
    that failed to collect fails every test in it, and a run killed at its time limit failed."""
    case = re.compile(re.escape(test_id) + r"_\d+(?:_|$)")  # parameterized.expand's names
    own = [
        o
        for t, o in run.outcomes.items()
        if t == test_id
        or t.startswith((f"{test_id}[", f"{test_id}::", f"{test_id} > "))
        or case.match(t)
    ]
    holders = [o for t, o in run.outcomes.items() if test_id.startswith((f"{t}::", f"{t} > "))]
    if any(o in FAILING for o in own + holders) or run.result.timed_out:
        return "failed"
    if own and all(o == "passed" for o in own):
        return "passed"
    if own:
        return "skipped"
    if "::" not in test_id and run.outcomes and not any(_FILE_ID.match(t) for t in run.outcomes):
        # ids without a file (mocha, tape): the file's run as a whole says how it did
        return "passed" if run.result.exit_code == 0 else "failed"
    return "missing"


_FILE_ID = re.compile(r"^\S+\.\w+(?: > |::|\[|$)")
"""An id that begins with its test file (pytest, vitest, jest, node-tap): a file no id begins
with did not run, whatever the run's exit code."""


@checker("tests_fail_before")
def check_fails_before(invariant: inv.TestsFailBefore, step: CompiledStep, env: VerifyEnv) -> Check:
    kind = "tests_fail_before"
    detail = ", ".join(invariant.paths)
    if not env.test_cmd:
        return Check(kind, "failed", "no test command: pass --test-cmd or set test_cmd", detail)
    named = step_tests(invariant.paths, env)
    if named.problems:
        return Check(kind, "failed", "\n".join(named.problems), detail)
    started = time.monotonic()
    before = _run_before(named.ids, env)
    if isinstance(before, str):
        return Check(kind, "failed", before, detail, command_s=time.monotonic() - started)
    after = next((r for r in reversed(env.runs) if _covers(r, named.ids)), None)
    if after is None:
        command = command_for_paths(env.test_cmd, named.ids, env.root).command
        after = run_tests(env.sandbox, env.root, command, env.cmd_timeout_s)
    spent = time.monotonic() - started
    lines, proven = [], True
    for test_id in named.ids:
        was, now = outcome_of(test_id, before), outcome_of(test_id, after)
        if was == "passed":
            proven = False
            lines.append(f"{test_id}: {VACUOUS}")
        elif was in ("skipped", "missing"):
            proven = False
            lines.append(f"{test_id}: did not run before the change ({was}), so it proves nothing")
        elif now != "passed":
            proven = False
            lines.append(f"{test_id}: failed before the change as it should, but {now} after it")
        else:
            lines.append(f"{test_id}: failed before the change, passes after it")
    evidence = "\n".join(lines)
    if not proven:
        shown = after if any("after it" in line for line in lines) else before
        if shown.result.output.strip():
            evidence += (
                "\n"
                + compact_log(
                    shown.result.output, budget=EVIDENCE_BUDGET, exit_code=shown.result.exit_code
                ).text
            )
    return Check(
        kind,
        "passed" if proven else "failed",
        evidence,
        detail,
        command_s=spent,
        proven=tuple(named.ids) if proven else (),
    )


def _covers(run: TestRun, ids: list[str]) -> bool:
    """Whether an earlier run of this step says how each test did now (it ran to the end and
    names them all), so the proof need not run them again."""
    if run.incomplete or run.result.timed_out or any("::" not in i for i in ids):
        return False
    return all(outcome_of(i, run) in ("passed", "failed") for i in ids)


def _run_before(ids: list[str], env: VerifyEnv) -> TestRun | str:
    """The named tests run on the checkpoint's code with the step's test files over it, or why
    that could not be done."""
    assert env.test_cmd is not None
    files = {i.split("::", 1)[0] for i in ids}
    files |= {c.path for c in env.checkpoints.changes_since(env.checkpoint_sha)
              if c.path.rsplit("/", 1)[-1] == "conftest.py"}  # fmt: skip
    overlay = read_overlay(env.root, files)
    if isinstance(overlay, str):
        return f"the step's test files could not be laid over the checkpoint: {overlay}"
    with tree_at(env.root, env.checkpoint_sha, overlay) as tree:
        sandbox = _tree_sandbox(tree, env)
        if isinstance(sandbox, str):
            return sandbox
        command = command_for_paths(env.test_cmd, ids, tree).command
        return run_tests(sandbox, tree, command, env.cmd_timeout_s)


def _tree_sandbox(root: Path, env: VerifyEnv) -> Sandbox | str:
    """A sandbox like the run's (same mode, same command environment) for the proof's tree."""
    try:
        config = load_repo_config(root)
    except ConfigError:
        config = None
    try:
        environment = prepare_tree_environment(
            root,
            include=(config.include if config else None) or [],
            sandbox_mode=env.sandbox.name,
            test_cmd=env.test_cmd,
        )
        inner = make_sandbox(
            env.sandbox.name,
            root,
            environment=environment,
            limits=getattr(getattr(env.sandbox, "inner", env.sandbox), "limits", None),
        )
    except (RepoEnvironmentError, SandboxUnavailable) as exc:
        return f"the checkpoint's tree could not be set up for the proof: {exc}"
    return EnvSandbox(inner, getattr(env.sandbox, "env", {}))


@checker("tests_removed")
def check_removed(invariant: inv.TestsRemoved, step: CompiledStep, env: VerifyEnv) -> Check:
    """Each named test is gone or skipped now; a file names the tests it had at the checkpoint,
    of which at least one must be gone or skipped (a file deleted counts as all)."""
    kind = "tests_removed"
    detail = ", ".join(invariant.paths)
    gone, still = [], []
    to_run: list[str] = []
    for path in invariant.paths:
        rel = path.split("::", 1)[0]
        if not (env.root / rel).exists():
            gone.append(f"{path} (file deleted)")
        elif "::" in path:
            to_run.append(path)
        else:
            earlier = _tests_at_checkpoint(rel, env)
            if not earlier:
                still.append(f"{path}: had no test at the checkpoint to remove")
            to_run += earlier
    run = None
    if to_run and env.test_cmd:
        command = command_for_paths(env.test_cmd, to_run, env.root).command
        run = run_tests(env.sandbox, env.root, command, env.cmd_timeout_s)
    for test_id in to_run:
        now = outcome_of(test_id, run) if run else "missing"
        if now in ("skipped", "missing"):
            defined = now == "skipped" or _defined_now(test_id, env)
            gone.append(f"{test_id} ({'skipped' if defined else 'gone'})")
        elif "::" in test_id and test_id in invariant.paths:
            still.append(f"{test_id} still runs ({now})")
    for path in invariant.paths:
        if "::" not in path and (env.root / path).exists():
            if not any(g.startswith(f"{path}::") for g in gone):
                still.append(f"{path}: no test in it was removed or skipped")
    evidence = "\n".join(["removed or skipped: " + (", ".join(gone) or "none"), *still])
    spent = run.result.duration_s if run else 0.0
    return Check(kind, "failed" if still else "passed", evidence, detail, command_s=spent)


def _tests_at_checkpoint(rel: str, env: VerifyEnv) -> list[str]:
    before = _at_checkpoint(env, rel)
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
    pytest's summary names a skip by file and line, not by id."""
    rel, _, name = test_id.partition("::")
    text = _current(env, rel)
    if text is None or language_for(rel) != "python":
        return False
    wanted = name.replace("::", ".").split("[", 1)[0]
    return any(s.name == wanted for s in extract_symbols(text, "python").symbols)
