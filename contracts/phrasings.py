"""The phrasings the invariant compiler understands: one rule per family, as data.

Each rule is a regular expression over the whole (tidied) string plus a pure builder, with the
forms it shows planners and examples that must compile through it. `COMPILABLE_FORMS` is built
from this table so the list a rejection shows can never drift from what actually compiles.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from contracts.invariants import (
    CommandSucceeds,
    Invariant,
    MaxChangedLines,
    PublicApiUnchanged,
    SignatureUnchanged,
    TestsPass,
    TextAbsent,
    TextPresent,
)

_Q = r"`[^`]+`|'[^']+'|\"[^\"]+\"|“[^”]+”|‘[^’]+’"
_BARE = r"[^\s`'\"‘’“”,]+"
_NAME = rf"(?:{_Q}|{_BARE})"
_NAMES = rf"{_NAME}(?:\s*,\s*{_NAME})*(?:\s*,?\s+(?:and|or|&)\s+{_NAME})?"
_POSS = r"(?:'s|’s|'|’)"
_KIND = r"(?:(?:the\s+)?(?:function|method|class|symbol)\s+)?"
_MODAL = (
    r"(?:(?:must|should|shall|will|has\s+to|have\s+to|needs?\s+to)\s+)?"
    r"(?:(?:all|still|always)\s+)*"
)
_EXIT0 = r"(?:exit|return)s?\s+(?:with\s+)?(?:(?:an?\s+)?(?:exit\s+)?(?:code|status)\s+)?(?:0|zero)"
_PASSES = rf"(?:pass(?:es)?|succeeds?|(?:are|is|be)\s+green|{_EXIT0})"
_NOT = r"(?:\s+not|n[’']t)"
_UNCHANGED = (
    rf"(?:(?:must|should|shall|will|may|can|does|do){_NOT}\s+change|never\s+changes"
    r"|(?:(?:is|are|stays?|remains?)|(?:must|should|will)\s+(?:be|stay|remain))\s+"
    r"(?:unchanged|the\s+same|preserved|intact))"
)
_REMAIN = r"(?:(?:may|can|must|should)\s+)?(?:remains?|(?:are|is|be)\s+left|left|exists?|appears?)"
_IN_PATHS = rf"(?:\s+(?:in|under|within)\s+(?:the\s+)?(?P<paths>{_NAMES}))?"
_BOUND = (
    r"(?P<bound>at\s+most|no\s+more\s+than|not\s+more\s+than|up\s+to"
    r"|fewer\s+than|less\s+than|under)"
)
_NUM = r"(?P<n>\d{1,3}(?:,\d{3})+|\d+)"
_API = r"(?:public\s+(?:api|interface)|exports|exported\s+(?:api|names|symbols))"

SOURCE_EXTENSIONS = frozenset(
    "py pyi js jsx mjs cjs ts tsx mts cts go rs java kt kts rb php cs c h cc cpp hpp hh swift "
    "scala lua dart ex exs erl hs ml clj sh vue svelte json yaml yml toml".split()
)


class RuleMismatch(Exception):
    """A rule recognised the phrasing but not its argument; the message says what would work."""


Builder = Callable[[Mapping[str, str | None]], Invariant]


@dataclass(frozen=True)
class Rule:
    name: str
    forms: tuple[str, ...]
    """How the form reads in the list shown to planners."""
    patterns: tuple[re.Pattern[str], ...]
    build: Builder
    examples: tuple[str, ...]
    """Strings that must compile through this rule (tested)."""


def _rule(name: str, forms: tuple[str, ...], patterns: tuple[str, ...], build: Builder,
          examples: tuple[str, ...]) -> Rule:  # fmt: skip
    compiled = tuple(re.compile(rf"^{p}$", re.IGNORECASE | re.DOTALL) for p in patterns)
    return Rule(name, forms, compiled, build, examples)


def _unquote(name: str) -> str:
    if len(name) >= 2 and (name[0], name[-1]) in {
        ("`", "`"), ("'", "'"), ('"', '"'), ("“", "”"), ("‘", "’")
    }:  # fmt: skip
        return name[1:-1].strip()
    return name


def _names(text: str | None) -> list[str] | None:
    if not text:
        return None
    names = [m.group(0) for m in re.finditer(_NAME, text)]
    return [_unquote(n) for n in names if n.lower() not in ("and", "or", "&")]


def _symbol(name: str) -> str:
    return re.sub(r"\(.*\)$", "", _unquote(name)).strip()


def looks_like_file(name: str) -> bool:
    """A path or a file name with a known source extension, as opposed to a symbol."""
    if "/" in name:
        return True
    stem, dot, extension = name.rpartition(".")
    return bool(stem and dot) and extension.lower() in SOURCE_EXTENSIONS


_REGEX_SPECIAL = re.compile(r"[.^$*+?{}\[\]\\|()]")


def _literal(text: str, *, words: bool = False) -> str:
    """A regular expression matching `text` literally, escaping only what must be: shown to a
    model, `--max-cost` stays `--max-cost` (re.escape would write `\\-\\-max\\-cost`)."""
    pattern = _REGEX_SPECIAL.sub(lambda m: "\\" + m.group(0), text)
    if words and re.match(r"\w", text):
        pattern = r"\b" + pattern
    if words and re.search(r"\w$", text):
        pattern += r"\b"
    return pattern


def _tests(g: Mapping[str, str | None]) -> Invariant:
    command = g.get("cmd")
    return TestsPass(paths=_names(g.get("paths")), command=_unquote(command) if command else None)


def _command(g: Mapping[str, str | None]) -> Invariant:
    return CommandSucceeds(command=_unquote(g["cmd"] or ""))


def _signature(g: Mapping[str, str | None]) -> Invariant:
    name = _symbol(g.get("a") or g.get("b") or "")
    file = g.get("file")
    file = _unquote(file) if file else None
    if looks_like_file(name):
        return PublicApiUnchanged(file=name)
    return SignatureUnchanged(symbol=name, file=file)


def _public_api(g: Mapping[str, str | None]) -> Invariant:
    name = _unquote(next(v for v in g.values() if v))
    if not looks_like_file(name):
        raise RuleMismatch(
            f"a public API is checked per file and {name!r} does not look like one; name the "
            f"file (e.g. 'src/auth.ts's public API is unchanged'), or for a function or class "
            f"write 'The signature of {name} must not change'"
        )
    return PublicApiUnchanged(file=name)


def _search_paths(text: str | None) -> list[str] | None:
    """Where to search; `src/` is a directory, said exactly as the glob `src/**`."""
    names = _names(text)
    return [n + "**" if n.endswith("/") else n for n in names] if names else None


def _no_calls(g: Mapping[str, str | None]) -> Invariant:
    what = _symbol(g["what"] or "")
    pattern = rf"(?<![\w.$]){re.escape(what)}\s*\("
    return TextAbsent(pattern=pattern, paths=_search_paths(g.get("paths")))


def _text(present: bool, *, words: bool = False) -> Builder:
    def build(g: Mapping[str, str | None]) -> Invariant:
        pattern = _literal(_unquote((g["what"] or "").strip()), words=words)
        model = TextPresent if present else TextAbsent
        return model(pattern=pattern, paths=_search_paths(g.get("paths")))

    return build


def _max_lines(g: Mapping[str, str | None]) -> Invariant:
    n = int((g["n"] or "0").replace(",", ""))
    if (g["bound"] or "").lower().split()[0] in ("fewer", "less", "under"):
        n -= 1
    if n < 0:
        raise RuleMismatch("a step cannot change fewer than 0 lines; give a bound of 0 or more")
    return MaxChangedLines(n=n)


RULES: tuple[Rule, ...] = (
    _rule(
        "tests_in",
        ("All unit tests in X must exit code 0", "Tests in X pass"),
        (
            rf"(?:all\s+(?:(?:of\s+)?the\s+)?|the\s+)?(?:unit\s+|integration\s+|e2e\s+)?tests?"
            rf"\s+(?:in|under|inside|within|from|of|for)\s+(?:the\s+)?"
            rf"(?:(?:test\s+)?(?:file|files|directory|folder|module|suite)\s+)?"
            rf"(?P<paths>{_NAMES})\s+{_MODAL}{_PASSES}",
        ),
        _tests,
        (
            "All unit tests in auth.test.ts must exit code 0",
            "tests in tests/unit pass",
            "All tests in `tests/test calc.py` and tests/test_io.py must pass",
            "the tests under src/__tests__ should exit with code 0",
        ),
    ),
    _rule(
        "tests_of",
        ("X's tests must pass",),
        (
            rf"(?:all\s+(?:of\s+)?)?(?P<paths>{_NAME}){_POSS}\s+(?:unit\s+)?tests\s+{_MODAL}{_PASSES}",
        ),
        _tests,
        ("auth.test.ts's tests must pass", "`tests/api`'s unit tests pass"),
    ),
    _rule(
        "all_tests",
        ("All tests pass",),
        (
            r"(?:all\s+(?:(?:of\s+)?the\s+)?|the\s+)?(?:full\s+|whole\s+|entire\s+|existing\s+)?"
            rf"(?:unit\s+)?(?:tests?(?:\s+suite)?|test-suite|testsuite)\s+{_MODAL}{_PASSES}",
        ),
        _tests,
        ("all tests pass", "All existing tests must still pass", "the full test suite passes"),
    ),
    _rule(
        "tests_with",
        ("Tests pass with `CMD`",),
        (
            rf"(?:all\s+|the\s+)?(?:unit\s+)?tests?(?:\s+suite)?\s+{_MODAL}{_PASSES}\s+"
            rf"(?:with|using|via|under|when\s+run\s+(?:with|by|as))\s+(?P<cmd>{_Q})",
        ),
        _tests,
        ("tests pass with `pytest -q tests/unit`", "All tests must pass using 'npm test'"),
    ),
    _rule(
        "one_test",
        ("Test X must pass (X a test id such as tests/test_calc.py::test_add)",),
        (rf"(?:the\s+)?test\s+(?!suite\b)(?P<paths>{_NAME})\s+{_MODAL}{_PASSES}",),
        _tests,
        ("test tests/test_calc.py::test_add must pass", "the test `test_login` passes"),
    ),
    _rule(
        "command",
        ("`CMD` must succeed", "`CMD` must exit 0"),
        (
            rf"(?:running\s+|the\s+command\s+)?(?P<cmd>{_Q})\s+{_MODAL}"
            rf"(?:succeeds?|pass(?:es)?|{_EXIT0}|works?|runs?\s+(?:cleanly|successfully)"
            rf"|(?:is|be)\s+successful|(?:does|do|must|should|will){_NOT}\s+fail)",
        ),
        _command,
        (
            "`npx tsc --noEmit` must succeed",
            "`make lint` must exit 0",
            "running 'cargo check' exits with code 0",
            '"go vet ./..." should not fail',
        ),
    ),
    _rule(
        "breaking_signature",
        ("Zero breaking changes to F signature (add 'in FILE' to say where F is)",),
        (
            rf"(?:zero|no)\s+breaking\s+changes?\s+(?:to|in|of)\s+(?:the\s+)?"
            rf"(?:(?:signature|interface)\s+of\s+{_KIND}(?P<a>{_NAME})"
            rf"|{_KIND}(?P<b>{_NAME}){_POSS}?\s+(?:signature|interface))"
            rf"(?:\s+in\s+(?P<file>{_NAME}))?",
        ),
        _signature,
        (
            "Zero breaking changes to verifyCredential signature",
            "no breaking changes to the signature of `Auth.login` in src/auth.ts",
            "zero breaking changes to verifyCredential()'s signature",
        ),
    ),
    _rule(
        "signature",
        ("The signature of F must not change", "F's signature is unchanged"),
        (
            rf"(?:the\s+)?(?:signature|interface)\s+of\s+{_KIND}(?P<a>{_NAME})"
            rf"(?:\s+in\s+(?P<file>{_NAME}))?\s+{_UNCHANGED}",
            rf"{_KIND}(?P<b>{_NAME}){_POSS}\s+signature(?:\s+in\s+(?P<file>{_NAME}))?\s+{_UNCHANGED}",
            rf"{_KIND}(?P<a>{_NAME})\s+(?:must\s+|should\s+)?keeps?\s+its\s+(?:current\s+)?signature",
        ),
        _signature,
        (
            "the signature of verifyCredential must not change",
            "`parse_config`'s signature is unchanged",
            "The signature of the function load in pkg/io.py should stay the same",
            "hash_token keeps its signature",
        ),
    ),
    _rule(
        "public_api",
        ("FILE's public API is unchanged", "The public API of FILE must not change"),
        (
            rf"(?:the\s+)?{_API}\s+of\s+(?:the\s+file\s+)?(?P<a>{_NAME})\s+{_UNCHANGED}",
            rf"(?P<b>{_NAME}){_POSS}\s+{_API}\s+{_UNCHANGED}",
            rf"(?:zero|no)\s+(?:breaking\s+)?changes?\s+to\s+(?:the\s+)?{_API}\s+of\s+(?P<c>{_NAME})",
            rf"(?:zero|no)\s+(?:breaking\s+)?changes?\s+to\s+(?P<d>{_NAME}){_POSS}\s+{_API}",
        ),
        _public_api,
        (
            "src/auth.ts's public API is unchanged",
            "The public API of `calc.py` must not change",
            "no breaking changes to the public API of lib/index.js",
            "the exports of src/index.ts remain the same",
        ),
    ),
    _rule(
        "breaking_any",
        ("Zero breaking changes to FILE (or to F, a function or class)",),
        (
            rf"(?:zero|no)\s+breaking\s+changes?\s+(?:to|in)\s+(?:the\s+)?{_KIND}(?P<a>{_NAME})"
            rf"(?:\s+in\s+(?P<file>{_NAME}))?",
        ),
        _signature,
        ("Zero breaking changes to src/auth.ts", "no breaking changes to `verifyCredential`"),
    ),
    _rule(
        "no_calls",
        ("No print statements remain in X (any call: 'No console.log calls remain in X')",),
        (
            rf"no\s+(?:more\s+)?(?P<what>{_NAME})(?:\s*\(\))?\s+(?:statements?|calls?|invocations?)"
            rf"(?:\s+{_REMAIN})?{_IN_PATHS}",
        ),
        _no_calls,
        (
            "no print statements remain in src/calc.py",
            "No console.log calls remain in src/ and lib/app.js",
            "no `debug_dump()` calls",
        ),
    ),
    _rule(
        "no_text",
        ("No `TEXT` remains in X",),
        (
            rf"no\s+(?:occurrences?\s+of\s+|uses?\s+of\s+|mentions?\s+of\s+)?(?P<what>{_Q})"
            rf"(?:\s+{_REMAIN})?{_IN_PATHS}",
        ),
        _text(False),
        ("no `legacyToken` remains in src/auth.ts", "No occurrences of 'FIXME' in lib"),
    ),
    _rule(
        "no_marker",
        ("No TODO comments remain in X",),
        (rf"no\s+(?P<what>{_BARE})\s+(?:comments?|markers?)(?:\s+{_REMAIN})?{_IN_PATHS}",),
        _text(False, words=True),
        ("No TODO comments remain in src", "no XXX markers left"),
    ),
    _rule(
        "not_contain",
        ("X must not contain `TEXT`",),
        (
            rf"(?:the\s+file\s+)?(?P<paths>{_NAMES})\s+(?:must|should|shall|may|can|does|do|will)"
            rf"{_NOT}\s+(?:contain|include|mention)\s+(?:any\s+)?(?P<what>.+)",
            rf"(?:the\s+file\s+)?(?P<paths>{_NAMES})\s+(?:contains?|includes?)\s+no\s+(?P<what>.+)",
            rf"(?P<what>{_Q})\s+(?:must|should|may|can|does|do|will){_NOT}\s+"
            rf"(?:appear|be\s+present|exist|remain)\s+(?:anywhere\s+)?(?:in|within)\s+"
            rf"(?:the\s+)?(?P<paths>{_NAMES})",
        ),
        _text(False),
        (
            "src/auth.ts must not contain `md5(`",
            "config.py contains no 'password'",
            "`eval(` must not appear in src/ or lib/",
        ),
    ),
    _rule(
        "contain",
        ("X must contain `TEXT`", "`TEXT` must appear in X"),
        (
            rf"(?:the\s+file\s+)?(?P<paths>{_NAMES})\s+{_MODAL}(?:contains?|includes?)\s+(?P<what>.+)",
            rf"(?P<what>{_Q})\s+{_MODAL}(?:appears?|(?:is|be)\s+(?:present|defined)|exists?)"
            rf"\s+(?:in|within)\s+(?:the\s+)?(?P<paths>{_NAMES})",
        ),
        _text(True),
        ("src/auth.ts must contain `hashToken`", "'def add' must appear in calc.py"),
    ),
    _rule(
        "max_lines",
        ("At most N lines change", "Change at most N lines"),
        (
            rf"{_BOUND}\s+{_NUM}\s+(?:changed\s+)?lines?(?:\s+of\s+code)?(?:\s+(?:(?:are|is|may\s+be"
            r"|can\s+be|gets?|must\s+be|should\s+be)\s+)?(?:changes?|changed|modified|touched"
            r"|edited)(?:\s+in\s+total)?)?",
            rf"(?:change|modify|touch|edit)\s+{_BOUND}\s+{_NUM}\s+lines?(?:\s+in\s+total)?",
            rf"(?:the\s+)?diff\s+(?:is|must\s+be|should\s+be|stays?|must\s+stay)\s+{_BOUND}\s+"
            rf"{_NUM}\s+(?:changed\s+)?lines?(?:\s+long)?",
        ),
        _max_lines,
        (
            "at most 40 lines change",
            "Change no more than 1,000 lines",
            "the diff is under 20 lines",
        ),
    ),
)

COMPILABLE_FORMS: list[str] = [form for rule in RULES for form in rule.forms]
"""Invariant strings that compile, as a planner prompt or a rejection shows them."""
