"""The selection as a function: attempts' facts and their exchanged proofs in, a winner and
its reasons out. No git, no sandbox, no model."""

from __future__ import annotations

from coder.attempts.selection import Attempted, Exchange, agreed, select

PROOF = "tests/test_calc.py::test_add_negative"


def attempt(n: int, status: str = "verified", **kw) -> Attempted:
    defaults = {"model": f"script:{n}", "stop_reason": "completed", "changed_lines": 4}
    if status != "verified":
        defaults["stop_reason"] = "revisions_exhausted"
    return Attempted(attempt=n, status=status, **{**defaults, **kw})


def test_the_candidate_that_breaks_anothers_proof_loses_though_its_change_is_smaller():
    right = attempt(1, proven=(PROOF,), changed_lines=6)
    wrong = attempt(2, proven=("tests/test_calc.py::test_add_zero",), changed_lines=2)
    failing = attempt(3, status="failed")
    exchanges = {
        (1, 2): Exchange(0, 1, (PROOF,)),  # the right fix's proof fails on the wrong fix
        (2, 1): Exchange(1, 1),
    }
    chosen = select([right, wrong, failing], exchanges)
    assert chosen.selected == 1
    rows = {c.attempt: c for c in chosen.candidates}
    assert (rows[1].proofs_passed, rows[1].proofs_total, rows[1].selected) == (1, 1, True)
    assert (rows[2].proofs_passed, rows[2].proofs_total, rows[2].selected) == (0, 1, False)
    assert (rows[3].status, rows[3].proofs_total) == ("failed", 0)
    assert f"attempt 2 passes 0/1 of the others' proven tests; fails {PROOF}" in chosen.reasons
    assert chosen.reasons[-1] == (
        "attempt 1 won: it breaks fewer other candidates' proofs (0 against 1 for attempt 2)"
    )


def test_when_the_proofs_tie_the_smaller_change_wins_and_a_weakened_check_loses_first():
    big, small = attempt(1, changed_lines=9), attempt(2, changed_lines=3)
    chosen = select([big, small], {(1, 2): Exchange(1, 1), (2, 1): Exchange(1, 1)})
    assert chosen.selected == 2
    assert "its change is smaller (3 changed lines against 9 for attempt 1)" in chosen.reasons[-1]
    weakened = attempt(2, changed_lines=3, weakened=("removed t::x on purpose",))
    chosen = select([big, weakened], {})
    assert chosen.selected == 1
    assert chosen.reasons[-1] == (
        "attempt 1 won: it weakens no check, and attempt 2 removed t::x on purpose"
    )


def test_with_no_verified_attempt_nothing_is_selected_and_the_closest_is_named():
    far = attempt(1, status="failed", verified_steps=0, message="step failed")
    near = attempt(
        2,
        status="failed",
        stop_reason="final_check_failed",
        verified_steps=2,
        final_failures=1,
        message="tests/test_calc.py::test_scale now fails",
    )
    never = attempt(3, status="not_run", stop_reason="interrupted", verified_steps=5)
    chosen = select([far, near, never], {})
    assert (chosen.selected, chosen.closest) == (None, 2)
    assert not any(c.selected for c in chosen.candidates)
    assert chosen.reasons == [
        "no attempt verified, so none is selected",
        "attempt 2 came closest (2 step(s) verified, 1 new failure(s) in the final check; "
        "final_check_failed): tests/test_calc.py::test_scale now fails",
    ]


def test_enough_agree_when_two_verified_candidates_pass_each_others_proofs():
    one, two, three = attempt(1), attempt(2), attempt(3, status="stopped")
    assert agreed([one, three], {}) is None  # one verified candidate agrees with nobody
    assert agreed([one, two], {(1, 2): Exchange(1, 1)}) is None  # not yet run both ways
    assert agreed([one, two], {(1, 2): Exchange(1, 1), (2, 1): Exchange(0, 1, ("x",))}) is None
    assert agreed([one, two], {(1, 2): Exchange(0, 0), (2, 1): Exchange(0, 0)}) is None
    assert agreed([one, two], {(1, 2): Exchange(1, 1), (2, 1): Exchange(0, 0)}) == (1, 2)


def test_a_candidate_is_weighed_once_however_many_ids_it_proves_and_an_unrun_exchange_is_not_a_break():
    """humanize (live trial): one candidate added 12 cases to a parameterized test (82 proven
    ids), the other 3; counted by ids, failing 3 weighed like failing 3 of 82. A candidate
    whose proofs break another is one break, whatever its ids; a share breaks ties next. An
    exchange that could not run (the tree could not be set up) says so and counts neither way."""
    many = tuple(f"tests/test_filesize.py::test_naturalsize[case{i}]" for i in range(82))
    few = tuple(f"tests/test_filesize.py::test_boundary[{i}]" for i in range(3))
    broad = attempt(1, proven=many, changed_lines=18)
    narrow = attempt(2, proven=few, changed_lines=16)
    exchanges = {(1, 2): Exchange(80, 82, many[:2]), (2, 1): Exchange(0, 3, few)}
    chosen = select([broad, narrow], exchanges)
    assert chosen.selected == 2  # each breaks one candidate; 2 failing of 82 is the smaller share
    assert chosen.reasons[-1] == (
        "attempt 2 won: it fails a smaller share of the others' proven tests "
        "(2/82 against 3/3 for attempt 1)"
    )
    unrun = {
        (1, 2): Exchange(0, 82, many, note="the tree could not be set up"),
        (2, 1): Exchange(3, 3),
    }
    chosen = select([broad, narrow], unrun)
    assert chosen.selected == 2  # no break either way: the smaller change
    assert any("could not run on it: the tree could not be set up" in r for r in chosen.reasons)
    assert "smaller" in chosen.reasons[-1]
