"""The phrasings the invariant compiler understands: one rule per family, as data.

Each rule is a regular expression over the whole (tidied) string plus a pure builder, with the
forms it shows planners and examples that must compile through it. `COMPILABLE_FORMS` is built
from this table so the list a rejection shows can never drift from what actually compiles.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from contracts.api_phrasings import API_RULES, SIGNATURE_RULES
from contracts.invariants import (
    CommandSucceeds,
    Invariant,
    MaxChangedLines,
    TestsPass,
    TextAbsent,
    TextPresent,
)
from contracts.phrasing_base import (
    BARE,
    MODAL,
    NAME,
    NAMES,
    NOT,
    POSS,
    Builder,
    Q,
    Rule,
    RuleMismatch,
    looks_like_file,
    names,
    rule,
    symbol,
    unquote,
)
from contracts.proof_phrasings import PROOF_RULES

__all__ = ["COMPILABLE_FORMS", "RULES", "Rule", "RuleMismatch", "looks_like_file"]

_EXIT0 = r"(?:exit|return)s?\s+(?:with\s+)?(?:(?:an?\s+)?(?:exit\s+)?(?:code|status)\s+)?(?:0|zero)"
_PASSES = rf"(?:pass(?:es)?|succeeds?|(?:are|is|be)\s+green|{_EXIT0})"
_REMAIN = r"(?:(?:may|can|must|should)\s+)?(?:remains?|(?:are|is|be)\s+left|left|exists?|appears?)"
_IN_PATHS = rf"(?:\s+(?:in|under|within)\s+(?:the\s+)?(?P<paths>{NAMES}))?"
_BOUND = (
    r"(?P<bound>at\s+most|no\s+more\s+than|not\s+more\s+than|up\s+to"
    r"|fewer\s+than|less\s+than|under)"
)
_NUM = r"(?P<n>\d{1,3}(?:,\d{3})+|\d+)"


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
    return TestsPass(paths=names(g.get("paths")), command=unquote(command) if command else None)


def _command(g: Mapping[str, str | None]) -> Invariant:
    return CommandSucceeds(command=unquote(g["cmd"] or ""))


def _search_paths(text: str | None) -> list[str] | None:
    """Where to search; `src/` is a directory, said exactly as the glob `src/**`."""
    found = names(text)
    return [n + "**" if n.endswith("/") else n for n in found] if found else None


def _no_calls(g: Mapping[str, str | None]) -> Invariant:
    what = symbol(g["what"] or "")
    pattern = rf"(?<![\w.$]){re.escape(what)}\s*\("
    return TextAbsent(pattern=pattern, paths=_search_paths(g.get("paths")))


def _text(present: bool, *, words: bool = False) -> Builder:
    def build(g: Mapping[str, str | None]) -> Invariant:
        pattern = _literal(unquote((g["what"] or "").strip()), words=words)
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
    *PROOF_RULES,
    rule(
        "tests_in",
        ("All unit tests in X must exit code 0", "Tests in X pass"),
        (
            rf"(?:all\s+(?:(?:of\s+)?the\s+)?|the\s+)?(?:unit\s+|integration\s+|e2e\s+)?tests?"
            rf"\s+(?:in|under|inside|within|from|of|for)\s+(?:the\s+)?"
            rf"(?:(?:test\s+)?(?:file|files|directory|folder|module|suite)\s+)?"
            rf"(?P<paths>{NAMES})\s+{MODAL}{_PASSES}",
        ),
        _tests,
        (
            "All unit tests in auth.test.ts must exit code 0",
            "tests in tests/unit pass",
            "All tests in `tests/test calc.py` and tests/test_io.py must pass",
            "the tests under src/__tests__ should exit with code 0",
        ),
    ),
    rule(
        "tests_of",
        ("X's tests must pass",),
        (rf"(?:all\s+(?:of\s+)?)?(?P<paths>{NAME}){POSS}\s+(?:unit\s+)?tests\s+{MODAL}{_PASSES}",),
        _tests,
        ("auth.test.ts's tests must pass", "`tests/api`'s unit tests pass"),
    ),
    rule(
        "all_tests",
        ("All tests pass",),
        (
            r"(?:all\s+(?:(?:of\s+)?the\s+)?|the\s+)?(?:full\s+|whole\s+|entire\s+|existing\s+)?"
            rf"(?:unit\s+)?(?:tests?(?:\s+suite)?|test-suite|testsuite)\s+{MODAL}{_PASSES}",
        ),
        _tests,
        ("all tests pass", "All existing tests must still pass", "the full test suite passes"),
    ),
    rule(
        "tests_with",
        ("Tests pass with `CMD`",),
        (
            rf"(?:all\s+|the\s+)?(?:unit\s+)?tests?(?:\s+suite)?\s+{MODAL}{_PASSES}\s+"
            rf"(?:with|using|via|under|when\s+run\s+(?:with|by|as))\s+(?P<cmd>{Q})",
        ),
        _tests,
        ("tests pass with `make check`", "All tests must pass using 'npm test'"),
    ),
    rule(
        "one_test",
        ("Test X must pass (X a test id such as tests/test_calc.py::test_add)",),
        (rf"(?:the\s+)?test\s+(?!suite\b)(?P<paths>{NAME})\s+{MODAL}{_PASSES}",),
        _tests,
        ("test tests/test_calc.py::test_add must pass", "the test `test_login` passes"),
    ),
    rule(
        "command",
        ("`CMD` must succeed", "`CMD` must exit 0"),
        (
            rf"(?:running\s+|the\s+command\s+)?(?P<cmd>{Q})\s+{MODAL}"
            rf"(?:succeeds?|pass(?:es)?|{_EXIT0}|works?|runs?\s+(?:cleanly|successfully)"
            rf"|(?:is|be)\s+successful|(?:does|do|must|should|will){NOT}\s+fail)",
        ),
        _command,
        (
            "`npx tsc --noEmit` must succeed",
            "`make lint` must exit 0",
            "running 'cargo check' exits with code 0",
            '"go vet ./..." should not fail',
        ),
    ),
    *SIGNATURE_RULES,
    *API_RULES,
    rule(
        "no_calls",
        ("No print statements remain in X (any call: 'No console.log calls remain in X')",),
        (
            rf"no\s+(?:more\s+)?(?P<what>{NAME})(?:\s*\(\))?\s+(?:statements?|calls?|invocations?)"
            rf"(?:\s+{_REMAIN})?{_IN_PATHS}",
        ),
        _no_calls,
        (
            "no print statements remain in src/calc.py",
            "No console.log calls remain in src/ and lib/app.js",
            "no `debug_dump()` calls",
        ),
    ),
    rule(
        "no_text",
        ("No `TEXT` remains in X",),
        (
            rf"no\s+(?:occurrences?\s+of\s+|uses?\s+of\s+|mentions?\s+of\s+)?(?P<what>{Q})"
            rf"(?:\s+{_REMAIN})?{_IN_PATHS}",
        ),
        _text(False),
        ("no `legacyToken` remains in src/auth.ts", "No occurrences of 'FIXME' in lib"),
    ),
    rule(
        "no_marker",
        ("No TODO comments remain in X",),
        (rf"no\s+(?P<what>{BARE})\s+(?:comments?|markers?)(?:\s+{_REMAIN})?{_IN_PATHS}",),
        _text(False, words=True),
        ("No TODO comments remain in src", "no XXX markers left"),
    ),
    rule(
        "not_contain",
        ("X must not contain `TEXT`",),
        (
            rf"(?:the\s+file\s+)?(?P<paths>{NAMES})\s+(?:must|should|shall|may|can|does|do|will)"
            rf"{NOT}\s+(?:contain|include|mention)\s+(?:any\s+)?(?P<what>.+)",
            rf"(?:the\s+file\s+)?(?P<paths>{NAMES})\s+(?:contains?|includes?)\s+no\s+(?P<what>.+)",
            rf"(?P<what>{Q})\s+(?:must|should|may|can|does|do|will){NOT}\s+"
            rf"(?:appear|be\s+present|exist|remain)\s+(?:anywhere\s+)?(?:in|within)\s+"
            rf"(?:the\s+)?(?P<paths>{NAMES})",
        ),
        _text(False),
        (
            "src/auth.ts must not contain `md5(`",
            "config.py contains no 'password'",
            "`eval(` must not appear in src/ or lib/",
        ),
    ),
    rule(
        "contain",
        ("X must contain `TEXT`", "`TEXT` must appear in X"),
        (
            rf"(?:the\s+file\s+)?(?P<paths>{NAMES})\s+{MODAL}(?:contains?|includes?)\s+(?P<what>.+)",
            rf"(?P<what>{Q})\s+{MODAL}(?:appears?|(?:is|be)\s+(?:present|defined)|exists?)"
            rf"\s+(?:in|within)\s+(?:the\s+)?(?P<paths>{NAMES})",
        ),
        _text(True),
        ("src/auth.ts must contain `hashToken`", "'def add' must appear in calc.py"),
    ),
    rule(
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
