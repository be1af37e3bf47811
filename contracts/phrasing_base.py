"""The vocabulary the phrasing rules are written in: the Rule type, regex fragments for names,
modals and "must not change", and the small pure helpers that turn captures into arguments.

Shared by `contracts.phrasings` (tests, commands, text, size) and `contracts.api_phrasings`
(signatures and public APIs), so both tables read the same words the same way.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from contracts.invariants import Invariant

Q = r"`[^`]+`|'[^']+'|\"[^\"]+\"|“[^”]+”|‘[^’]+’"
BARE = r"[^\s`'\"‘’“”,]+"
NAME = rf"(?:{Q}|{BARE})"
NAMES = rf"{NAME}(?:\s*,\s*{NAME})*(?:\s*,?\s+(?:and|or|&)\s+{NAME})?"
POSS = r"(?:'s|’s|'|’)"
KIND = r"(?:(?:the\s+)?(?:function|method|class|symbol)\s+)?"
MODAL = (
    r"(?:(?:must|should|shall|will|has\s+to|have\s+to|needs?\s+to)\s+)?"
    r"(?:(?:all|still|always)\s+)*"
)
NOT = r"(?:\s+not|n[’']t)"
UNCHANGED = (
    rf"(?:(?:must|should|shall|will|may|can|does|do){NOT}\s+change|never\s+changes"
    r"|(?:(?:is|are|stays?|remains?)|(?:must|should|will)\s+(?:be|stay|remain))\s+"
    r"(?:unchanged|the\s+same|preserved|intact))"
)

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


def rule(name: str, forms: tuple[str, ...], patterns: tuple[str, ...], build: Builder,
         examples: tuple[str, ...]) -> Rule:  # fmt: skip
    compiled = tuple(re.compile(rf"^{p}$", re.IGNORECASE | re.DOTALL) for p in patterns)
    return Rule(name, forms, compiled, build, examples)


def unquote(name: str) -> str:
    if len(name) >= 2 and (name[0], name[-1]) in {
        ("`", "`"), ("'", "'"), ('"', '"'), ("“", "”"), ("‘", "’")
    }:  # fmt: skip
        return name[1:-1].strip()
    return name


def names(text: str | None) -> list[str] | None:
    if not text:
        return None
    found = [m.group(0) for m in re.finditer(NAME, text)]
    return [unquote(n) for n in found if n.lower() not in ("and", "or", "&")]


def symbol(name: str) -> str:
    return re.sub(r"\(.*\)$", "", unquote(name)).strip()


def looks_like_file(name: str) -> bool:
    """A path or a file name with a known source extension, as opposed to a symbol."""
    if "/" in name:
        return True
    stem, dot, extension = name.rpartition(".")
    return bool(stem and dot) and extension.lower() in SOURCE_EXTENSIONS
