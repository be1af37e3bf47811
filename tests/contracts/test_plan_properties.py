"""Random plans: validation never raises, and whatever it accepts runs in a valid, stable order."""

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from contracts.validation import validate_plan

IDS = ["a", "b", "c", "d", "e", "f", "ステップ", "étape-2", "bad id", ""]
FILES = [
    "src/a.py",
    "src/**",
    "tests/test_*.py",
    "données/é.py",
    "/abs.py",
    "../up.py",
    ".git/config",
    "src/[x.py",
    "src/**.py",
    "",
]
INVARIANTS: list[Any] = [
    "All unit tests in tests/test_a.py must exit code 0",
    "Zero breaking changes to verifyCredential signature",
    "`make check` must succeed",
    "at most 30 lines change",
    "make it better",
    {"kind": "command_succeeds", "command": "true"},
    {"kind": "bogus"},
    {"kind": "text_absent", "pattern": "print("},
    5,
    None,
]
TARGETS = ["HEAD~1", "HEAD~3", "HEAD~0", "step:a", "step:b", "step:zz", "main", 7]

SETTINGS = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def raw_step(draw: st.DrawFn) -> Any:
    if draw(st.integers(0, 30)) == 0:
        return draw(st.sampled_from(["step", 3, None, []]))
    out: dict[str, Any] = {
        "stepId": draw(st.sampled_from(IDS)),
        "dependencies": draw(st.lists(st.sampled_from([*IDS[:7], "earlier", "ghost"]), max_size=3)),
        "intendedModification": {
            "files": draw(st.lists(st.sampled_from(FILES), max_size=3)),
            "invariants": draw(st.lists(st.sampled_from(INVARIANTS), max_size=3)),
        },
    }
    if draw(st.booleans()):
        out["rollbackPlan"] = {
            "gitCheckout": draw(st.sampled_from(TARGETS)),
            "discardPaths": draw(st.lists(st.sampled_from(FILES), max_size=2)),
        }
    if draw(st.integers(0, 20)) == 0:
        out["title"] = draw(st.sampled_from([1, "t", None]))
    return out


plans = st.builds(
    lambda steps, goal: {"goal": goal, "steps": steps},
    st.lists(raw_step(), max_size=8),
    st.sampled_from(["g", 5]),
)

GOOD_IDS = ["a", "b", "c", "d", "e", "f", "g", "ステップ", "étape-2", "s.1"]
GOOD_FILES = ["src/a.py", "src/**", "tests/test_*.py", "données/é.py", "pages/[id].tsx"]


@st.composite
def mostly_valid_plans(draw: st.DrawFn) -> dict:
    """Unique ids, good fields; dependencies mostly point back, sometimes forward (cycles)."""
    ids = draw(st.lists(st.sampled_from(GOOD_IDS), min_size=1, max_size=10, unique=True))
    steps = []
    for i, step_id in enumerate(ids):
        back = draw(st.lists(st.sampled_from(ids[:i]), max_size=3)) if i else []
        forward = (
            draw(st.lists(st.sampled_from(ids), max_size=1)) if draw(st.integers(0, 9)) == 0 else []
        )
        deps = back + forward + draw(st.lists(st.just("earlier"), max_size=1))
        target = draw(
            st.sampled_from(["HEAD~1", "HEAD~2", f"step:{step_id}", *[f"step:{d}" for d in back]])
        )
        steps.append(
            {
                "stepId": step_id,
                "dependencies": deps,
                "intendedModification": {
                    "files": draw(st.lists(st.sampled_from(GOOD_FILES), min_size=1, max_size=3)),
                    "invariants": draw(st.lists(st.sampled_from(INVARIANTS[:4]), max_size=2)),
                },
                "rollbackPlan": {"gitCheckout": target},
            }
        )
    return {"goal": "g", "steps": steps}


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=5),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=12,
)


def stable_reference(ids: list[str], deps: dict[str, list[str]]) -> list[str] | None:
    """The earliest-written ready step first; None when the steps cannot all be placed."""
    placed: list[str] = []
    remaining = list(ids)
    while remaining:
        ready = next(
            (s for s in remaining if all(d in placed or d not in ids for d in deps[s])), None
        )
        if ready is None:
            return None
        placed.append(ready)
        remaining.remove(ready)
    return placed


@SETTINGS
@given(
    plans | mostly_valid_plans(),
    st.sampled_from([frozenset(), frozenset({"earlier"})]),
    st.booleans(),
)
def test_random_plans_never_raise_and_accepted_ones_order_correctly(
    data: dict, known: frozenset[str], allow_unverified: bool
) -> None:
    check = validate_plan(data, known_verified=known, allow_unverified=allow_unverified)
    assert (check.plan is None) == bool(check.problems)
    assert all(p.where and p.message for p in check.problems)
    steps = [s for s in data["steps"] if isinstance(s, dict)]
    ids = [s.get("stepId") for s in steps]
    deps = {s["stepId"]: s["dependencies"] for s in steps if isinstance(s.get("stepId"), str)}
    if check.plan is None:
        return
    assert len(steps) == len(data["steps"]) and len(set(ids)) == len(ids)
    order = check.plan.order
    assert sorted(order) == sorted(ids)
    position = {step_id: i for i, step_id in enumerate(order)}
    for step_id in order:
        for dep in deps[step_id]:
            assert dep in position or dep in known
            if dep in position:
                assert position[dep] < position[step_id]
    assert order == stable_reference(ids, deps)


@SETTINGS
@given(plans | mostly_valid_plans())
def test_plans_with_a_cycle_are_never_accepted(data: dict) -> None:
    steps = [s for s in data["steps"] if isinstance(s, dict) and isinstance(s.get("stepId"), str)]
    ids = [s["stepId"] for s in steps]
    deps = {s["stepId"]: s["dependencies"] for s in steps}
    if len(set(ids)) == len(ids) and stable_reference(ids, deps) is None:
        assert not validate_plan(data, known_verified=frozenset({"earlier", "ghost"})).ok


@settings(max_examples=100, deadline=None)
@given(json_values | st.dictionaries(st.sampled_from(["goal", "steps", "x"]), json_values))
def test_arbitrary_json_never_raises(data: object) -> None:
    check = validate_plan(data)
    assert check.plan is None or check.problems == []
