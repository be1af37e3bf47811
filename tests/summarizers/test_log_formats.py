"""Each format parser on real captured logs: format detected, ids, messages, counts kept."""

from __future__ import annotations

import pytest
from logdata import read_log, summarized

from summarizers.logformats.registry import UnknownLogFormat
from summarizers.logs import compact_command_text, compact_log, known_formats
from summarizers.tokens import estimate_tokens

PYTEST_FAILED = [
    "tests/test_calc.py::test_add",
    "tests/test_calc.py::test_deep",
    "tests/test_calc.py::test_param[1-1-2]",
    "tests/test_calc.py::test_param[0-5-5]",
    "tests/test_calc.py::TestDicts::test_dict",
    "tests/test_calc.py::test_recursion",
    "tests/test_calc.py::test_print",
]
PYTEST_ERRORS = [
    "tests/test_broken_import.py",
    "tests/test_calc.py::test_fixture",
    "tests/test_calc.py::test_teardown",
    "tests/test_calc.py::test_missing_fixture",
]
PYTEST_LOGS = [
    "pytest_tb_auto.log",
    "pytest_tb_long.log",
    "pytest_tb_short.log",
    "pytest_tb_line.log",
    "pytest_tb_native.log",
    "pytest_tb_no.log",
    "pytest_q.log",
    "pytest_v.log",
    "pytest_rA.log",
    "pytest_q_rA_short.log",
]


@pytest.mark.parametrize("name", PYTEST_LOGS)
def test_pytest_every_style_keeps_counts_ids_and_messages(name: str) -> None:
    result = summarized(read_log(name), 2000)
    assert result.format == "pytest"
    assert sorted(result.failing) == sorted(PYTEST_FAILED + PYTEST_ERRORS)
    first = result.text.splitlines()[0]
    assert "7 failed, 4 passed, 1 skipped, 1 xfailed, 1 warning, 4 errors" in first
    for ident in PYTEST_FAILED:
        assert f"FAILED {ident}" in result.text
    for ident in PYTEST_ERRORS:
        assert f"ERROR {ident}" in result.text
    assert "ValueError: bottom reached with n=0" in result.text
    assert "RuntimeError: fixture exploded" in result.text
    assert "assert -1 == 5" in result.text
    assert result.tokens <= 2000 and result.tokens == estimate_tokens(result.text)


@pytest.mark.parametrize("name", [n for n in PYTEST_LOGS if n != "pytest_tb_no.log"])
def test_pytest_messages_come_whole_from_the_traceback_not_the_cut_summary(name: str) -> None:
    text = compact_log(read_log(name), budget=2000).text
    assert "AssertionError: assert {'a': 1, 'b': [1, 2, 3]} == {'a': 1, 'b': [1, 2, 4]}" in text
    assert "RecursionError: maximum recursion depth exceeded" in text
    assert "ModuleNotFoundError: No module named 'pkg.nonexistent_module'" in text


@pytest.mark.parametrize(
    "name", ["pytest_tb_auto.log", "pytest_tb_long.log", "pytest_tb_short.log"]
)
def test_pytest_keeps_compared_values_and_repo_locations(name: str) -> None:
    text = compact_log(read_log(name), budget=2000).text
    assert "where -1 = add(2, 3)" in text
    assert "pkg/calc.py:7" in text  # where the ValueError was raised, inside the repository
    assert "site-packages" not in text.split("\n--- ")[0]  # the summary names repo files only


def test_pytest_drops_passing_noise_and_says_so() -> None:
    result = summarized(read_log("pytest_rA.log"), 2000)
    assert "PASSED tests/test_calc.py::test_add_ok" not in result.text
    assert "warnings summary" not in result.text
    assert any("warnings-summary" in item for item in result.omitted)
    assert result.text.rstrip().endswith("]") and "[left out:" in result.text


def test_pytest_long_repeated_frames_are_collapsed_and_counted() -> None:
    raw = read_log("pytest_tb_long.log")
    assert raw.count("return recurse(n + 1)") > 50
    result = compact_log(raw, budget=4000)
    assert result.text.count("return recurse(n + 1)") <= 3
    assert any("repeated" in item for item in result.omitted)
    assert "similar frames dropped]" in result.text


def test_pytest_collection_interrupted_keeps_the_interruption() -> None:
    result = compact_log(read_log("pytest_collect_interrupted.log"), budget=300)
    assert result.failing == ["tests/test_broken_import.py"]
    assert "Interrupted: 1 error during collection" in result.text
    assert "No module named 'pkg.nonexistent_module'" in result.text


def test_passing_pytest_run_keeps_its_result_line() -> None:
    result = compact_log(read_log("pytest_passing.log"), budget=50)
    assert result.failing == []
    assert "2 passed in" in result.text


@pytest.mark.parametrize("name", ["unittest_plain.log", "unittest_v.log"])
def test_unittest(name: str) -> None:
    result = summarized(read_log(name), 1000)
    assert result.format == "unittest"
    assert result.failing == [
        "test_mod.TestSetup.setUpClass",
        "test_mod.TestThings.test_error",
        "test_mod.TestThings.test_doc",
        "test_mod.TestThings.test_fail",
        "test_mod.TestThings.test_sub (i=2)",
    ]
    assert result.text.startswith("Ran 7 tests in")
    assert "FAILED (failures=3, errors=2, skipped=1, expected failures=1)" in result.text
    assert "KeyError: 'missing'" in result.text
    assert "AssertionError: Lists differ: [1, 2, 3] != [1, 2, 4]" in result.text
    assert "RuntimeError: class setup broke" in result.text


NODE_FAILING = [
    "math > adds",
    "math > nested > deep equal",
    "throws",
    "parent > child bad",
    "other fails",
]


@pytest.mark.parametrize(
    ("name", "fmt"), [("node_tap.log", "node-tap"), ("node_spec.log", "node-spec")]
)
def test_node_test_runner(name: str, fmt: str) -> None:
    result = summarized(read_log(name), 1500)
    assert result.format == fmt
    assert result.failing == NODE_FAILING  # suites failing only through a child are not repeated
    assert "pass 3, fail 6" in result.text.splitlines()[0]
    assert "Expected values to be strictly equal: 0 !== 2" in result.text
    assert "TypeError: boom happened" in result.text
    assert "AssertionError: child failed" in result.text
    assert "node:internal" not in result.text


@pytest.mark.parametrize("name", ["tsc_plain.log", "tsc_pretty.log"])
def test_tsc(name: str) -> None:
    result = compact_log(read_log(name), budget=200)
    assert result.format == "tsc"
    assert result.failing == [
        "src/auth.ts:7:9 TS2322",
        "src/auth.ts:12:20 TS2741",
        "src/auth.ts:13:3 TS2304",
        "src/other.ts:2:7 TS2322",
        "src/other.ts:3:21 TS2554",
    ]
    assert "Cannot find name 'undefinedFunction'" in result.text
    if name == "tsc_pretty.log":
        assert result.text.startswith("Found 5 errors in 2 files.")
    else:  # 107 tokens: the log itself fits and is smaller than any summary of it
        assert result.text == read_log(name).rstrip("\n")


@pytest.mark.parametrize(
    ("name", "fmt", "first_id"),
    [
        ("ruff_full.log", "ruff", "bad.py:1:8 F401"),
        ("ruff_concise.log", "ruff", "bad.py:1:8 F401"),
        ("flake8.log", "flake8", "bad.py:1:1 F401"),
        ("mypy.log", "mypy", "bad.py:7 return-value"),
    ],
)
def test_linters(name: str, fmt: str, first_id: str) -> None:
    result = compact_log(read_log(name), budget=60)
    assert result.format == fmt
    assert result.failing[0] == first_id
    assert result.tokens <= 60
    assert first_id.split()[0].rsplit(":", 1)[0] in result.text


def test_ruff_full_output_keeps_the_code_frame_when_it_fits() -> None:
    text = compact_log(read_log("ruff_full.log"), budget=2000).text
    assert "11 |     return undefined_name" in text


def test_python_traceback_names_the_final_exception_and_keeps_the_cause() -> None:
    result = compact_log(read_log("python_traceback.log"), budget=400, exit_code=1)
    assert result.format == "python-traceback"
    assert "RuntimeError: config is not JSON" in result.text
    assert "JSONDecodeError" in result.text
    assert "exit code 1" in result.text


def test_generic_fallback_keeps_error_lines_and_exit_code() -> None:
    raw = "building\n" * 400 + read_log("generic_compileall.log") + "done\n" * 400
    result = compact_log(raw, budget=100, exit_code=1)
    assert result.format == "generic"
    assert "SyntaxError: invalid syntax" in result.text
    assert "exit code 1" in result.text
    assert result.tokens <= 100


def test_unknown_text_without_error_words_still_says_something() -> None:
    raw = "".join(f"step {i} done\n" for i in range(2000))
    result = compact_log(raw, budget=40, exit_code=3)
    assert result.text and result.tokens <= 40
    assert "exit code 3" in result.text
    assert "step 1999 done" in result.text  # the tail, where runners put their verdict


def test_forcing_an_unknown_format_lists_the_known_ones() -> None:
    with pytest.raises(UnknownLogFormat) as info:
        compact_log("x", format="jest")
    assert "pytest" in str(info.value) and "generic" in str(info.value)
    assert "pytest" in known_formats()


def test_compact_command_text_prints_the_log_and_a_size_footer() -> None:
    out = compact_command_text(read_log("pytest_tb_long.log"), 500)
    body, footer = out.rsplit("\n", 1)
    assert estimate_tokens(body) <= 500
    assert footer.startswith("[coder compact: pytest log,")
    assert "tokens raw ->" in footer and "budget 500" in footer


def test_small_logs_are_never_made_bigger() -> None:
    raw = read_log("tsc_plain.log")
    result = compact_log(raw, budget=2000)
    assert result.tokens <= result.raw_tokens


def test_ansi_colours_and_carriage_returns_are_terminal_noise() -> None:
    raw = "\x1b[31mFAILED\x1b[0m tests/t.py::test_x - assert 1 == 2\r\n" + "1 failed in 0.1s\r\n"
    result = compact_log(raw, budget=100)
    assert "\x1b" not in result.text and "\r" not in result.text
    assert "tests/t.py::test_x" in result.failing
