"""How plans say what a change may do to signatures and public APIs, strict or compatible.

Words decide the kind. "unchanged", "must not change", "keeps its signature" are strict: the
signature text stays identical (`signature_unchanged`, `public_api_unchanged`). "breaking",
"backward compatible", "don't break" ask only that every existing call still works
(`signature_compatible`, `public_api_compatible`): an added optional parameter passes. Every
form takes an optional "in FILE", after the name or at the end.
"""

from __future__ import annotations

from collections.abc import Mapping

from contracts.invariants import (
    Invariant,
    PublicApiCompatible,
    PublicApiUnchanged,
    SignatureCompatible,
    SignatureUnchanged,
)
from contracts.phrasing_base import (
    KIND,
    MODAL,
    NAME,
    POSS,
    UNCHANGED,
    Builder,
    Rule,
    RuleMismatch,
    looks_like_file,
    rule,
    symbol,
    unquote,
)

_SIG = r"(?:signature|interface)"
_API = r"(?:public\s+(?:api|interface)|api|exports|exported\s+(?:api|names|symbols))"
_IN_FILE = rf"(?:\s+in\s+(?:the\s+file\s+)?(?P<file>{NAME}))?"
_AT_FILE = rf"(?:\s+in\s+(?:the\s+file\s+)?(?P<at>{NAME}))?"
_COMPATIBLE = (
    r"(?:(?:must|should|shall|will|has\s+to|have\s+to|needs?\s+to)\s+)?(?:(?:still|always)\s+)?"
    r"(?:(?:is|are|be|stays?|remains?)\s+(?:fully\s+)?(?:backwards?[\s-]+)?compatible"
    r"|(?:keeps?|maintains?|preserves?|retains?)\s+(?:its\s+|their\s+)?(?:full\s+)?"
    r"backwards?[\s-]+compatibility)"
)
_BREAK = (
    r"(?:do\s+not|don[’']t|does\s+not|doesn[’']t|must\s+not|mustn[’']t|should\s+not"
    r"|shouldn[’']t|never|without)\s+break(?:s|ing)?"
)
_NO_BREAKING = r"(?:zero|no)\s+breaking\s+changes?\s+(?:to|in|of)\s+(?:the\s+)?"
_NO_CHANGES = r"(?:zero|no)\s+changes?\s+(?:to|in|of)\s+(?:the\s+)?"
_API_OF = rf"(?:the\s+)?{_API}\s+of\s+(?:the\s+)?(?:file\s+|module\s+)?(?P<a>{NAME})(?:\s+module)?"
_API_POSS = rf"(?P<a>{NAME}){POSS}\s+{_API}"
_API_IN = rf"(?:the\s+)?{_API}\s+in\s+(?:the\s+file\s+)?(?P<a>{NAME})"


def _signature(strict: bool) -> Builder:
    def build(g: Mapping[str, str | None]) -> Invariant:
        name = symbol(g.get("a") or g.get("b") or "")
        where = g.get("file") or g.get("at")
        file = unquote(where) if where else None
        if looks_like_file(name):
            return PublicApiUnchanged(file=name) if strict else PublicApiCompatible(file=name)
        if strict:
            return SignatureUnchanged(symbol=name, file=file)
        return SignatureCompatible(symbol=name, file=file)

    return build


def _public_api(strict: bool) -> Builder:
    def build(g: Mapping[str, str | None]) -> Invariant:
        name = unquote(g.get("a") or "")
        where = g.get("file") or g.get("at")
        file = unquote(where) if where else name
        if not looks_like_file(file):
            instead = (
                f"'The signature of {name} must not change'"
                if strict
                else f"'{name} stays backward compatible'"
            )
            raise RuleMismatch(
                f"a public API is checked per file and {name!r} does not look like one; name the "
                f"file (e.g. 'src/auth.ts's public API is unchanged'), or for a function or class "
                f"write {instead}"
            )
        return PublicApiUnchanged(file=file) if strict else PublicApiCompatible(file=file)

    return build


SIGNATURE_RULES: tuple[Rule, ...] = (
    rule(
        "breaking_signature",
        (
            "Zero breaking changes to F signature (compatible: every existing call of F still "
            "works; add 'in FILE' to say where F is)",
        ),
        (
            rf"{_NO_BREAKING}(?:{_SIG}\s+of\s+{KIND}(?P<a>{NAME})"
            rf"|{KIND}(?P<b>{NAME}){POSS}?\s+{_SIG}){_IN_FILE}",
        ),
        _signature(strict=False),
        (
            "Zero breaking changes to verifyCredential signature",
            "no breaking changes to the signature of `Auth.login` in src/auth.ts",
            "zero breaking changes to verifyCredential()'s signature",
        ),
    ),
    rule(
        "compatible_signature",
        (
            "F stays backward compatible (compatible; 'in FILE' optional)",
            "Don't break callers of F (compatible)",
        ),
        (
            rf"(?:the\s+)?{_SIG}\s+of\s+{KIND}(?P<a>{NAME}){_IN_FILE}\s+{_COMPATIBLE}{_AT_FILE}",
            rf"{KIND}(?P<a>{NAME}){POSS}\s+{_SIG}{_IN_FILE}\s+{_COMPATIBLE}{_AT_FILE}",
            rf"{KIND}(?P<a>{NAME}){_IN_FILE}\s+{_COMPATIBLE}{_AT_FILE}",
            rf"{_BREAK}\s+(?:the\s+)?(?:(?:existing\s+)?(?:callers|calls|users)\s+(?:of|to)\s+"
            rf"|{_SIG}\s+of\s+)?{KIND}(?P<a>{NAME}){_IN_FILE}",
            rf"{_BREAK}\s+{KIND}(?P<a>{NAME}){POSS}\s+(?:{_SIG}|callers|calls){_IN_FILE}",
            rf"(?:all\s+)?(?:existing|old|current)\s+(?:calls|callers)\s+(?:to|of)\s+{KIND}"
            rf"(?P<a>{NAME}){_IN_FILE}\s+{MODAL}(?:keep\s+working|work|compile)",
        ),
        _signature(strict=False),
        (
            "verifyCredential stays backward compatible",
            "The function parse_date in calendarlib/dates.py must remain backwards-compatible",
            "the signature of natural_list must stay compatible in src/humanize/lists.py",
            "don't break callers of `Store.get`",
            "existing calls to load still work",
        ),
    ),
    rule(
        "signature",
        (
            "The signature of F must not change (strict: identical; 'in FILE' optional)",
            "F's signature is unchanged (strict)",
            "F keeps its signature (strict)",
        ),
        (
            rf"(?:the\s+)?{_SIG}\s+of\s+{KIND}(?P<a>{NAME}){_IN_FILE}\s+{UNCHANGED}{_AT_FILE}",
            rf"{KIND}(?P<b>{NAME}){POSS}\s+signature{_IN_FILE}\s+{UNCHANGED}{_AT_FILE}",
            rf"{KIND}(?P<a>{NAME}){_IN_FILE}\s+(?:must\s+|should\s+)?keeps?\s+its\s+"
            rf"(?:current\s+|exact\s+)?signature{_AT_FILE}",
            rf"{_NO_CHANGES}(?:{_SIG}\s+of\s+{KIND}(?P<a>{NAME})"
            rf"|{KIND}(?P<b>{NAME}){POSS}?\s+{_SIG}){_IN_FILE}",
        ),
        _signature(strict=True),
        (
            "the signature of verifyCredential must not change",
            "`parse_config`'s signature is unchanged",
            "The signature of the function load in pkg/io.py should stay the same",
            "The signature of load must not change in pkg/io.py",
            "hash_token keeps its signature",
            "no changes to the signature of `Auth.login`",
        ),
    ),
)

API_RULES: tuple[Rule, ...] = (
    rule(
        "public_api_compatible",
        (
            "No breaking changes to the public API of FILE (compatible)",
            "FILE's public API stays backward compatible (compatible)",
        ),
        (
            rf"{_NO_BREAKING}{_API_OF}{_IN_FILE}",
            rf"{_NO_BREAKING}{_API_POSS}{_IN_FILE}",
            rf"{_NO_BREAKING}{_API_IN}",
            rf"{_API_OF}{_IN_FILE}\s+{_COMPATIBLE}{_AT_FILE}",
            rf"{_API_POSS}{_IN_FILE}\s+{_COMPATIBLE}{_AT_FILE}",
            rf"{_API_IN}\s+{_COMPATIBLE}",
            rf"(?:the\s+)?{_API}\s+{_COMPATIBLE}\s+in\s+(?:the\s+file\s+)?(?P<a>{NAME})",
            rf"{_BREAK}\s+{_API_OF}{_IN_FILE}",
            rf"{_BREAK}\s+{_API_POSS}{_IN_FILE}",
            rf"{_BREAK}\s+{_API_IN}",
        ),
        _public_api(strict=False),
        (
            "no breaking changes to the public API of lib/index.js",
            "zero breaking changes to src/auth.ts's public API",
            "the public API of the auth module in src/auth.ts stays backward compatible",
            "the public API must remain compatible in calc.py",
            "don't break the exports of src/index.ts",
        ),
    ),
    rule(
        "public_api",
        (
            "FILE's public API is unchanged (strict)",
            "The public API of FILE must not change (strict)",
        ),
        (
            rf"{_API_OF}{_IN_FILE}\s+{UNCHANGED}{_AT_FILE}",
            rf"{_API_POSS}{_IN_FILE}\s+{UNCHANGED}{_AT_FILE}",
            rf"{_API_IN}\s+{UNCHANGED}",
            rf"(?:the\s+)?{_API}\s+{UNCHANGED}\s+in\s+(?:the\s+file\s+)?(?P<a>{NAME})",
            rf"{_NO_CHANGES}{_API_OF}{_IN_FILE}",
            rf"{_NO_CHANGES}{_API_POSS}{_IN_FILE}",
            rf"{_NO_CHANGES}{_API_IN}",
        ),
        _public_api(strict=True),
        (
            "src/auth.ts's public API is unchanged",
            "The public API of `calc.py` must not change",
            "the exports of src/index.ts remain the same",
            "the public API in lib/index.js must not change",
            "no changes to the public API of the module store in pkg/store.py",
        ),
    ),
    rule(
        "breaking_any",
        ("Zero breaking changes to FILE, or to F [in FILE] (compatible)",),
        (rf"{_NO_BREAKING}{KIND}(?P<a>{NAME}){_IN_FILE}",),
        _signature(strict=False),
        ("Zero breaking changes to src/auth.ts", "no breaking changes to `verifyCredential`"),
    ),
)
