"""Which tests an invariant names by id (those must pass even if they failed at the base)."""

from __future__ import annotations

from calcrepo import CALC
from gitrepo import make_repo

from coder.verdict.evidence import step_head
from coder.verdict.judge import judge, step_policy
from coder.verdict.run import run_tests
from coder.verdict.scoping import command_for_paths, named_in_command
from sandbox.confine import make_sandbox
from summarizers.runners.model import covered


def test_paths_that_are_test_ids_name_tests_files_and_directories_do_not(tmp_path) -> None:
    repo = make_repo(tmp_path / "r", {"tests/test_a.py": "", "tests/test_b.py": ""})
    paths = ["tests", "tests/test_a.py", "tests/test_b.py::TestX"]
    selected = command_for_paths("python -m pytest", paths, repo)
    named = [t for t in selected.targets if t.kind == "test"]
    assert [t.name for t in named] == ["tests/test_b.py::TestX"]
    assert covered("tests/test_b.py::TestX::test_one", named)
    assert covered("tests/test_b.py::TestX", named)
    assert not covered("tests/test_b.py::TestXY::test_one", named)
    assert not covered("tests/test_a.py::test_one", named)
    assert covered("tests/test_a.py::test_one", selected.targets)


def test_an_invariants_own_command_names_the_ids_it_selects() -> None:
    named = named_in_command("python -m pytest -q 'tests/test_a.py::test_p[1-2]' tests/test_c.py")
    assert [t.name for t in named] == ["tests/test_a.py::test_p[1-2]"]
    assert covered("tests/test_a.py::test_p[1-2]", named)
    one = named_in_command("pytest tests/test_b.py::test_y -k fast")
    assert [t.name for t in one] == ["tests/test_b.py::test_y"]
    assert covered("tests/test_b.py::test_y[slow]", one)
    dotted = named_in_command("python -m unittest -v tests.test_b.TestY.test_z")
    assert covered("tests.test_b.TestY.test_z", dotted)
    js = named_in_command("npx jest test/a.test.js -t 'adds one'")
    assert js == ()


def test_a_passing_run_says_how_many_tests_it_saw_pass(calc_repo) -> None:
    (calc_repo / "calc.py").write_text(CALC.replace("a - b", "a + b"))
    run = run_tests(make_sandbox("auto", calc_repo), calc_repo, "python -m pytest -q", 60)
    verdict = judge(run.facts(), None, step_policy())
    assert (
        verdict.passed and step_head(verdict) == "`python -m pytest -q` exited 0 (2 tests passed)"
    )


def test_outcomes_come_from_the_junit_report_not_a_line_per_test(calc_repo) -> None:
    """No `-rA`: the log has no line per passing test, yet every test is named, from the
    JUnit XML pytest wrote in the sandbox's own temporary directory."""
    for mode in ("bwrap", "none"):
        run = run_tests(make_sandbox(mode, calc_repo), calc_repo, "python -m pytest -q", 60)
        assert "PASSED" not in run.result.output
        assert "pytest-junit.xml" in run.result.reports
        assert run.outcomes == {
            "tests/test_calc.py::test_add": "failed",
            "tests/test_calc.py::test_scale": "passed",
        }
        assert run.log.all_listed


def test_a_test_named_without_its_file_covers_its_printed_id_where_the_whole_command_runs(
    tmp_path,
) -> None:
    """sax-js's trial: node-tap cannot select a test by its name alone, so the whole `npm test`
    ran; the run printed `test/refs.js > strict mode rejects refs`, and a bare
    `strict mode rejects refs` must stand for it (and its subtests), not for nothing."""
    (tmp_path / "test").mkdir()
    (tmp_path / "test" / "refs.js").write_text("require('tap').test('x', t => t.end())\n")
    (tmp_path / "package.json").write_text('{"scripts": {"test": "tap"}}\n')
    run = command_for_paths("npm test", ["strict mode rejects refs"], tmp_path)
    assert run.command == "npm test" and "whole test command" in run.note
    [target] = run.targets
    assert target.covers("test/refs.js > strict mode rejects refs")
    assert target.covers("test/refs.js > strict mode rejects refs > x1")
    assert not target.covers("test/refs.js > lax mode keeps refs")
    assert not target.covers("test/refs.js > not strict mode rejects refs")
