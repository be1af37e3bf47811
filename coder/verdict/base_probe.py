"""The base as the reference for the whole command: a part of the test command that fails now
without naming a test (a lint, a `posttest` hook, a type check) and left no trace in the
baseline's log (npm runs `posttest` only when `test` passed, so a red test at the base hides a
red lint) is run by itself on a fresh checkout of the base commit. If it fails there the same
way, it is red at the base and does not count against the change; the evidence says so."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path

from coder.verdict.judge import Facts, Policy, SectionFailure, Verdict, judge
from coder.verdict.trees import run_at
from sandbox.confine import Sandbox
from summarizers.runners.commands import NODE_BIN_PATH


@dataclass
class BaseProbe:
    """Probes one run's base; each part is run at most once a run."""

    root: Path
    base_commit: str
    sandbox: Sandbox
    timeout_s: float
    found: dict[str, SectionFailure | None] = field(default_factory=dict)

    def red_at_base(self, part: SectionFailure) -> SectionFailure | None:
        """How `part` fails at the base when run by itself, or None (green there, or it cannot
        be run alone: no command of its own in the log)."""
        if not part.command:
            return None
        if part.command not in self.found:
            self.found[part.command] = self._run(part)
        return self.found[part.command]

    def _run(self, part: SectionFailure) -> SectionFailure | None:
        command = f"{NODE_BIN_PATH} {part.command}" if part.script else part.command
        run = run_at(self.root, self.base_commit, self.sandbox, command, command, self.timeout_s)
        if isinstance(run, str):
            return None
        facts = run.facts()
        if not facts.red or facts.failing:
            return None
        errors = tuple(e for s in facts.section_failures for e in s.errors)
        return replace(part, errors=errors, exit_code=facts.exit_code)


def with_base_parts(verdict: Verdict, base: Facts | None, probe: BaseProbe | None) -> Facts | None:
    """`base` with the parts that fail now, run by themselves at the base and red there, added
    to its section failures: the judge then counts them as red at the base. `base` itself
    when nothing new was found."""
    if base is None or probe is None or not verdict.section_failures:
        return base
    known = {f.name for f in base.section_failures}
    found = [
        red
        for part in verdict.section_failures
        if part.name not in known and (red := probe.red_at_base(part)) is not None
    ]
    if not found:
        return base
    return replace(
        base, section_failures=(*base.section_failures, *found), exit_code=base.exit_code or 1
    )


def judged_with_base_parts(
    now: Facts, base: Facts | None, policy: Policy, probe: BaseProbe | None
) -> Verdict:
    """The judge's verdict, with the parts of the command that fail now probed at the base
    where the baseline's log says nothing of them."""
    verdict = judge(now, base, policy)
    if verdict.passed:
        return verdict
    probed = with_base_parts(verdict, base, probe)
    return verdict if probed is base else judge(now, probed, policy)
