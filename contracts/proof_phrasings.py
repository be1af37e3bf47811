"""Phrasings of the proof kinds: a test that fails before the step and passes after it
(`tests_fail_before`), and tests removed or skipped on purpose (`tests_removed`).

Kept apart from `contracts.phrasings` so each table stays one family; both are joined into
`RULES` there, these first, since "the new tests in X fail before this step" must not be read
as an ordinary "tests in X pass".
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from contracts.invariants import Invariant, TestsFailBefore, TestsRemoved
from contracts.phrasing_base import MODAL, NAME, NAMES, POSS, Rule, RuleMismatch, names, rule

__all__ = ["PROOF_RULES"]

_NEW = r"(?:(?:new|added|changed|regression|reproduction|new\s+regression)\s+)"
_STEP = r"(?:this|the)\s+(?:step|change|fix|patch|commit)"
_FAIL = r"(?:fails?|errors?|(?:is|are)\s+red)"
_BEFORE = rf"{_FAIL}\s+before\s+{_STEP}"
_AFTER = (
    r"(?:,?\s+(?:and|but)\s+(?:(?:must|should|will)\s+)?(?:pass(?:es)?|succeeds?|(?:is|are)"
    rf"\s+green)\s+(?:after(?:wards|\s+it|\s+{_STEP})?|once\s+it\s+is\s+done))?"
)
_REMOVED = (
    r"(?:is|are|may\s+be|can\s+be|will\s+be|must\s+be|should\s+be|gets?|get)\s+"
    r"(?:removed|deleted|skipped|dropped|retired)"
    r"(?:\s+(?:on\s+purpose|intentionally|deliberately|by\s+design))?"
)


def _looks_like_test(name: str) -> bool:
    """A test id, a test file or a test's name (also a title in a runner's own words, such as
    `strict mode rejects refs` or `calc › adds`); anything else is code, not a test."""
    base = name.rsplit("/", 1)[-1].lower()
    if "::" in name or "/" in name or "test" in base or base.endswith(("spec.js", "spec.ts")):
        return True
    return " > " in name or "›" in name or _TITLE.fullmatch(name) is not None


_TITLE = re.compile(r"[A-Za-z][^=;{}`]* [^=;{}`]*[A-Za-z0-9)]")
"""Words with spaces between them, as a test's title reads; not an assignment or a block."""


def _test_names(g: Mapping[str, str | None], why: str) -> list[str]:
    found = names(g.get("paths")) or []
    odd = [n for n in found if not _looks_like_test(n)]
    if odd:
        raise RuleMismatch(
            f"{', '.join(odd)} does not name a test: {why} takes test files or test ids "
            "as coder or the runner prints them (`tests/test_x.py::test_y`, "
            "`test/x.js > suite > test`, a test's title)"
        )
    return found


def _fails_before(g: Mapping[str, str | None]) -> Invariant:
    return TestsFailBefore(paths=_test_names(g, "'fails before this step'"))


def _removed(g: Mapping[str, str | None]) -> Invariant:
    return TestsRemoved(paths=_test_names(g, "'is removed on purpose'"))


PROOF_RULES: tuple[Rule, ...] = (
    rule(
        "fails_before",
        (
            "`ID` fails before this step and passes after (ID a test id or a test file)",
            "The new tests in FILE fail before this step",
        ),
        (
            rf"(?:all\s+)?(?:the\s+)?{_NEW}+tests?\s+(?:in|of|from|under)\s+(?:the\s+)?"
            rf"(?:(?:test\s+)?file\s+)?(?P<paths>{NAMES})\s+{MODAL}{_BEFORE}{_AFTER}",
            rf"(?P<paths>{NAME}){POSS}\s+{_NEW}*tests?\s+{MODAL}{_BEFORE}{_AFTER}",
            rf"(?:the\s+)?{_NEW}*(?:tests?\s+)?(?P<paths>{NAMES})\s+{MODAL}{_BEFORE}{_AFTER}",
        ),
        _fails_before,
        (
            "`tests/test_calc.py::test_add` fails before this step and passes after",
            "the new tests in tests/test_calc.py fail before this step",
            "The regression test tests/test_calc.py::test_add must fail before the fix and "
            "pass after it",
            "tests/test_calc.py's new tests fail before this change and pass afterwards",
            "The added tests in `test/pages.test.js` must fail before this step",
        ),
    ),
    rule(
        "removed",
        ("`ID` is removed (on purpose)", "The tests in FILE are removed on purpose"),
        (
            rf"(?:all\s+)?(?:the\s+)?tests?\s+(?:in|of|from|under)\s+(?:the\s+)?"
            rf"(?:(?:test\s+)?file\s+)?(?P<paths>{NAMES})\s+{_REMOVED}",
            rf"(?:the\s+)?(?:tests?\s+)?(?P<paths>{NAMES})\s+{_REMOVED}",
        ),
        _removed,
        (
            "`tests/test_calc.py::test_old` is removed",
            "the tests in tests/test_legacy.py are removed on purpose",
            "test tests/test_calc.py::test_flaky is skipped intentionally",
        ),
    ),
)
