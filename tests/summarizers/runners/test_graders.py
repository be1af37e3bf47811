"""Which runner runs a SWE-bench instance's tests itself: the one whose own id spelling every id
has; an instance named in any other spelling runs through the project's own test command."""

from __future__ import annotations

from coder.bench.swebench import Instance
from summarizers.runners.table import grader_for


def _instance(ids: list[str]) -> Instance:
    return Instance(
        instance_id="o__r-1",
        repo="o/r",
        base_commit="0" * 40,
        problem_statement="x",
        patch="",
        test_patch="",
        FAIL_TO_PASS=ids,
    )


def test_node_ids_are_graded_by_the_python_runner():
    grader = grader_for(["tests/test_a.py::test_x", "tests/test_a.py::C::test_y[1]"])
    assert grader is not None and grader.language == "python"
    command = grader.graded_command(
        ["tests/test_a.py::test_x", "tests/test_b.py::t"], ["tests/test_a.py", "a.js"], "$R"
    )
    assert command.endswith(" tests/test_a.py tests/test_b.py")
    assert f'"$R/{grader.report}"' in command
    assert _instance(["tests/test_a.py::test_x"]).language == "python"


def test_any_other_spelling_runs_through_the_project_command():
    ids = ["tests/test_a.py::test_x", "test/a.test.js > calc > adds"]
    assert grader_for(ids) is None
    assert _instance(ids).language == "javascript"
