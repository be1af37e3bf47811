import pytest

from contracts.compiler import (
    COMPILABLE_FORMS,
    InvariantCompileError,
    compile_invariant,
    forms_text,
    matching_rule,
)
from contracts.invariants import INVARIANT_KINDS, TextAbsent
from contracts.phrasings import RULES, looks_like_file

PHRASINGS: list[tuple[str, dict]] = [
    # tests in X
    (
        "All unit tests in auth.test.ts must exit code 0",
        {"kind": "tests_pass", "paths": ["auth.test.ts"]},
    ),
    ("tests in tests/unit pass", {"kind": "tests_pass", "paths": ["tests/unit"]}),
    (
        "All tests in src/__tests__ should exit with code 0",
        {"kind": "tests_pass", "paths": ["src/__tests__"]},
    ),
    (
        "the tests under `tests/my dir` must all pass.",
        {"kind": "tests_pass", "paths": ["tests/my dir"]},
    ),
    (
        "tests in tests/a.py, tests/b.py and 'tests/c d.py' pass",
        {"kind": "tests_pass", "paths": ["tests/a.py", "tests/b.py", "tests/c d.py"]},
    ),
    (
        "Unit tests in the file calc_test.py exit 0",
        {"kind": "tests_pass", "paths": ["calc_test.py"]},
    ),
    # X's tests
    ("auth.test.ts's tests must pass", {"kind": "tests_pass", "paths": ["auth.test.ts"]}),
    ("`tests/api`'s unit tests pass", {"kind": "tests_pass", "paths": ["tests/api"]}),
    ("calc’s tests pass", {"kind": "tests_pass", "paths": ["calc"]}),
    # all tests
    ("all tests pass", {"kind": "tests_pass"}),
    ("All tests must pass", {"kind": "tests_pass"}),
    ("All existing tests must still pass", {"kind": "tests_pass"}),
    ("the full test suite passes", {"kind": "tests_pass"}),
    ("Tests are green", {"kind": "tests_pass"}),
    ("all unit tests must exit with code 0", {"kind": "tests_pass"}),
    # tests with a command
    (
        "tests pass with `pytest -q tests/unit`",
        {"kind": "tests_pass", "command": "pytest -q tests/unit"},
    ),
    ("All tests must pass using 'npm test'", {"kind": "tests_pass", "command": "npm test"}),
    # one test
    (
        "test tests/test_calc.py::test_add must pass",
        {"kind": "tests_pass", "paths": ["tests/test_calc.py::test_add"]},
    ),
    ("the test `test_login` passes", {"kind": "tests_pass", "paths": ["test_login"]}),
    # commands
    (
        "`npx tsc --noEmit` must succeed",
        {"kind": "command_succeeds", "command": "npx tsc --noEmit"},
    ),
    ("`make lint` must exit 0", {"kind": "command_succeeds", "command": "make lint"}),
    ("'cargo check' exits with code 0", {"kind": "command_succeeds", "command": "cargo check"}),
    ("running `ruff check .` succeeds", {"kind": "command_succeeds", "command": "ruff check ."}),
    ('"go vet ./..." should not fail', {"kind": "command_succeeds", "command": "go vet ./..."}),
    ("`mypy src` returns exit code 0", {"kind": "command_succeeds", "command": "mypy src"}),
    # signatures, compatible: "breaking", "backward compatible", "don't break"
    (
        "Zero breaking changes to verifyCredential signature",
        {"kind": "signature_compatible", "symbol": "verifyCredential"},
    ),
    (
        "No breaking changes to `verifyCredential()`'s signature",
        {"kind": "signature_compatible", "symbol": "verifyCredential"},
    ),
    (
        "zero breaking changes to the signature of Auth.login in src/auth.ts",
        {"kind": "signature_compatible", "symbol": "Auth.login", "file": "src/auth.ts"},
    ),
    (
        "Zero breaking changes to verifyCredential signature in src/auth.ts",
        {"kind": "signature_compatible", "symbol": "verifyCredential", "file": "src/auth.ts"},
    ),
    (
        "no breaking changes to `verifyCredential`",
        {"kind": "signature_compatible", "symbol": "verifyCredential"},
    ),
    (
        "no breaking changes to the function parse_date in calendarlib/dates.py",
        {"kind": "signature_compatible", "symbol": "parse_date", "file": "calendarlib/dates.py"},
    ),
    (
        "natural_list stays backward compatible",
        {"kind": "signature_compatible", "symbol": "natural_list"},
    ),
    (
        "natural_list in src/humanize/lists.py must stay backwards-compatible",
        {"kind": "signature_compatible", "symbol": "natural_list", "file": "src/humanize/lists.py"},
    ),
    (
        "natural_list must remain backward compatible in src/humanize/lists.py",
        {"kind": "signature_compatible", "symbol": "natural_list", "file": "src/humanize/lists.py"},
    ),
    (
        "The signature of parse_date should stay compatible",
        {"kind": "signature_compatible", "symbol": "parse_date"},
    ),
    (
        "parse_date's signature remains backward compatible in calendarlib/dates.py",
        {"kind": "signature_compatible", "symbol": "parse_date", "file": "calendarlib/dates.py"},
    ),
    (
        "Store.get keeps backward compatibility",
        {"kind": "signature_compatible", "symbol": "Store.get"},
    ),
    (
        "Don't break callers of createPost in src/posts.js",
        {"kind": "signature_compatible", "symbol": "createPost", "file": "src/posts.js"},
    ),
    (
        "do not break the signature of verifyCredential",
        {"kind": "signature_compatible", "symbol": "verifyCredential"},
    ),
    (
        "must not break `createPost`'s callers",
        {"kind": "signature_compatible", "symbol": "createPost"},
    ),
    (
        "existing calls to load in pkg/io.py must keep working",
        {"kind": "signature_compatible", "symbol": "load", "file": "pkg/io.py"},
    ),
    # signatures, strict: "unchanged", "must not change", "keeps its signature"
    (
        "the signature of verifyCredential must not change",
        {"kind": "signature_unchanged", "symbol": "verifyCredential"},
    ),
    (
        "The signature of verifyCredential must not change in src/auth.ts",
        {"kind": "signature_unchanged", "symbol": "verifyCredential", "file": "src/auth.ts"},
    ),
    (
        "The signature of the function load in pkg/io.py should stay the same",
        {"kind": "signature_unchanged", "symbol": "load", "file": "pkg/io.py"},
    ),
    (
        "parse_config's signature is unchanged",
        {"kind": "signature_unchanged", "symbol": "parse_config"},
    ),
    (
        "parse_config's signature in app/config.py is unchanged",
        {"kind": "signature_unchanged", "symbol": "parse_config", "file": "app/config.py"},
    ),
    (
        "parse_config's signature stays the same in app/config.py",
        {"kind": "signature_unchanged", "symbol": "parse_config", "file": "app/config.py"},
    ),
    ("hash_token keeps its signature", {"kind": "signature_unchanged", "symbol": "hash_token"}),
    (
        "hash_token keeps its signature in src/auth.ts",
        {"kind": "signature_unchanged", "symbol": "hash_token", "file": "src/auth.ts"},
    ),
    (
        "hash_token in src/auth.ts must keep its signature",
        {"kind": "signature_unchanged", "symbol": "hash_token", "file": "src/auth.ts"},
    ),
    ("the signature of `add` doesn't change", {"kind": "signature_unchanged", "symbol": "add"}),
    (
        "No changes to the signature of Auth.login in src/auth.ts",
        {"kind": "signature_unchanged", "symbol": "Auth.login", "file": "src/auth.ts"},
    ),
    # public API (a file), strict
    (
        "src/auth.ts's public API is unchanged",
        {"kind": "public_api_unchanged", "file": "src/auth.ts"},
    ),
    ("calc.py’s public API is unchanged", {"kind": "public_api_unchanged", "file": "calc.py"}),
    (
        "The public API of `calc.py` must not change",
        {"kind": "public_api_unchanged", "file": "calc.py"},
    ),
    (
        "the exports of src/index.ts remain the same",
        {"kind": "public_api_unchanged", "file": "src/index.ts"},
    ),
    (
        "the signature of calc.py must not change",
        {"kind": "public_api_unchanged", "file": "calc.py"},
    ),
    (
        "no changes to the public API of lib/index.js",
        {"kind": "public_api_unchanged", "file": "lib/index.js"},
    ),
    (
        "The public API of the store module must not change in pkg/store.py",
        {"kind": "public_api_unchanged", "file": "pkg/store.py"},
    ),
    (
        "the public API in pkg/store.py is unchanged",
        {"kind": "public_api_unchanged", "file": "pkg/store.py"},
    ),
    (
        "the public API must not change in pkg/store.py",
        {"kind": "public_api_unchanged", "file": "pkg/store.py"},
    ),
    # public API (a file), compatible
    (
        "no breaking changes to the public API of lib/index.js",
        {"kind": "public_api_compatible", "file": "lib/index.js"},
    ),
    (
        "Zero breaking changes to src/auth.ts's public API",
        {"kind": "public_api_compatible", "file": "src/auth.ts"},
    ),
    (
        "no breaking changes to the public API in src/auth.ts",
        {"kind": "public_api_compatible", "file": "src/auth.ts"},
    ),
    (
        "no breaking changes to the public API of the auth module in src/auth.ts",
        {"kind": "public_api_compatible", "file": "src/auth.ts"},
    ),
    (
        "Zero breaking changes to src/auth.ts",
        {"kind": "public_api_compatible", "file": "src/auth.ts"},
    ),
    (
        "src/auth.ts stays backward compatible",
        {"kind": "public_api_compatible", "file": "src/auth.ts"},
    ),
    (
        "The public API of calc.py must remain backwards compatible",
        {"kind": "public_api_compatible", "file": "calc.py"},
    ),
    (
        "the public API stays compatible in calc.py",
        {"kind": "public_api_compatible", "file": "calc.py"},
    ),
    (
        "don't break the public API of lib/index.js",
        {"kind": "public_api_compatible", "file": "lib/index.js"},
    ),
    # text absent / present
    (
        "no print statements remain in src/calc.py",
        {"kind": "text_absent", "pattern": r"(?<![\w.$])print\s*\(", "paths": ["src/calc.py"]},
    ),
    (
        "No console.log calls remain in src/app.js and lib/util.js",
        {
            "kind": "text_absent",
            "pattern": r"(?<![\w.$])console\.log\s*\(",
            "paths": ["src/app.js", "lib/util.js"],
        },
    ),
    ("no print statements remain", {"kind": "text_absent", "pattern": r"(?<![\w.$])print\s*\("}),
    (
        "no `legacyToken` remains in src/auth.ts",
        {"kind": "text_absent", "pattern": "legacyToken", "paths": ["src/auth.ts"]},
    ),
    (
        "No TODO comments remain in src",
        {"kind": "text_absent", "pattern": r"\bTODO\b", "paths": ["src"]},
    ),
    (
        "src/auth.ts must not contain `md5(`",
        {"kind": "text_absent", "pattern": r"md5\(", "paths": ["src/auth.ts"]},
    ),
    (
        "config.py contains no 'password'",
        {"kind": "text_absent", "pattern": "password", "paths": ["config.py"]},
    ),
    (
        "`eval(` must not appear in src or lib",
        {"kind": "text_absent", "pattern": r"eval\(", "paths": ["src", "lib"]},
    ),
    (
        "src/auth.ts must contain `hashToken`",
        {"kind": "text_present", "pattern": "hashToken", "paths": ["src/auth.ts"]},
    ),
    (
        "calc.py still contains 'def add'",
        {"kind": "text_present", "pattern": "def add", "paths": ["calc.py"]},
    ),
    (
        "'class Token' must appear in src/models.py",
        {"kind": "text_present", "pattern": "class Token", "paths": ["src/models.py"]},
    ),
    (
        "no console.log calls remain in src/ or lib/",
        {
            "kind": "text_absent",
            "pattern": r"(?<![\w.$])console\.log\s*\(",
            "paths": ["src/**", "lib/**"],
        },
    ),
    # changed lines
    ("at most 40 lines change", {"kind": "max_changed_lines", "n": 40}),
    ("No more than 1,000 changed lines", {"kind": "max_changed_lines", "n": 1000}),
    ("Change at most 5 lines", {"kind": "max_changed_lines", "n": 5}),
    ("fewer than 10 lines are changed", {"kind": "max_changed_lines", "n": 9}),
    ("the diff is under 20 lines", {"kind": "max_changed_lines", "n": 19}),
]


@pytest.mark.parametrize(("text", "expected"), PHRASINGS, ids=[p[0] for p in PHRASINGS])
def test_phrasing_compiles_to_kind(text: str, expected: dict) -> None:
    invariant = compile_invariant(text)
    assert invariant.model_dump(exclude_none=True) == expected
    assert invariant.source == text


@pytest.mark.parametrize(
    ("rule", "example"), [(r.name, e) for r in RULES for e in r.examples], ids=lambda v: str(v)
)
def test_every_rule_example_compiles_through_its_own_rule(rule: str, example: str) -> None:
    assert matching_rule(example) == rule
    compile_invariant(example)


def test_every_rule_lists_forms_and_examples() -> None:
    for rule in RULES:
        assert rule.forms and rule.examples, rule.name


def test_at_least_a_dozen_forms_and_the_seed_forms_are_listed() -> None:
    assert len(COMPILABLE_FORMS) >= 12
    assert "All unit tests in X must exit code 0" in COMPILABLE_FORMS
    assert "Zero breaking changes to F signature" in " ".join(COMPILABLE_FORMS)


def test_pattern_of_no_print_rule_matches_calls_not_lookalikes() -> None:
    invariant = compile_invariant("no print statements remain in calc.py")
    assert isinstance(invariant, TextAbsent)
    import re

    pattern = re.compile(invariant.pattern)
    assert pattern.search("    print('x')") and pattern.search("print (x)")
    assert not pattern.search("blueprint(x)") and not pattern.search("self.print(x)")
    assert not pattern.search("# we print nothing")


@pytest.mark.parametrize(
    "text",
    [
        "make it nice",
        "the build must succeed",  # a command must be quoted
        "tests may fail",
        "performance does not regress",
        "AuthService's public API is unchanged",  # not a file: says what would work instead
        "fewer than 0 lines change",
        "parse_date is compatible with Python 3.8",  # not about callers
        "don't break callers",  # of what?
        "it stays backward compatible",
    ],
)
def test_uncompilable_strings_are_errors_that_list_the_forms(text: str) -> None:
    with pytest.raises(InvariantCompileError) as caught:
        compile_invariant(text)
    assert caught.value.unmatched_text
    message = str(caught.value)
    for form in COMPILABLE_FORMS:
        assert form in message


def test_public_api_of_a_symbol_says_what_to_write_instead() -> None:
    with pytest.raises(InvariantCompileError) as caught:
        compile_invariant("AuthService's public API is unchanged")
    assert "The signature of AuthService must not change" in caught.value.reasons[0][1]
    with pytest.raises(InvariantCompileError) as caught:
        compile_invariant("no breaking changes to AuthService's public API")
    assert "AuthService stays backward compatible" in caught.value.reasons[0][1]


def test_every_signature_and_api_form_says_whether_it_is_strict_or_compatible() -> None:
    api_rules = {r.name for r in RULES if "signature" in r.name or "api" in r.name}
    api_rules |= {"breaking_any"}
    for rule in RULES:
        if rule.name not in api_rules:
            continue
        for form in rule.forms:
            assert ("strict" in form) != ("compatible" in form), form
    strict = {compile_invariant(e).kind for r in RULES if r.name in api_rules for e in r.examples}
    assert strict == {
        "signature_unchanged",
        "signature_compatible",
        "public_api_unchanged",
        "public_api_compatible",
    }


@pytest.mark.parametrize("text", ["", "   ", "."])
def test_empty_strings_are_errors_not_advisories(text: str) -> None:
    with pytest.raises(InvariantCompileError) as caught:
        compile_invariant(text)
    assert not caught.value.unmatched_text


def test_forms_text_names_every_object_kind_with_its_fields() -> None:
    text = forms_text()
    for kind in INVARIANT_KINDS:
        assert kind in text
    assert "signature_unchanged {symbol, file?}" in text


OBJECTS = [
    {"kind": "tests_pass"},
    {"kind": "tests_pass", "paths": ["tests/unit"], "command": "pytest -q"},
    {"kind": "command_succeeds", "command": "npx tsc --noEmit"},
    {"kind": "signature_unchanged", "symbol": "f", "file": "a.py"},
    {"kind": "signature_compatible", "symbol": "f", "file": "a.py"},
    {"kind": "signature_compatible", "symbol": "Store"},
    {"kind": "public_api_unchanged", "file": "a.py"},
    {"kind": "public_api_compatible", "file": "a.py"},
    {"kind": "text_absent", "pattern": r"print\(", "paths": ["a.py"]},
    {"kind": "text_present", "pattern": "def add"},
    {"kind": "max_changed_lines", "n": 0},
    {"kind": "tests_fail_before", "paths": ["tests/test_a.py::test_bug"]},
    {"kind": "tests_removed", "paths": ["tests/test_old.py"]},
]


@pytest.mark.parametrize("item", OBJECTS, ids=lambda o: o["kind"])
def test_invariant_objects_compile_to_their_kind(item: dict) -> None:
    invariant = compile_invariant(item)
    assert invariant.model_dump(exclude_none=True) == item


def test_every_plan_kind_has_an_object_case() -> None:
    assert {o["kind"] for o in OBJECTS} == set(INVARIANT_KINDS)


@pytest.mark.parametrize(
    ("item", "loc", "needle"),
    [
        ({"kind": "tests_passing"}, ("kind",), "did you mean 'tests_pass'"),
        ({"kind": "bogus"}, ("kind",), "known kinds: tests_pass, command_succeeds"),
        ({"kind": 3}, ("kind",), "unknown invariant kind 3"),
        ({"command": "make"}, ("kind",), "missing"),
        ({"kind": "files_within_scope"}, ("kind",), "implicitly"),
        ({"kind": "advisory", "text": "x"}, ("kind",), "unknown invariant kind 'advisory'"),
        ({"kind": "command_succeeds"}, ("command",), "missing (required)"),
        ({"kind": "command_succeeds", "command": ""}, ("command",), "must not be empty"),
        ({"kind": "command_succeeds", "command": "x", "cmd": "y"}, ("cmd",), "unknown field"),
        ({"kind": "max_changed_lines", "n": -1}, ("n",), ">= 0"),
        ({"kind": "max_changed_lines", "n": "many"}, ("n",), "expected an integer"),
        ({"kind": "text_absent", "pattern": "print("}, ("pattern",), r"'print\\('"),
        ({"kind": "tests_pass", "paths": "tests"}, ("paths",), "expected an array"),
    ],
)
def test_malformed_objects_name_the_field(item: dict, loc: tuple, needle: str) -> None:
    with pytest.raises(InvariantCompileError) as caught:
        compile_invariant(item)
    assert not caught.value.unmatched_text
    locs = [r[0] for r in caught.value.reasons]
    assert loc in locs
    assert needle in str(caught.value)


def test_non_string_non_object_is_an_error() -> None:
    with pytest.raises(InvariantCompileError):
        compile_invariant(5)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("name", "is_file"),
    [
        ("src/auth.ts", True),
        ("calc.py", True),
        ("index.TSX", True),
        ("verifyCredential", False),
        ("Auth.login", False),
        ("os.path", False),
        (".py", False),
    ],
)
def test_files_are_told_apart_from_symbols(name: str, is_file: bool) -> None:
    assert looks_like_file(name) is is_file


@pytest.mark.parametrize(
    "text",
    [
        "x must contain ``",
        "Zero breaking changes to  signature",
        "All unit tests in  must exit code 0",
        "the signature of  must not change",
    ],
)
def test_blank_names_are_errors_not_wrong_checks(text: str) -> None:
    with pytest.raises(InvariantCompileError):
        compile_invariant(text)


def test_a_directory_named_test_still_compiles() -> None:
    assert compile_invariant("All unit tests in test must exit code 0").paths == ["test"]


@pytest.mark.parametrize(
    "name",
    [
        "strict mode rejects character references to non-Char code points",
        "calc › adds two numbers",
        "Format#date() omits the year",
    ],
)
def test_a_tests_title_in_the_runners_own_words_is_a_test(name: str) -> None:
    """sax-js's live trial: a plan naming node-tap subtests by their titles was refused as
    "does not name a test" although the runner prints them and verification selects them."""
    invariant = compile_invariant(f"`{name}` fails before this step and passes after")
    assert invariant.kind == "tests_fail_before" and invariant.paths == [name]


@pytest.mark.parametrize("code", ["parse()", "x = 1", "Calc.add"])
def test_code_is_still_not_a_test(code: str) -> None:
    with pytest.raises(InvariantCompileError, match="does not name a test"):
        compile_invariant(f"`{code}` fails before this step and passes after")
