import copy
import json
from pathlib import Path
from typing import Any

import pytest

from contracts.invariants import (
    Advisory,
    CommandSucceeds,
    FilesWithinScope,
    SignatureCompatible,
    TestsPass,
)
from contracts.validation import PlanCheck, Problem, validate_plan

DATA = Path(__file__).parent / "data"


def seed() -> dict[str, Any]:
    return json.loads((DATA / "seed_plan.json").read_text())


def step(
    step_id: str, deps: list[str] | None = None, files: list[str] | None = None, **extra: Any
) -> dict:
    out: dict[str, Any] = {
        "stepId": step_id,
        "dependencies": deps or [],
        "intendedModification": {"files": files or [f"{step_id}.py"], "invariants": []},
    }
    out.update(extra)
    return out


def plan(*steps: dict) -> dict:
    return {"goal": "g", "steps": list(steps)}


def lines(check: PlanCheck) -> list[str]:
    return [str(p) for p in check.problems]


def only_problem(check: PlanCheck) -> Problem:
    assert check.plan is None
    assert len(check.problems) == 1, lines(check)
    return check.problems[0]


# -- the design's seed plan -----------------------------------------------------------------


def test_seed_plan_reports_exactly_the_missing_dependency() -> None:
    problem = only_problem(validate_plan(seed()))
    assert problem.where == "steps[0] (migrate-auth-tokens).dependencies[0]"
    assert "'schema-migration-applied' is not a step of this plan" in problem.message


def test_seed_plan_is_valid_when_the_dependency_was_verified_earlier() -> None:
    check = validate_plan(seed(), known_verified=frozenset({"schema-migration-applied"}))
    assert check.problems == [] and check.ok
    assert check.plan is not None
    assert check.plan.order == ["migrate-auth-tokens"]
    compiled = check.plan.steps["migrate-auth-tokens"]
    assert compiled.invariants == [
        SignatureCompatible(symbol="verifyCredential", source=compiled.invariants[0].source),
        TestsPass(paths=["auth.test.ts"], source=compiled.invariants[1].source),
        CommandSucceeds(command="npx tsc --noEmit"),
    ]
    assert not any(isinstance(i, FilesWithinScope) for i in compiled.invariants)
    assert compiled.contract.rollback_plan.discard_paths == ["src/auth.ts"]
    assert check.plan.plan.wire() == seed()


def test_problem_prints_as_where_colon_message() -> None:
    assert str(Problem("plan", "has no steps")) == "plan: has no steps"


# -- plan shape -----------------------------------------------------------------------------


@pytest.mark.parametrize("data", [[], "plan", None, 3])
def test_a_plan_that_is_not_an_object_is_one_problem(data: object) -> None:
    problem = only_problem(validate_plan(data))
    assert problem.where == "plan" and "expected an object" in problem.message


def test_empty_plan_is_a_problem() -> None:
    problem = only_problem(validate_plan({"goal": "g", "steps": []}))
    assert problem.where == "steps" and "no steps" in problem.message


@pytest.mark.parametrize(
    ("data", "where", "needle"),
    [
        ({"goal": "g"}, "steps", "missing"),
        ({"goal": "g", "steps": {"a": 1}}, "steps", "expected an array, got object"),
        ({"goal": 5, "steps": [step("a")]}, "goal", "expected a string, got number 5"),
        ({"goal": "g", "step": [], "steps": [step("a")]}, "step", "did you mean 'steps'"),
    ],
)
def test_top_level_shape_problems(data: dict, where: str, needle: str) -> None:
    problem = only_problem(validate_plan(data))
    assert problem.where == where and needle in problem.message


# -- wrong types become readable lines -------------------------------------------------------


@pytest.mark.parametrize(
    ("mutate", "where", "needle"),
    [
        (lambda s: s.update(stepId=7), "steps[0].stepId", "expected a string, got number 7"),
        (lambda s: s.pop("stepId"), "steps[0].stepId", "missing (required)"),
        (lambda s: s.update(dependencies="b"), "steps[0] (a).dependencies", "expected an array"),
        (lambda s: s.update(dependencies=[1]), "steps[0] (a).dependencies[0]", "expected a string"),
        (lambda s: s.update(title=["t"]), "steps[0] (a).title", "expected a string, got array"),
        (lambda s: s.update(dependsOn=[]), "steps[0] (a).dependsOn", "did you mean 'dependencies'"),
        (lambda s: s.pop("intendedModification"), "steps[0] (a).intendedModification", "missing"),
        (
            lambda s: s["intendedModification"].update(files=[]),
            "steps[0] (a).intendedModification.files",
            "must not be empty",
        ),
        (
            lambda s: s["intendedModification"].update(files="a.py"),
            "steps[0] (a).intendedModification.files",
            "expected an array, got string 'a.py'",
        ),
        (
            lambda s: s["intendedModification"].update(invariants=[None]),
            "steps[0] (a).intendedModification.invariants[0]",
            "string or an object with a kind, not null",
        ),
        (
            lambda s: s.update(rollbackPlan={"gitCheckout": True}),
            "steps[0] (a).rollbackPlan.gitCheckout",
            "expected a string, got true",
        ),
        (
            lambda s: s.update(rollbackPlan="HEAD~1"),
            "steps[0] (a).rollbackPlan",
            "expected an object, got string",
        ),
    ],
)
def test_wrong_types_are_readable_lines_naming_the_field(
    mutate: Any, where: str, needle: str
) -> None:
    raw = step("a")
    mutate(raw)
    problem = only_problem(validate_plan(plan(raw)))
    assert problem.where == where
    assert needle in problem.message
    assert "Traceback" not in problem.message and "pydantic" not in problem.message


def test_a_step_that_is_not_an_object() -> None:
    problem = only_problem(validate_plan(plan(step("a"), "b")))
    assert problem.where == "steps[1]" and "expected an object, got string 'b'" in problem.message


# -- ids, dependencies, cycles -------------------------------------------------------------


def test_duplicate_step_ids_point_at_the_first_use() -> None:
    problem = only_problem(validate_plan(plan(step("a"), step("b"), step("a"))))
    assert problem.where == "steps[2] (a).stepId"
    assert "duplicate stepId; steps[0] has it" == problem.message


@pytest.mark.parametrize("bad", ["has space", "-leading", "a/b", "a:b", "x" * 129])
def test_step_ids_must_be_slugs(bad: str) -> None:
    problem = only_problem(validate_plan(plan(step(bad))))
    assert problem.where.endswith(".stepId")


@pytest.mark.parametrize(
    "good", ["a", "migrate-auth-tokens", "step_2", "v1.2", "ステップ-1", "étape"]
)
def test_slugs_accepted(good: str) -> None:
    assert validate_plan(plan(step(good))).ok


def test_unknown_dependency_suggests_a_close_step() -> None:
    problem = only_problem(
        validate_plan(plan(step("migrate-tokens"), step("b", ["migrate-token"])))
    )
    assert problem.where == "steps[1] (b).dependencies[0]"
    assert "did you mean 'migrate-tokens'?" in problem.message


def test_cycle_is_named() -> None:
    check = validate_plan(plan(step("a", ["b"]), step("b", ["c"]), step("c", ["a"])))
    problem = only_problem(check)
    assert problem.where == "steps[0] (a).dependencies"
    assert "a -> b -> c -> a" in problem.message


def test_two_cycles_are_both_reported() -> None:
    check = validate_plan(
        plan(step("a", ["b"]), step("b", ["a"]), step("c", ["d"]), step("d", ["c"]))
    )
    assert [p.where for p in check.problems] == [
        "steps[0] (a).dependencies",
        "steps[2] (c).dependencies",
    ]
    assert "a -> b -> a" in check.problems[0].message
    assert "c -> d -> c" in check.problems[1].message


def test_self_dependency() -> None:
    problem = only_problem(validate_plan(plan(step("a", ["a"]))))
    assert "depends on itself" in problem.message


def test_known_verified_dependencies_do_not_count_as_unknown() -> None:
    data = plan(step("b", ["a"]), step("c", ["b", "a"]))
    assert not validate_plan(data).ok
    check = validate_plan(data, known_verified=frozenset({"a"}))
    assert check.ok and check.plan is not None and check.plan.order == ["b", "c"]


def test_order_is_topological_and_stable() -> None:
    data = plan(step("d", ["c"]), step("a"), step("c", ["a"]), step("b"))
    check = validate_plan(data)
    assert check.plan is not None and check.plan.order == ["a", "c", "d", "b"]


# -- files ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "needle"),
    [
        ("/etc/passwd", "absolute"),
        ("C:/src/a.py", "absolute"),
        ("~/x.py", "absolute"),
        ("src/../../x.py", "'..'"),
        ("..", "'..'"),
        (".git/config", ".git/"),
        ("vendor/.git/HEAD", ".git/"),
        ("src/**.py", "'**' must be a whole segment"),
        ("src/{a,b}.py", "brace"),
        ("src/", "'src/**'"),
        ("./src/a.py", "'src/a.py'"),
        ("src//a.py", "empty segment"),
        ("src\\a.py", "'/'"),
        ("", "empty"),
        ("a\nb", "control character"),
    ],
)
def test_bad_files_are_reported_with_their_index(path: str, needle: str) -> None:
    problem = only_problem(validate_plan(plan(step("a", files=["ok.py", path]))))
    assert problem.where == "steps[0] (a).intendedModification.files[1]"
    assert needle in problem.message


@pytest.mark.parametrize(
    "path",
    [
        "src/auth.ts",
        "src/**",
        "src/**/*.py",
        "*.md",
        "pages/[id].tsx",
        ".gitignore",
        "données/é.py",
    ],
)
def test_good_files_and_globs(path: str) -> None:
    assert validate_plan(plan(step("a", files=[path]))).ok


# -- rollback -------------------------------------------------------------------------------


@pytest.mark.parametrize("target", ["HEAD~1", "HEAD~12", "step:a", "step:base", "step:earlier"])
def test_good_rollback_targets(target: str) -> None:
    data = plan(step("base"), step("a", ["base"], rollbackPlan={"gitCheckout": target}))
    assert validate_plan(data, known_verified=frozenset({"earlier"})).ok


@pytest.mark.parametrize(
    ("target", "needle"),
    [
        ("HEAD~0", "not a rollback target"),
        ("HEAD", "not a rollback target"),
        ("HEAD^", "not a rollback target"),
        ("HEAD~-1", "not a rollback target"),
        ("head~1", "not a rollback target"),
        ("main", "not a rollback target"),
        ("abc1234", "not a rollback target"),
        ("step:nowhere", "names no step"),
        ("step:later", "neither this step nor one it depends on"),
    ],
)
def test_bad_rollback_targets(target: str, needle: str) -> None:
    data = plan(step("a", rollbackPlan={"gitCheckout": target}), step("later", ["a"]))
    problem = only_problem(validate_plan(data))
    assert problem.where == "steps[0] (a).rollbackPlan.gitCheckout"
    assert needle in problem.message


def test_transitive_dependency_is_a_valid_rollback_step() -> None:
    data = plan(
        step("a"), step("b", ["a"]), step("c", ["b"], rollbackPlan={"gitCheckout": "step:a"})
    )
    assert validate_plan(data).ok


def test_discard_paths_must_lie_within_the_files() -> None:
    rollback = {
        "gitCheckout": "HEAD~1",
        "discardPaths": ["src/a.py", "src/x/y.py", "README.md", "src/*.py"],
    }
    data = plan(step("a", files=["src/a.py", "src/x/**"], rollbackPlan=rollback))
    check = validate_plan(data)
    assert [p.where for p in check.problems] == [
        "steps[0] (a).rollbackPlan.discardPaths[2]",
        "steps[0] (a).rollbackPlan.discardPaths[3]",  # src/b.py would be outside
    ]
    assert "'README.md' is outside this step's files (src/a.py, src/x/**)" in lines(check)[0]


def test_discard_glob_within_a_wider_glob_is_fine() -> None:
    rollback = {"discardPaths": ["src/*.ts", "src/**"]}
    assert validate_plan(plan(step("a", files=["src/**"], rollbackPlan=rollback))).ok


def test_bad_discard_path_is_reported_as_a_path_problem() -> None:
    rollback = {"discardPaths": ["/tmp/x"]}
    problem = only_problem(validate_plan(plan(step("a", files=["src/**"], rollbackPlan=rollback))))
    assert problem.where.endswith("discardPaths[0]") and "absolute" in problem.message


# -- invariants -----------------------------------------------------------------------------


def with_invariants(*items: object) -> dict:
    raw = step("a")
    raw["intendedModification"]["invariants"] = list(items)
    return plan(raw)


def test_unknown_invariant_kind_lists_the_known_ones() -> None:
    problem = only_problem(validate_plan(with_invariants({"kind": "lint_clean"})))
    assert problem.where == "steps[0] (a).intendedModification.invariants[0].kind"
    assert "unknown invariant kind 'lint_clean'" in problem.message
    assert "tests_pass" in problem.message and "max_changed_lines" in problem.message


def test_invariant_object_field_errors_name_the_field() -> None:
    problem = only_problem(
        validate_plan(with_invariants("all tests pass", {"kind": "command_succeeds"}))
    )
    assert problem.where == "steps[0] (a).intendedModification.invariants[1].command"


def test_uncompilable_strings_list_the_forms_once() -> None:
    check = validate_plan(with_invariants("be fast", "all tests pass", "be elegant"))
    assert [p.where for p in check.problems] == [
        "steps[0] (a).intendedModification.invariants[0]",
        "steps[0] (a).intendedModification.invariants[2]",
    ]
    assert "All unit tests in X must exit code 0" in check.problems[0].message
    assert "All unit tests in X must exit code 0" not in check.problems[1].message
    assert "see above" in check.problems[1].message


def test_allow_unverified_keeps_uncompilable_strings_as_advisories() -> None:
    check = validate_plan(with_invariants("be fast", "all tests pass"), allow_unverified=True)
    assert check.plan is not None
    invariants = check.plan.steps["a"].invariants
    assert invariants[0] == Advisory(text="be fast", source="be fast")
    assert isinstance(invariants[1], TestsPass)


def test_allow_unverified_does_not_excuse_malformed_objects_or_empty_strings() -> None:
    check = validate_plan(with_invariants({"kind": "nope"}, "  "), allow_unverified=True)
    assert len(check.problems) == 2 and check.plan is None


# -- every problem at once ------------------------------------------------------------------


def test_every_problem_is_reported_at_once_in_step_order() -> None:
    data = {
        "goal": "g",
        "extra": True,
        "steps": [
            step("a", ["b", "ghost"], files=["/abs.py"], rollbackPlan={"gitCheckout": "HEAD~0"}),
            step("b", ["a"]),
            step("a"),
            {"stepId": "d", "intendedModification": {"files": []}},
        ],
    }
    data["steps"][0]["intendedModification"]["invariants"] = ["vague", {"kind": "bogus"}]
    check = validate_plan(data)
    wheres = [p.where for p in check.problems]
    assert wheres == [
        "extra",
        "steps[0] (a).dependencies[1]",
        "steps[0] (a).dependencies",
        "steps[0] (a).intendedModification.files[0]",
        "steps[0] (a).rollbackPlan.gitCheckout",
        "steps[0] (a).intendedModification.invariants[0]",
        "steps[0] (a).intendedModification.invariants[1].kind",
        "steps[2] (a).stepId",
        "steps[3] (d).intendedModification.files",
    ]


def test_validation_does_not_mutate_its_input() -> None:
    data = seed()
    before = copy.deepcopy(data)
    validate_plan(data)
    assert data == before


# -- unicode and scale -----------------------------------------------------------------------


def test_unicode_ids_and_paths() -> None:
    data = plan(
        step("créer-modèle", files=["src/modèles/données.py"]),
        step(
            "テスト",
            ["créer-modèle"],
            files=["tests/テスト_*.py"],
            rollbackPlan={"gitCheckout": "step:créer-modèle"},
        ),
    )
    data["steps"][1]["intendedModification"]["invariants"] = ["Tests in tests/テスト_a.py pass"]
    check = validate_plan(data)
    assert check.plan is not None, lines(check)
    assert check.plan.order == ["créer-modèle", "テスト"]
    assert check.plan.steps["テスト"].invariants[0] == TestsPass(
        paths=["tests/テスト_a.py"], source="Tests in tests/テスト_a.py pass"
    )


def test_unicode_id_appears_in_where() -> None:
    problem = only_problem(validate_plan(plan(step("шаг", ["нет"]))))
    assert problem.where == "steps[0] (шаг).dependencies[0]"


def big_plan(n: int) -> dict:
    steps = []
    for i in range(n):
        deps = [f"s{i - 1}"] if i else []
        if i >= 10:
            deps.append(f"s{i - 10}")
        raw = step(f"s{i}", deps, files=[f"src/m{i}/**", f"tests/test_{i}.py"])
        raw["intendedModification"]["invariants"] = [
            f"All unit tests in tests/test_{i}.py must exit code 0",
            f"Zero breaking changes to fn{i} signature",
            {"kind": "command_succeeds", "command": "make check"},
        ]
        raw["rollbackPlan"] = {"gitCheckout": "HEAD~1", "discardPaths": [f"src/m{i}/a.py"]}
        steps.append(raw)
    return {"goal": "big", "steps": steps}


def test_a_thousand_step_plan_validates_in_order() -> None:
    """Its speed is measured by benchmarks/bench_plan_validation.py, not by a timed test."""
    data = big_plan(1000)
    check = validate_plan(data)
    assert check.plan is not None and len(check.plan.order) == 1000
    assert check.plan.order[0] == "s0" and check.plan.order[-1] == "s999"
