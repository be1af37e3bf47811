"""The verifier: checks a step's invariants itself, from git and from commands it runs.

One function per invariant kind, in one literal table by kind, each in the module of its
family; each returns a Check with compacted evidence. Nothing the model said about its own work
is consulted.
"""

from __future__ import annotations

from coder.checks.base import Check, Checker, VerifyEnv
from coder.checks.proofs import check_fails_before, check_removed
from coder.checks.scope import check_scope, unchanged_step
from coder.checks.symbols import (
    check_public_api,
    check_public_api_compatible,
    check_signature,
    check_signature_compatible,
)
from coder.checks.tests import check_command, check_tests
from coder.checks.text import check_advisory, check_changed_lines, check_text
from contracts.validation import CompiledStep

CHECKERS: dict[str, Checker] = {
    "tests_pass": check_tests,
    "command_succeeds": check_command,
    "signature_unchanged": check_signature,
    "signature_compatible": check_signature_compatible,
    "public_api_unchanged": check_public_api,
    "public_api_compatible": check_public_api_compatible,
    "text_absent": check_text,
    "text_present": check_text,
    "max_changed_lines": check_changed_lines,
    "advisory": check_advisory,
    "tests_fail_before": check_fails_before,
    "tests_removed": check_removed,
}
"""Invariant kind -> its checker. A kind no row names is `unverified`, said so."""

PROVEN_LAST = frozenset({"tests_fail_before"})
"""Kinds checked after the others, so a proof can take the after-run from a `tests_pass`."""


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
