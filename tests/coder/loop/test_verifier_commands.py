from coder.loop.verifier import narrow_test_command


def test_paths_replace_a_trailing_directory_argument(tmp_path):
    (tmp_path / "test").mkdir()
    assert (
        narrow_test_command("node --test test/", ["test/a.test.js"], tmp_path)
        == "node --test test/a.test.js"
    )


def test_paths_extend_a_command_without_path_arguments(tmp_path):
    assert narrow_test_command("python -m pytest -q", ["tests/t.py::test_x"], tmp_path) == (
        "python -m pytest -q tests/t.py::test_x"
    )


def test_npm_scripts_get_paths_after_double_dash(tmp_path):
    assert narrow_test_command("npm test --silent", ["test/a.test.js"], tmp_path) == (
        "npm test --silent -- test/a.test.js"
    )


def test_paths_are_quoted(tmp_path):
    assert narrow_test_command("pytest", ["tests/a b.py"], tmp_path) == "pytest 'tests/a b.py'"


def test_a_glob_is_replaced_and_a_directory_keeps_its_pattern(tmp_path):
    (tmp_path / "test" / "unit").mkdir(parents=True)
    (tmp_path / "test" / "unit" / "a.js").write_text("")
    command = "node_modules/.bin/tape 'test/**/*.js'"
    assert narrow_test_command(command, ["test/unit"], tmp_path) == (
        "node_modules/.bin/tape 'test/unit/**/*.js'"
    )
    assert narrow_test_command(command, ["test/unit/a.js"], tmp_path) == (
        "node_modules/.bin/tape test/unit/a.js"
    )
    assert narrow_test_command("mocha 'spec/*.spec.js' --exit", ["test"], tmp_path) == (
        "mocha 'spec/*.spec.js' --exit test"
    )
