"""What the planner is told about invariants: every kind, and which phrasing is strict."""

from __future__ import annotations

from coder.loop.conversation.prompts import plan_briefing
from contracts.compiler import COMPILABLE_FORMS, compile_invariant
from contracts.invariants import INVARIANT_KINDS


def test_plan_briefing_names_the_signature_kinds_and_every_form() -> None:
    text = plan_briefing("t", "(map)", "pytest -q")
    signature_kinds = [k for k in INVARIANT_KINDS if "signature" in k or "public_api" in k]
    assert len(signature_kinds) == 4
    for kind in signature_kinds:
        assert f'"{kind}"' in text
    for form in COMPILABLE_FORMS:
        assert form in text


def test_the_briefing_s_own_examples_compile_to_what_it_says() -> None:
    text = plan_briefing("t", "(map)", None)
    said = " ".join(text.split())
    assert '"Breaking", "backward compatible" and "don\'t break" mean compatible' in said
    assert compile_invariant("Zero breaking changes to f signature").kind == "signature_compatible"
    assert compile_invariant("f stays backward compatible").kind == "signature_compatible"
    assert compile_invariant("Don't break callers of f").kind == "signature_compatible"
    assert compile_invariant("The signature of f must not change").kind == "signature_unchanged"
    assert compile_invariant("f keeps its signature").kind == "signature_unchanged"
    assert compile_invariant("f's signature is unchanged in m.py").kind == "signature_unchanged"


def test_the_planner_is_asked_for_a_proven_regression_test_and_told_the_forms() -> None:
    from coder.loop.conversation.prompts import plan_briefing

    briefing = plan_briefing("Fix the off-by-one in paginate()", "(map)", "pytest -q")
    assert "A bug fix should come with a regression test proven to catch the bug" in briefing
    assert "The new tests in FILE fail before this step" in briefing
    assert "`ID` is removed (on purpose)" in briefing
    assert "`notes` is what you found that the executors need" in " ".join(briefing.split())
