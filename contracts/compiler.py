"""The natural-language invariant compiler: plain rules that turn common phrasings into kinds.

A planner writes "All unit tests in auth.test.ts must exit code 0"; the verifier needs
`tests_pass{paths: ["auth.test.ts"]}`. The rules live in `contracts.phrasings`; a string none
of them compiles is an error listing `COMPILABLE_FORMS`, the same list the planner prompt shows,
so a model learns the forms from the rejection itself. Objects are checked against the registry
of kinds, and an unknown kind lists the known ones.
"""

from __future__ import annotations

import difflib
from typing import Any

from pydantic import ValidationError

from contracts.invariants import PLAN_INVARIANTS, Invariant
from contracts.phrasings import COMPILABLE_FORMS, RULES, RuleMismatch
from contracts.plan import json_type
from contracts.readable import Loc, readable_errors

__all__ = [
    "COMPILABLE_FORMS",
    "InvariantCompileError",
    "compile_invariant",
    "compile_text",
    "forms_text",
    "matching_rule",
]


class InvariantCompileError(ValueError):
    """Why an invariant (string or object) does not compile; `reasons` are (location, message).

    `unmatched_text` marks a string no rule compiled, which `--allow-unverified` may keep as an
    advisory; a malformed object is always an error.
    """

    def __init__(
        self, reasons: list[tuple[Loc, str]], *, unmatched_text: bool = False, shape: bool = False
    ) -> None:
        self.reasons = reasons
        self.unmatched_text = unmatched_text
        self.shape = shape
        """An object that does not fit its kind's schema (what the tool schema already says),
        rather than a string no rule compiles."""
        text = "; ".join(message for _, message in reasons)
        super().__init__(f"{text}\n{forms_text()}" if unmatched_text else text)


def forms_text() -> str:
    """The forms and the object kinds, ready to show a planner."""
    forms = "\n".join(f"  - {form}" for form in dict.fromkeys(COMPILABLE_FORMS))
    kinds = ", ".join(f"{kind} {_fields(kind)}" for kind in PLAN_INVARIANTS)
    return (
        "Invariant strings that compile (wrap names with spaces in backticks or quotes):\n"
        f"{forms}\nor an object with a kind: {kinds}"
    )


def _fields(kind: str) -> str:
    model = PLAN_INVARIANTS[kind]
    names = [
        name + ("" if info.is_required() else "?")
        for name, info in model.model_fields.items()
        if name not in ("kind", "source")
    ]
    return "{" + ", ".join(names) + "}"


def compile_invariant(item: str | dict[str, Any]) -> Invariant:
    """One invariant from a plan; raises InvariantCompileError saying what would compile."""
    if isinstance(item, dict):
        return _compile_object(item)
    if not isinstance(item, str):
        reason = f"an invariant is a string or an object with a kind, not {json_type(item)}"
        raise InvariantCompileError([((), reason)], shape=True)
    return compile_text(item)


def compile_text(text: str) -> Invariant:
    """The invariant a natural-language string names (the compiled model keeps it as `source`)."""
    tidy = " ".join(text.split()).rstrip(".!;").strip()
    if not tidy:
        raise InvariantCompileError([((), "is empty; write an invariant or leave it out")])
    for rule in RULES:
        for pattern in rule.patterns:
            match = pattern.match(tidy)
            if match is None or _captures_a_keyword(match.groupdict()):
                continue
            try:
                invariant = rule.build(match.groupdict())
            except RuleMismatch as exc:
                raise InvariantCompileError([((), str(exc))], unmatched_text=True) from None
            except ValidationError as exc:
                reason = f"{tidy!r} names an empty or invalid argument ({exc.errors()[0]['msg']})"
                raise InvariantCompileError([((), reason)], unmatched_text=True) from None
            return invariant.model_copy(update={"source": text})
    reason = f"no rule compiles {tidy!r} into a check"
    raise InvariantCompileError([((), reason)], unmatched_text=True)


_KEYWORDS = frozenset(
    "must should shall will needs has have signature signatures the a an it this callers".split()
)


def _captures_a_keyword(groups: dict[str, str | None]) -> bool:
    """A name the phrasing left blank lets the regex take a keyword for it ("changes to
    signature", "tests in must exit 0"); such a match is no match."""
    return any(
        value is not None and value.strip().lower() in _KEYWORDS for value in groups.values()
    )


def matching_rule(text: str) -> str | None:
    """The name of the rule that compiles `text`, if any (for tests and diagnostics)."""
    tidy = " ".join(text.split()).rstrip(".!;").strip()
    for rule in RULES:
        if any(pattern.match(tidy) for pattern in rule.patterns):
            return rule.name
    return None


def _compile_object(item: dict[str, Any]) -> Invariant:
    kind = item.get("kind")
    known = ", ".join(PLAN_INVARIANTS)
    if "kind" not in item:
        raise InvariantCompileError(
            [(("kind",), f"missing (required); one of: {known}")], shape=True
        )
    if "source" in item:  # the compiled string's own field, never a plan's
        raise InvariantCompileError([(("source",), "unknown field")], shape=True)
    if not isinstance(kind, str) or kind not in PLAN_INVARIANTS:
        if kind == "files_within_scope":
            reason = "files_within_scope holds for every step implicitly; leave it out"
        else:
            close = difflib.get_close_matches(str(kind), PLAN_INVARIANTS, n=1, cutoff=0.6)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            reason = f"unknown invariant kind {kind!r}{hint} (known kinds: {known})"
        raise InvariantCompileError([(("kind",), reason)], shape=True)
    model = PLAN_INVARIANTS[kind]
    try:
        return model.model_validate(item)  # type: ignore[return-value]
    except ValidationError as exc:
        raise InvariantCompileError(readable_errors(exc, model), shape=True) from None
