"""The verifier: checks a step's invariants itself, from git and from commands it runs.

One small function per invariant kind, in a registry keyed by kind; each returns a Check with
compacted evidence. Nothing the model said about its own work is consulted.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import regex

from coder.config import CONFIG_TABLE, config_table
from coder.loop.baseline import Baseline
from coder.loop.scoping import command_for_paths
from coder.loop.secrets import SecretScan
from coder.tools.textfile import NotText, decode_file
from coder.verdict.evidence import environmental, step_head
from coder.verdict.judge import Verdict, judge, step_policy
from coder.verdict.run import TestRun, run_tests
from coder.verdict.stopflags import split_words
from contracts import invariants as inv
from contracts.validation import CompiledStep
from sandbox.changes import worktree_files
from sandbox.checkpoint import Checkpoints
from sandbox.confine import Sandbox
from sandbox.entries import entry_problems
from sandbox.gitcli import GitError, git
from sandbox.globs import glob_match
from sandbox.nofollow import read_beneath
from sandbox.pipestatus import with_pipeline_status
from sandbox.policy import PathPolicy, out_of_scope
from summarizers.ast_scope import (
    Symbol,
    SymbolDiff,
    diff_symbols,
    extract_symbols,
    language_for,
)
from summarizers.compat import judge_symbol
from summarizers.definitions import (
    compared,
    definitions,
    duplicates_note,
    public_listing,
    twice_note,
)
from summarizers.logs import compact_log

EVIDENCE_BUDGET = 600
TEXT_SEARCH_SECONDS = 10.0


@dataclass(frozen=True)
class Check:
    kind: str
    status: str
    """passed | failed | unverified"""
    evidence: str
    detail: str = ""
    command_s: float = 0.0
    run: TestRun | None = None
    """The test run behind a tests_pass check, kept so an identical final check can reuse it."""
    verdict: Verdict | None = None
    """The judgement of that run, as data (what regressed, what is the sandbox's doing)."""
    timed_out: bool = False
    """The check's command was killed at its time limit."""
    proven: tuple[str, ...] = ()
    """A passed `tests_fail_before`: the test ids it proved fail before and pass after (what
    coder.attempts runs against other candidates' trees)."""

    @property
    def environmental(self) -> bool:
        """Failed for the sandbox's reasons, not the change's."""
        return self.verdict is not None and environmental(self.verdict)


@dataclass
class VerifyEnv:
    root: Path
    sandbox: Sandbox
    checkpoints: Checkpoints
    checkpoint_sha: str
    test_cmd: str | None
    cmd_timeout_s: float
    protected: list[str]
    baseline: Baseline | None = None
    """Tests red before the run do not fail a step unless its invariant names them by id."""
    runs: list[TestRun] = field(default_factory=list)
    """The test runs this step's checks made so far (a proof reuses one that ran its tests)."""


Checker = Callable[[Any, CompiledStep, VerifyEnv], Check]
CHECKERS: dict[str, Checker] = {}


def checker(kind: str) -> Callable[[Checker], Checker]:
    def register(fn: Checker) -> Checker:
        CHECKERS[kind] = fn
        return fn

    return register


NO_CHANGE = (
    "this step changed no file: a step is verified by the change it makes, and nothing was "
    "changed. Make the step's change (edit, write or delete one of its files), or, if the "
    "work is already done, say so and let the plan drop this step"
)
PROVEN_LAST = frozenset({"tests_fail_before"})
"""Kinds checked after the others, so a proof can take the after-run from a `tests_pass`."""


def unchanged_step(env: VerifyEnv) -> Check | None:
    """The failed check of a step that changed no file, or None: verifying nothing would
    commit an empty change with `Coder-Verified` trailers."""
    if env.checkpoints.changes_since(env.checkpoint_sha):
        return None
    return Check("files_changed", "failed", NO_CHANGE, detail=NO_CHANGE)


def verify_step(step: CompiledStep, env: VerifyEnv) -> list[Check]:
    """Scope first: a step that wrote outside its files fails whatever its tests say."""
    checks = [check_scope(step, env)]
    nothing = unchanged_step(env)
    if nothing is not None:
        checks.append(nothing)
    for invariant in sorted(step.invariants, key=lambda i: i.kind in PROVEN_LAST):
        fn = CHECKERS.get(invariant.kind)
        if fn is None:
            checks.append(Check(invariant.kind, "unverified", "no checker for this kind"))
            continue
        checks.append(fn(invariant, step, env))
        if checks[-1].run is not None:
            env.runs.append(checks[-1].run)
    return checks


def check_scope(step: CompiledStep, env: VerifyEnv) -> Check:
    """The same words in result.json's detail as in the trace's evidence: it is one fact."""
    changes = env.checkpoints.changes_since(env.checkpoint_sha)
    touched = [c.path for c in changes] + [c.old_path for c in changes if c.old_path]
    changed = list(dict.fromkeys(touched))
    outside = out_of_scope(changed, step.contract.intended_modification.files, env.protected)
    table_file = CONFIG_TABLE[0]
    if table_file in changed and table_file not in outside:
        before = config_table(_at_checkpoint(env, table_file))
        now = read_beneath(env.root, table_file)
        after = config_table(now.decode("utf-8", "replace") if now is not None else None)
        if before != after:
            outside.append(f"{table_file} [{'.'.join(CONFIG_TABLE[1])}] (protected)")
    present = [c.path for c in changes if c.kind != "deleted"]
    holders = SecretScan.of_environment().files_holding(env.root, present)
    if holders:
        evidence = (
            f"{', '.join(holders)} holds a secret the harness holds (an API key or token, in "
            "some form: plain, reversed, encoded, spaced or compressed); it is never committed: "
            "take it out"
        )
        return Check("files_within_scope", "failed", evidence, detail=evidence)
    entries = entry_problems(env.root, present)
    if entries:
        evidence = f"the step left what is never committed: {'; '.join(entries)}"
        return Check("files_within_scope", "failed", evidence, detail=evidence)
    if outside:
        allowed = ", ".join(step.contract.intended_modification.files)
        evidence = f"changed outside the step's files ({allowed}): {', '.join(outside)}"
        return Check("files_within_scope", "failed", evidence, detail=evidence)
    evidence = f"{len(changed)} changed path(s), all in scope"
    return Check("files_within_scope", "passed", evidence, detail=evidence)


def _run_check(kind: str, command: str, env: VerifyEnv) -> Check:
    result = env.sandbox.run(
        with_pipeline_status(command), cwd=env.root, timeout_s=env.cmd_timeout_s
    )
    if result.timed_out:
        status, head = (
            "failed",
            f"`{command}` timed out after {result.duration_s:.0f}s and was killed",
        )
    elif result.exit_code == 0:
        status, head = "passed", f"`{command}` exited 0"
    else:
        status, head = "failed", f"`{command}` exited {result.exit_code}"
    if result.bound:
        head += f"; it hit a sandbox bound: {result.bound_message}"
    evidence = head
    if status == "failed" and result.output.strip():
        evidence += (
            "\n"
            + compact_log(result.output, budget=EVIDENCE_BUDGET, exit_code=result.exit_code).text
        )
    return Check(
        kind,
        status,
        evidence,
        detail=command,
        command_s=result.duration_s,
        timed_out=result.timed_out,
    )


@checker("tests_pass")
def check_tests(invariant: inv.TestsPass, step: CompiledStep, env: VerifyEnv) -> Check:
    command = invariant.command or env.test_cmd
    if not command:
        return Check("tests_pass", "failed", "no test command: pass --test-cmd or set test_cmd")
    scope: tuple[str, ...] | None = None
    said = ""
    if invariant.command:
        scope = ()  # its own command selects tests the judge cannot tell
    elif invariant.paths:
        on_paths = command_for_paths(command, invariant.paths, env.root)
        command, said = on_paths.command, on_paths.note
        scope = tuple(invariant.paths)
    run = run_tests(env.sandbox, env.root, command, env.cmd_timeout_s)
    base = env.baseline.facts() if env.baseline else None
    policy = step_policy(
        named_by(invariant.paths or [], invariant.command), removed_on_purpose(step), scope
    )
    verdict = judge(run.facts(), base, policy)
    evidence = "\n".join(line for line in (step_head(verdict), said, run.note()) if line)
    if not verdict.passed and run.result.output.strip():
        evidence += (
            "\n"
            + compact_log(
                run.result.output, budget=EVIDENCE_BUDGET, exit_code=run.result.exit_code
            ).text
        )
    return Check(
        "tests_pass",
        "passed" if verdict.passed else "failed",
        evidence,
        detail=command,
        command_s=run.result.duration_s,
        run=run,
        verdict=verdict,
        timed_out=run.result.timed_out,
    )


def named_by(paths: list[str], command: str | None) -> set[str]:
    """The test ids an invariant names: paths that are test ids (`file.py::test`) and id
    arguments of its own command. Naming a file or directory names no test by id."""
    named = {p for p in paths if "::" in p}
    if command:
        named |= {w.text for w in split_words(command) or [] if "::" in w.text}
    return named


def removed_on_purpose(step: CompiledStep) -> set[str]:
    """Test ids and test files the step's `tests_removed` invariants name: the tests the judge
    must not count as missing, skipped, deselected or xfailed against the step."""
    return {p for i in step.invariants if isinstance(i, inv.TestsRemoved) for p in i.paths}


@checker("command_succeeds")
def check_command(invariant: inv.CommandSucceeds, step: CompiledStep, env: VerifyEnv) -> Check:
    return _run_check("command_succeeds", invariant.command, env)


@dataclass(frozen=True)
class _SymbolSides:
    """Where a signature invariant's symbol was found at the checkpoint, and both versions."""

    rel: str
    language: str
    old: Symbol
    before: str
    after: str | None
    """The file now; None when it was deleted or cannot be read."""
    note: str = ""
    """Said when the name is defined more than once in the file: which definition counted."""


def _find_at_checkpoint(
    symbol: str, file: str | None, step: CompiledStep, env: VerifyEnv
) -> _SymbolSides | None:
    files = [file] if file else _candidate_files(step, env)
    for rel in files:
        language = language_for(rel)
        before = _at_checkpoint(env, rel)
        if language is None or before is None:
            continue
        found = definitions(before, language, symbol)
        if found:
            after = _current(env, rel)
            now = definitions(after, language, symbol) if after is not None else []
            note = twice_note(symbol, rel, found, "at the checkpoint") + twice_note(
                symbol, rel, now, "now"
            )
            return _SymbolSides(rel, language, compared(found), before, after, note)
    return None


def _at(rel: str, symbol: Symbol) -> str:
    return f"{rel}:{symbol.line}"


def _not_found(kind: str, symbol: str, file: str | None) -> Check:
    where = file or "the step's files or the repository"
    return Check(
        kind, "failed", f"symbol {symbol} not found in {where} at the checkpoint", detail=symbol
    )


@checker("signature_unchanged")
def check_signature(invariant: inv.SignatureUnchanged, step: CompiledStep, env: VerifyEnv) -> Check:
    kind, symbol = "signature_unchanged", invariant.symbol
    sides = _find_at_checkpoint(symbol, invariant.file, step, env)
    if sides is None:
        return _not_found(kind, symbol, invariant.file)
    old, rel = sides.old, sides.rel
    now = definitions(sides.after, sides.language, symbol) if sides.after is not None else []
    if not now:
        gone = f"{symbol} ({_at(rel, old)} at the checkpoint) was removed from {rel}"
        return Check(kind, "failed", gone + sides.note, detail=symbol)
    new = compared(now)
    where = f"{symbol} in {rel} (line {old.line} at the checkpoint, line {new.line} now)"
    if new.signature != old.signature:
        return Check(
            kind,
            "failed",
            f"{where} changed:\n  before: {old.signature}\n  after:  {new.signature}{sides.note}",
            detail=symbol,
        )
    return Check(kind, "passed", f"{where}: {new.signature}{sides.note}", detail=symbol)


@checker("signature_compatible")
def check_signature_compatible(
    invariant: inv.SignatureCompatible, step: CompiledStep, env: VerifyEnv
) -> Check:
    """Every call the old signature accepted must still work (`summarizers.compat`)."""
    kind, symbol = "signature_compatible", invariant.symbol
    sides = _find_at_checkpoint(symbol, invariant.file, step, env)
    if sides is None:
        return _not_found(kind, symbol, invariant.file)
    if sides.after is None:
        return Check(kind, "failed", f"{sides.rel} was deleted", detail=symbol)
    after = extract_symbols(sides.after, sides.language)
    if after.error is not None:
        return Check(kind, "failed", f"{sides.rel} does not parse: {after.error}", detail=symbol)
    before = {s.name: s for s in extract_symbols(sides.before, sides.language).symbols}
    now = {s.name: s for s in after.symbols}
    name = sides.old.name
    verdict = judge_symbol(name, before, now, sides.language)
    new = now.get(name)
    lines = f"line {sides.old.line} at the checkpoint" + (f", line {new.line} now" if new else "")
    evidence = f"{name} in {sides.rel} ({lines}): {verdict.text()}"
    if new is not None and new.signature != sides.old.signature:
        evidence += f"\n  before: {sides.old.signature}\n  after:  {new.signature}"
    evidence += sides.note
    return Check(kind, "passed" if verdict.compatible else "failed", evidence, detail=symbol)


def _file_diff(kind: str, rel: str, env: VerifyEnv) -> SymbolDiff | Check:
    """The symbol diff of one file since the checkpoint, or the failed Check saying why not."""
    language = language_for(rel)
    before, after = _at_checkpoint(env, rel), _current(env, rel)
    if language is None:
        return Check(kind, "failed", f"{rel}: no parser for this file type", detail=rel)
    if before is None:
        return Check(kind, "failed", f"{rel} did not exist at the checkpoint", detail=rel)
    if after is None:
        return Check(kind, "failed", f"{rel} was deleted", detail=rel)
    diff = diff_symbols(before, after, language)
    if diff.error:
        return Check(kind, "failed", f"{rel} does not parse: {diff.error}", detail=rel)
    return diff


@checker("public_api_unchanged")
def check_public_api(
    invariant: inv.PublicApiUnchanged, step: CompiledStep, env: VerifyEnv
) -> Check:
    kind, rel = "public_api_unchanged", invariant.file
    diff = _file_diff(kind, rel, env)
    if isinstance(diff, Check):
        return diff
    broken = [
        f"removed {s.name} (line {s.line} at the checkpoint)" for s in diff.removed if s.public
    ]
    broken += [
        f"changed {o.name} (line {o.line} → {n.line}): {o.signature} → {n.signature}"
        for o, n in diff.signature_changed
        if o.public
    ]
    twice = _defined_twice(rel, env)
    if broken:
        return Check(kind, "failed", f"{rel}: " + "; ".join(broken) + twice, detail=rel)
    return Check(kind, "passed", f"{rel}: unchanged, {_public_count(rel, env)}{twice}", detail=rel)


@checker("public_api_compatible")
def check_public_api_compatible(
    invariant: inv.PublicApiCompatible, step: CompiledStep, env: VerifyEnv
) -> Check:
    """No public symbol removed or made private; every changed public signature compatible."""
    kind, rel = "public_api_compatible", invariant.file
    diff = _file_diff(kind, rel, env)
    if isinstance(diff, Check):
        return diff
    twice = _defined_twice(rel, env)
    if diff.breaking:
        return Check(
            kind, "failed", f"{rel} breaks callers: " + "; ".join(diff.breaking) + twice, detail=rel
        )
    compatible = [f"`{n}`: {v.text()}" for n, v in diff.api.compatible.items()]
    if compatible:
        evidence = f"{rel}: {len(compatible)} compatible change(s): " + "; ".join(compatible)
    else:
        evidence = f"{rel}: unchanged, {_public_count(rel, env)}"
    return Check(kind, "passed", evidence + twice, detail=rel)


def _public_count(rel: str, env: VerifyEnv) -> str:
    language, text = language_for(rel), _current(env, rel)
    return public_listing(text, language) if language and text is not None else "public symbols"


def _defined_twice(rel: str, env: VerifyEnv) -> str:
    language, text = language_for(rel), _current(env, rel)
    return duplicates_note(rel, text, language) if language and text is not None else ""


def _text_matches(
    pattern: str, paths: list[str] | None, step: CompiledStep, env: VerifyEnv
) -> list[str]:
    """Lines matching `pattern` in the given paths (default: the step's files).

    The pattern comes from the model, so it is searched with a deadline: a catastrophically
    backtracking expression fails the check instead of hanging the run.
    """
    compiled = regex.compile(pattern)
    globs = paths or step.contract.intended_modification.files
    deadline = time.monotonic() + TEXT_SEARCH_SECONDS
    hits = []
    for rel in worktree_files(env.root):
        if not any(glob_match(rel, g) for g in globs):
            continue
        text = _current(env, rel)
        if text is None:
            continue
        for n, line in enumerate(text.splitlines(), 1):
            if compiled.search(line, timeout=max(0.0, deadline - time.monotonic())):
                hits.append(f"{rel}:{n}: {line.strip()[:120]}")
    return hits


@checker("text_absent")
@checker("text_present")
def check_text(
    invariant: inv.TextAbsent | inv.TextPresent, step: CompiledStep, env: VerifyEnv
) -> Check:
    """Evidence names the pattern as the planner wrote it (a sentence's own words, or the
    regex from the JSON), never a repr that doubles its backslashes."""
    kind, pattern = invariant.kind, invariant.pattern
    wrote = invariant.source or f"/{pattern}/"
    try:
        hits = _text_matches(pattern, invariant.paths, step, env)
    except TimeoutError:
        slow = f"searching for {wrote} took over {TEXT_SEARCH_SECONDS:.0f}s; use a simpler pattern"
        return Check(kind, "failed", slow, detail=wrote)
    want_hits = kind == "text_present"
    if bool(hits) == want_hits:
        evidence = hits[0] if hits else f"no match for /{pattern}/"
        return Check(kind, "passed", evidence, detail=wrote)
    evidence = (
        f"{len(hits)} match(es):\n" + "\n".join(hits[:10]) if hits else f"no match for /{pattern}/"
    )
    return Check(kind, "failed", evidence, detail=wrote)


@checker("max_changed_lines")
def check_changed_lines(
    invariant: inv.MaxChangedLines, step: CompiledStep, env: VerifyEnv
) -> Check:
    changed = _changed_lines(env)
    status = "passed" if changed <= invariant.n else "failed"
    return Check(
        "max_changed_lines",
        status,
        f"{changed} line(s) changed; at most {invariant.n} allowed",
        detail=str(invariant.n),
    )


@checker("advisory")
def check_advisory(invariant: inv.Advisory, step: CompiledStep, env: VerifyEnv) -> Check:
    return Check(
        "advisory",
        "unverified",
        f"not checked (no rule compiles it): {invariant.text}",
        detail=invariant.text,
    )


def _at_checkpoint(env: VerifyEnv, rel: str) -> str | None:
    try:
        blob = git(["show", f"{env.checkpoint_sha}:{rel}"], env.root)
    except GitError:
        return None
    return blob.decode("utf-8", errors="replace")


def _current(env: VerifyEnv, rel: str) -> str | None:
    """A worktree file's text as the tools decode it; None for binaries and for paths the model
    may not read, such as a link out of the worktree (it could point one at /proc/self/environ
    and read it back as evidence). The same rule as the tools': the read policy of `PathPolicy`."""
    data = PathPolicy(env.root, None, ()).read(rel)
    if data is None:
        return None
    file = decode_file(data)
    return None if isinstance(file, NotText) else file.view


def _candidate_files(step: CompiledStep, env: VerifyEnv) -> list[str]:
    changed = [c.path for c in env.checkpoints.changes_since(env.checkpoint_sha)]
    rest = [f for f in worktree_files(env.root) if language_for(f) and f not in changed]
    return changed + rest


def _changed_lines(env: VerifyEnv) -> int:
    git(["add", "-A", "--intent-to-add", "."], env.root)
    numstat = git(["diff", "--numstat", env.checkpoint_sha], env.root)
    total = 0
    for line in numstat.decode("utf-8", errors="replace").splitlines():
        added, removed, *_ = line.split("\t")
        if added.isdigit() and removed.isdigit():
            total += int(added) + int(removed)
    return total
