import pytest

from contracts.graph import CycleError, find_cycles, order_graph, ready_steps, topological_order
from contracts.plan import StepContract
from contracts.validation import validate_plan


def contract(step_id: str, *deps: str) -> StepContract:
    return StepContract.model_validate(
        {"stepId": step_id, "dependencies": list(deps), "intendedModification": {"files": ["a"]}}
    )


def test_dependencies_come_first_and_ties_keep_plan_order() -> None:
    steps = [contract("c"), contract("b", "c"), contract("a"), contract("d", "a", "b")]
    assert topological_order(steps) == ["c", "b", "a", "d"]


def test_independent_steps_keep_plan_order() -> None:
    steps = [contract(name) for name in "zyxw"]
    assert topological_order(steps) == list("zyxw")


def test_a_later_ready_step_does_not_jump_an_earlier_one() -> None:
    steps = [contract("late", "root"), contract("root"), contract("early")]
    assert topological_order(steps) == ["root", "late", "early"]


def test_dependencies_outside_the_steps_are_ignored() -> None:
    assert topological_order([contract("b", "verified-before"), contract("a")]) == ["b", "a"]


def test_cycle_error_carries_the_closed_cycle() -> None:
    with pytest.raises(CycleError) as caught:
        topological_order([contract("x"), contract("a", "b"), contract("b", "a")])
    assert caught.value.cycle == ["a", "b", "a"]
    assert str(caught.value) == "dependency cycle: a -> b -> a"


def test_find_cycles_one_per_component_shortest_through_the_first_step() -> None:
    graph = {"a": ["b", "c"], "b": ["c"], "c": ["a"], "d": ["d"], "e": ["a"]}
    assert find_cycles(graph) == [["a", "c", "a"], ["d", "d"]]


def test_long_chain_and_long_cycle_need_no_recursion() -> None:
    n = 5000
    chain = {f"s{i}": [f"s{i - 1}"] if i else [] for i in range(n)}
    assert order_graph(chain)[:3] == ["s0", "s1", "s2"]
    chain["s0"] = [f"s{n - 1}"]
    (cycle,) = find_cycles(chain)
    assert len(cycle) == n + 1 and cycle[0] == cycle[-1] == "s0"


def valid(data_steps: list[tuple[str, list[str]]], known: frozenset[str] = frozenset()):
    data = {
        "goal": "g",
        "steps": [
            {"stepId": s, "dependencies": d, "intendedModification": {"files": ["a"]}}
            for s, d in data_steps
        ],
    }
    check = validate_plan(data, known_verified=known)
    assert check.plan is not None, check.problems
    return check.plan


def test_ready_steps_follow_verification() -> None:
    plan = valid([("a", []), ("b", ["a"]), ("c", ["a"]), ("d", ["b", "c"]), ("e", [])])
    assert ready_steps(plan, set()) == ["a", "e"]
    assert ready_steps(plan, {"a"}) == ["b", "c", "e"]
    assert ready_steps(plan, {"a", "b"}) == ["c", "e"]
    assert ready_steps(plan, {"a", "b", "c", "e"}) == ["d"]
    assert ready_steps(plan, {"a", "b", "c", "d", "e"}) == []


def test_ready_steps_treat_earlier_verified_dependencies_as_met() -> None:
    plan = valid([("b", ["old"]), ("c", ["b"])], known=frozenset({"old"}))
    assert ready_steps(plan, set()) == ["b"]
