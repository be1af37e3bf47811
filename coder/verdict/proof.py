"""The proof that a step's tests would have caught the bug, judged: pure, like the judge.

`tests_fail_before` runs one selection twice: on the code as it was before the step (with the
step's test files laid over it) and on the step's tree. The run after must pass as a
`tests_pass` on the same names passes (`after`, the judge's verdict against the baseline: a
test red at the base for another reason is discounted there, and so here). Then each name:

- a test named by id must fail (or error, or sit in a file that failed to load) before, and
  pass after;
- a file or directory stands for the tests the step added or changed in it (found in the
  sources by `summarizers.runners.testdefs`; every test in it where the source cannot be
  read, or where no definition changed: a table-driven test whose rows the step added is
  known only by its outcome): at least one of those must have failed before and passed after. A test that passed
  before too proves nothing; a test red at the base that is still red after is the judge's
  to discount, not a proof;
- a runner that lists only its failures (a default reporter that prints passing files, not tests)
  proves a test that failed before by a run after that passed whole with at least as many
  passing tests as ran before;
- a run no runner module read (a runner coder does not know: what ids its lines seem to give
  are guesses) proves by its exits: red before, green after.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from coder.verdict.judge import Facts, Verdict
from summarizers.runners.model import FAILING, PASSED, Target
from summarizers.runners.testdefs import matches

Titles = Sequence[tuple[str, ...]]

VACUOUS = "passed before the change too: it would not have caught the bug"
IDS_SHOWN = 5


@dataclass(frozen=True)
class ProofVerdict:
    proven: bool
    lines: list[str]
    after_failed: bool
    """The run after the step is what failed (its log is the one to show)."""
    proving: tuple[str, ...] = ()
    """The test ids that failed before and pass after (what coder.attempts runs against the
    other candidates' trees)."""


def judge_proof(
    before: Facts,
    after: Verdict,
    targets: Sequence[Target],
    changed: Mapping[str, Titles | None] | None = None,
) -> ProofVerdict:
    """`changed`: target name -> the title paths of the tests the step added or changed in
    its files (None, or a name absent: not known; every test in it stands in)."""
    now = after.now
    lines: list[str] = []
    proving: list[str] = []
    proven = True
    if not now.readers and not before.readers:
        return _by_exit(before, after)
    by_name: dict[str, list[tuple[bool, str, list[str]]]] = {}
    for target in targets:
        if target.kind == "test":
            ok, line = _named_test(target, before, now)
            ids = [target.name] if ok else []
        else:
            ok, line, ids = _stand_in(target, before, now, (changed or {}).get(target.name))
        by_name.setdefault(target.name, []).append((ok, line, ids))
    for got in by_name.values():  # a glob's files: one of them proving proves the name
        wins = [g for g in got if g[0]]
        proven &= bool(wins)
        lines += [g[1] for g in wins or got]
        proving += [i for g in wins for i in g[2]]
    if not after.passed:
        proven = False
        what = ", ".join(after.counted[:IDS_SHOWN] + after.missing[:IDS_SHOWN])
        lines.append(
            "the run after the change does not pass as a tests_pass on the same names would"
            + (f": {what}" if what else "")
        )
    after_failed = not after.passed or any("after it" in x for x in lines)
    return ProofVerdict(proven, lines, after_failed, tuple(proving) if proven else ())


def outcome_of(target: Target, run: Facts) -> str:
    """passed | failed | skipped | missing: what the run says of the tests a name covers. A
    file that failed to load fails every test in it; a run killed at its limit failed."""
    own = [o for t, o in run.outcomes.items() if target.covers(t)]
    holders = [o for t, o in run.outcomes.items() if t in target.holders]
    if any(o in FAILING for o in own + holders) or run.timed_out:
        return "failed"
    if own and all(o == PASSED for o in own):
        return "passed"
    if own:
        return "skipped"
    return "missing"


def _named_test(target: Target, before: Facts, now: Facts) -> tuple[bool, str]:
    was, after = outcome_of(target, before), outcome_of(target, now)
    name = target.name
    if was == "passed":
        return False, f"{name}: {VACUOUS}"
    if was in ("skipped", "missing"):
        return False, f"{name}: did not run before the change ({was}), so it proves nothing"
    if after == "missing" and (passing := _passes_unlisted(before, now)):
        return True, f"{name}: failed before the change; {passing}"
    if after != "passed":
        return False, f"{name}: failed before the change as it should, but {after} after it"
    return True, f"{name}: failed before the change, passes after it"


def _stand_in(
    target: Target, before: Facts, now: Facts, titles: Titles | None
) -> tuple[bool, str, list[str]]:
    """A file or directory: the step's tests in it that pass now and failed before."""
    name = target.name
    covered = sorted(t for t in now.outcomes if target.covers(t))
    failed_before = sorted(
        t for t, o in before.outcomes.items() if o in FAILING and target.covers(t)
    )
    if not covered and failed_before and (passing := _passes_unlisted(before, now)):
        shown = ", ".join(failed_before[:IDS_SHOWN])
        return True, f"{name}: {shown} failed before the change; {passing}", failed_before
    if not covered:
        return False, f"{name}: no test in it ran after the change, so it proves nothing", []
    if titles:
        mine = [t for t in covered if any(matches(t, title) for title in titles)]
        covered = mine or covered
    failed_holders = [h for h, o in before.outcomes.items() if o in FAILING and h in target.holders]
    proving = [
        t
        for t in covered
        if now.outcomes[t] == PASSED
        and (
            before.outcomes.get(t) in FAILING
            or before.timed_out
            or any(t == h or t.startswith(h) for h in failed_holders)
        )
    ]
    if proving:
        shown = ", ".join(proving[:IDS_SHOWN]) + (
            f" (+{len(proving) - IDS_SHOWN} more)" if len(proving) > IDS_SHOWN else ""
        )
        line = f"{name}: {len(proving)} test(s) failed before the change, pass after it: {shown}"
        return True, line, proving
    vacuous = [t for t in covered if now.outcomes[t] == PASSED]
    if vacuous:
        more = f" (+{len(vacuous) - IDS_SHOWN} more)" if len(vacuous) > IDS_SHOWN else ""
        return False, "\n".join(f"{t}: {VACUOUS}" for t in vacuous[:IDS_SHOWN]) + more, []
    return False, f"{name}: no test in it passes after the change", []


def _passes_unlisted(before: Facts, now: Facts) -> str:
    """Why a test that failed before passes now though the run after does not list it: its
    runner names only failures (a reporter that prints passing files, not tests), the run
    after passed whole, and it counted at least as many passing tests as the run before ran,
    so none went missing. Empty when that cannot be said."""
    if now.all_listed or now.red or now.failing or now.passed_count is None:
        return ""
    ran_before = before.passed + len(before.failing)
    if now.passed_count < ran_before:
        return ""
    return (
        f"after it the run passed with no failing test ({now.passed_count} passed, "
        f"{ran_before} ran before; its runner lists only failures)"
    )


def _by_exit(before: Facts, after: Verdict) -> ProofVerdict:
    """No test named by id on either side (a runner coder does not read): the runs' exits."""
    head = "judged by exit status (the runner names no test by id): "
    if not before.red:
        return ProofVerdict(False, [head + "it " + VACUOUS], False)
    if not after.passed:
        line = head + f"it failed before the change (exit {before.exit_code}), and after it too"
        return ProofVerdict(False, [line], True)
    line = head + f"it failed before the change (exit {before.exit_code}) and passes after it"
    return ProofVerdict(True, [line], False)
