"""The scope family: what a step changed, read from git, never from the model: within its
files, outside the protected paths, no secret the harness holds, no entry that is never
committed, and a change at all."""

from __future__ import annotations

from coder.checks.base import Check, VerifyEnv, at_checkpoint
from coder.config import CONFIG_TABLE, config_table
from contracts.validation import CompiledStep
from sandbox.entries import entry_problems
from sandbox.nofollow import read_beneath
from sandbox.policy import out_of_scope
from sandbox.secrets import SecretScan

NO_CHANGE = (
    "this step changed no file: a step is verified by the change it makes, and nothing was "
    "changed. Make the step's change (edit, write or delete one of its files), or, if the "
    "work is already done, say so and let the plan drop this step"
)


def unchanged_step(env: VerifyEnv) -> Check | None:
    """The failed check of a step that changed no file, or None: verifying nothing would
    commit an empty change with `Coder-Verified` trailers."""
    if env.checkpoints.changes_since(env.checkpoint_sha):
        return None
    return Check("files_changed", "failed", NO_CHANGE, detail=NO_CHANGE)


def check_scope(step: CompiledStep, env: VerifyEnv) -> Check:
    """The same words in result.json's detail as in the trace's evidence: it is one fact."""
    changes = env.checkpoints.changes_since(env.checkpoint_sha)
    touched = [c.path for c in changes] + [c.old_path for c in changes if c.old_path]
    changed = list(dict.fromkeys(touched))
    outside = out_of_scope(changed, step.contract.intended_modification.files, env.protected)
    table_file = CONFIG_TABLE[0]
    if table_file in changed and table_file not in outside:
        before = config_table(at_checkpoint(env, table_file))
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
