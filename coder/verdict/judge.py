"""The one judge: a run's facts against the baseline's, under a policy -> a Verdict.

Pure: no command runs, no text is parsed. The step's check and the final check judge by the
same rules; where they differ it is a named field of `Policy`, set side by side in
`step_policy` and `final_policy`:

| choice                      | step (`tests_pass`)                 | final check            |
|-----------------------------|-------------------------------------|------------------------|
| tests that count even if    | the tests the invariant names by id | none                   |
| red at the base (`named`)   |                                     |                        |
| tests removed on purpose    | the step's `tests_removed` names    | every step's           |
| where missing tests are     | the tests the run was aimed at      | the whole suite        |
| looked for (`scope`)        | (none for an invariant's own cmd)   |                        |
| a red run needs a pass      | yes: all-old failures and no pass   | no                     |
| (`needs_a_pass`)            | show nothing about the step         |                        |

The rules both share, each a row of tests/coder/verdict/test_judge.py:
- a run that timed out, or stopped early with a non-zero exit, fails;
- a failing test counts unless it failed at the base, the same way (same message), and is not
  named: a new failing test fails, whatever the exit code; an old failure whose message
  changed counts (the change made it fail differently);
- a test that existed at the base (red or green) and is now missing, skipped or xfailed fails
  the run, whatever the exit code, unless removed on purpose; judged only where the run lists
  every test it ran and only for the ids it could have selected; where a run of the same
  command cannot say which (a reporter that names no passing test), fewer passing tests than
  at the base fail it (`fewer`), less one a test removed on purpose;
- a test the invariant names that the run aimed at it did not run (none of the ids it covers
  passed or failed) fails, where the run lists every test it ran or ran none at all: a
  selection that runs nothing is no evidence;
- a non-zero exit with no counted test fails when a section failed in a way the base did not
  (named with its first error lines); a section red at the base the same way does not count.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace

from summarizers.runners.model import FAILING, NOT_RUN, PASSED, Target, covered

STEP, FINAL = "step", "final"


@dataclass(frozen=True)
class SectionFailure:
    """A part of the log that failed without naming a failing test (a lint, a type check, a
    coverage gate, a runner that died), with its first error lines."""

    name: str
    errors: tuple[str, ...] = ()
    exit_code: int | None = None
    command: str = ""
    """The part's own command where the log names it: what a probe of the base runs."""
    script: bool = False
    """It ran as a package.json script."""


@dataclass(frozen=True)
class Facts:
    """What one test run showed, as the judge needs it (read once by coder.verdict.run)."""

    command: str = ""
    exit_code: int | None = 0
    outcomes: Mapping[str, str] = field(default_factory=dict)
    messages: Mapping[str, str] = field(default_factory=dict)
    timed_out: bool = False
    duration_s: float = 0.0
    incomplete: str | None = None
    all_listed: bool = False
    """Every test the run ran is in `outcomes`: an id absent from it did not run."""
    passed_count: int | None = None
    """How many tests passed, where the runner's summary says more than `outcomes` lists."""
    section_failures: tuple[SectionFailure, ...] = ()
    environment: tuple[str, ...] = ()
    """One line per failure of the sandbox's making (a read-only path, the network)."""
    output_dropped: bool = False
    readers: tuple[str, ...] = ()
    """The runner modules that read the run's output; none: no runner coder knows printed its
    results, and the run is judged by its exit status (and a counts line, where it prints one)."""

    @property
    def failing(self) -> list[str]:
        return sorted(t for t, o in self.outcomes.items() if o in FAILING)

    @property
    def passed(self) -> int:
        listed = sum(1 for o in self.outcomes.values() if o == PASSED)
        return max(listed, self.passed_count or 0)

    @property
    def nothing_ran(self) -> bool:
        """No test outcome and no passing test counted: the run showed no test at all."""
        return not self.outcomes and not self.passed_count

    @property
    def red(self) -> bool:
        return self.timed_out or self.exit_code not in (0, None)


@dataclass(frozen=True)
class Policy:
    name: str
    """`step` or `final`: which check this is, for the evidence's words."""
    named: tuple[Target, ...] = ()
    """Tests that count when failing even if red at the base (the invariant names them)."""
    removed_on_purpose: tuple[Target, ...] = ()
    """Tests the plan removes on purpose: their absence is not a failure."""
    scope: tuple[Target, ...] | None = None
    """Where missing tests are looked for: None the whole suite; the names a run was aimed at;
    () nowhere (a command that selects what the judge cannot tell)."""
    needs_a_pass: bool = False
    """A red run whose failures are all old must still show one passing test."""
    flaky: frozenset[str] = frozenset()
    """Ids that failed in this run and passed when run again on a fresh checkout: flaky, not
    the change's doing; not counted, and named."""


def step_policy(
    named: Iterable[Target] = (),
    removed: Iterable[Target] = (),
    scope: tuple[Target, ...] | None = None,
) -> Policy:
    return Policy(STEP, tuple(named), tuple(removed), scope, needs_a_pass=True)


def final_policy(removed: Iterable[Target] = (), flaky: Iterable[str] = ()) -> Policy:
    return Policy(FINAL, (), tuple(removed), None, False, frozenset(flaky))


@dataclass(frozen=True)
class Verdict:
    """The judgement and its evidence, as data; coder.verdict.evidence makes the words."""

    passed: bool
    policy: str
    now: Facts
    counted: list[str] = field(default_factory=list)
    """Failing now and counted: new, named, or failing differently than at the base."""
    regressed: list[str] = field(default_factory=list)
    """Counted or missing tests that passed at the base (the final check's `new_failures`)."""
    already_failing: list[str] = field(default_factory=list)
    """Failing now as at the base, the same way, not named: not counted."""
    changed_message: dict[str, tuple[str, str]] = field(default_factory=dict)
    """Counted because it failed at the base differently: id -> (then, now)."""
    missing: list[str] = field(default_factory=list)
    """Ran at the base, now absent, skipped or xfailed, not removed on purpose."""
    removed: list[str] = field(default_factory=list)
    """Absent now and removed on purpose: not counted."""
    flaky: list[str] = field(default_factory=list)
    """Failed now, passed when run again on a fresh checkout: not counted."""
    section_failures: list[SectionFailure] = field(default_factory=list)
    """Sections that failed without naming a test, and not the same way at the base."""
    base_red_sections: list[SectionFailure] = field(default_factory=list)
    """Sections that failed the same way at the base: not counted."""
    environment: list[str] = field(default_factory=list)
    """Failures of the sandbox's making seen in this run (and not at the base)."""
    no_pass: bool = False
    """Failed only because `needs_a_pass` and no test passed."""
    base_exit: int | None = None
    base_known: bool = False
    """The base gave per-test outcomes to compare with."""
    missing_unjudged: str = ""
    """Why missing tests were not looked for, where they could not be."""
    not_run: list[str] = field(default_factory=list)
    """Names of tests the invariant names (and the run was aimed at) of which nothing ran."""
    fewer: int = 0
    """How many fewer tests passed than in the base's run of the same command, where neither
    run's ids can say which test went missing (its reporter names no passing test)."""

    @property
    def timed_out(self) -> bool:
        return self.now.timed_out

    @property
    def incomplete(self) -> str | None:
        return self.now.incomplete if self.now.red else None

    @property
    def nothing_ran(self) -> bool:
        return self.now.nothing_ran


def judge(now: Facts, base: Facts | None, policy: Policy) -> Verdict:
    """`now` against `base` (None: no baseline to compare with) under `policy`."""
    usable = base if base is not None and not base.timed_out else None
    base_exit = usable.exit_code if usable else None
    known = usable is not None and bool(usable.outcomes)
    if now.timed_out:
        return Verdict(False, policy.name, now, base_exit=base_exit, base_known=known)
    if now.red and now.incomplete:
        return Verdict(False, policy.name, now, base_exit=base_exit, base_known=known)
    counted, old, changed = _failing(now, usable, policy)
    flaky = [t for t in counted if t in policy.flaky]
    counted = [t for t in counted if t not in policy.flaky]
    missing, removed, unjudged = _missing(now, usable, policy)
    not_run = _not_run(now, policy)
    fewer = 0 if missing else _fewer(now, usable, policy)
    passed_before = {t for t, o in (usable.outcomes if usable else {}).items() if o == PASSED}
    regressed = sorted(t for t in {*counted, *missing} if t in passed_before)
    sections, same = _sections(now, usable)
    environment = [e for e in now.environment if not usable or e not in usable.environment]
    no_pass = False
    if counted or missing or not_run or fewer:
        ok = False
    elif not now.red:
        ok = True
    elif sections:
        ok = False
    else:
        no_pass = policy.needs_a_pass and bool(old) and now.passed == 0
        ok = not no_pass
    return Verdict(
        passed=ok,
        policy=policy.name,
        now=now,
        counted=counted,
        regressed=regressed,
        already_failing=old,
        changed_message=changed,
        missing=missing,
        removed=removed,
        flaky=flaky,
        section_failures=sections if now.red else [],
        base_red_sections=same if now.red else [],
        environment=environment,
        no_pass=no_pass,
        base_exit=base_exit,
        base_known=known,
        missing_unjudged=unjudged,
        not_run=not_run,
        fewer=fewer,
    )


def with_missing_before(verdict: Verdict, before: Facts, policy: Policy) -> Verdict:
    """`verdict` (a scoped run's, passed) with the tests that the same selection ran on the
    tree before the step and that are missing now: the baseline could not say which tests the
    selection holds (its reporter names no passing test, or its ids do not name their file).
    Both runs are the same command, so every test of the run before is in scope, and where
    their ids cannot say which went missing, their counts can."""
    whole = replace(policy, scope=None)
    missing, removed, _ = _missing(verdict.now, before, whole)
    fewer = 0 if missing else _fewer(verdict.now, before, whole)
    if not (missing or fewer or removed):
        return verdict
    passed_before = {t for t, o in before.outcomes.items() if o == PASSED}
    regressed = sorted({*verdict.regressed, *(t for t in missing if t in passed_before)})
    return replace(
        verdict,
        passed=verdict.passed and not (missing or fewer),
        missing=sorted({*verdict.missing, *missing}),
        removed=sorted({*verdict.removed, *removed}),
        regressed=regressed,
        fewer=fewer,
        missing_unjudged="",
    )


def _not_run(now: Facts, policy: Policy) -> list[str]:
    """The named tests of a run aimed at names (`scope`) that did not run: judged where the
    run lists every test it ran, or ran none at all."""
    if not policy.scope or not (now.all_listed or now.nothing_ran):
        return []
    ran = [t for t, o in now.outcomes.items() if o not in NOT_RUN]
    return list(dict.fromkeys(t.name for t in policy.named if not any(t.covers(i) for i in ran)))


def _failing(
    now: Facts, base: Facts | None, policy: Policy
) -> tuple[list[str], list[str], dict[str, tuple[str, str]]]:
    failing = now.failing
    if base is None:
        return failing, [], {}
    red_before = {t for t, o in base.outcomes.items() if o in FAILING}
    old = [t for t in failing if t in red_before and not covered(t, policy.named)]
    changed = {
        t: (base.messages.get(t, ""), now.messages.get(t, ""))
        for t in old
        if base.messages.get(t, "") != now.messages.get(t, "")
    }
    old = [t for t in old if t not in changed]
    return [t for t in failing if t not in old], old, changed


def _missing(now: Facts, base: Facts | None, policy: Policy) -> tuple[list[str], list[str], str]:
    if base is None or not base.outcomes:
        return [], [], ""
    if policy.scope == ():
        return [], [], "the command selects its own tests"
    if policy.scope and any("" in t.prefixes for t in policy.scope):
        return [], [], "its runner's ids do not name their file (the final check looks)"
    if not now.all_listed:
        return [], [], "the run does not list every test it ran"
    missing: list[str] = []
    removed: list[str] = []
    for ident, before in sorted(base.outcomes.items()):
        if before in NOT_RUN or now.outcomes.get(ident) not in (None, *NOT_RUN):
            continue
        if policy.scope is not None and not covered(ident, policy.scope):
            continue
        (removed if covered(ident, policy.removed_on_purpose) else missing).append(ident)
    return missing, removed, ""


def _fewer(now: Facts, base: Facts | None, policy: Policy) -> int:
    """Passing tests short of the base's where ids cannot tell a missing test (either run's
    reporter names no passing test): the whole command's run against the base's own, less the
    tests failing now (counted as failures, not missing) and one for each test removed on purpose (none owed where a file or directory was removed: how many
    tests it held is not known). 0 when the ids are judged, or the runs are not comparable."""
    if base is None or policy.scope is not None or now.timed_out or base.timed_out:
        return 0
    if now.passed_count is None or base.passed_count is None or now.output_dropped:
        return 0  # no count of the run's own, or a log cut short: its count says nothing
    if base.all_listed and now.all_listed:
        return 0
    removed = policy.removed_on_purpose
    if any(t.kind != "test" for t in removed):
        return 0
    failing_now = len(set(now.failing) - set(base.failing))
    return max(0, base.passed - now.passed - failing_now - len(removed))


def _sections(now: Facts, base: Facts | None) -> tuple[list[SectionFailure], list[SectionFailure]]:
    """(new section failures, those red at the base the same way)."""
    before = [] if base is None or not base.red else _failed_sections(base)
    new: list[SectionFailure] = []
    same: list[SectionFailure] = []
    for failure in _failed_sections(now):
        match = any(b.name == failure.name and set(b.errors) == set(failure.errors) for b in before)
        (same if match else new).append(failure)
    return new, same


def _failed_sections(run: Facts) -> list[SectionFailure]:
    """The run's section failures; a red run that names neither a failing test nor a section
    failed as a whole (the command, its exit code)."""
    if run.section_failures or not run.red or run.timed_out or run.failing:
        return list(run.section_failures)
    return [SectionFailure("", (), run.exit_code)]
