"""The text family: patterns present or absent in the step's files, and the size of the
change (`text_present`, `text_absent`, `max_changed_lines`, and `advisory`, which is not
checked)."""

from __future__ import annotations

import time

import regex

from coder.checks.base import Check, VerifyEnv, current_text
from contracts import invariants as inv
from contracts.validation import CompiledStep
from sandbox.changes import worktree_files
from sandbox.gitcli import git
from sandbox.globs import glob_match

TEXT_SEARCH_SECONDS = 10.0


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
        text = current_text(env, rel)
        if text is None:
            continue
        for n, line in enumerate(text.splitlines(), 1):
            if compiled.search(line, timeout=max(0.0, deadline - time.monotonic())):
                hits.append(f"{rel}:{n}: {line.strip()[:120]}")
    return hits


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


def _changed_lines(env: VerifyEnv) -> int:
    env.checkpoints.intend_to_add()
    numstat = git(["diff", "--numstat", env.checkpoint_sha], env.root)
    total = 0
    for line in numstat.decode("utf-8", errors="replace").splitlines():
        added, removed, *_ = line.split("\t")
        if added.isdigit() and removed.isdigit():
            total += int(added) + int(removed)
    return total


def check_advisory(invariant: inv.Advisory, step: CompiledStep, env: VerifyEnv) -> Check:
    return Check(
        "advisory",
        "unverified",
        f"not checked (no rule compiles it): {invariant.text}",
        detail=invariant.text,
    )
