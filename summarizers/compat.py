"""Compatible or breaking: does the new version of a symbol accept every call the old one did?

One judgement for everyone who asks (the verifier's `signature_compatible` and
`public_api_compatible`, the PR bot's "possible breaking changes"), so a reviewer and a planner
never hear two answers. It reads tree-sitter symbols, never imports the code. Parameter lists
are compared by `compat_calls`; here a class is judged by its constructor and public members
(inherited ones from base classes of the same file included), and a file by every public
symbol: removed or made private breaks callers.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace

from summarizers.ast_common import Call, Symbol
from summarizers.compat_calls import CallVerdict, compare_calls, make_verdict, merge

__all__ = [
    "CONSTRUCTORS",
    "ApiVerdict",
    "CallVerdict",
    "compare_calls",
    "is_constructor",
    "judge_api",
    "judge_symbol",
    "lookup",
    "owner_of",
]

CONSTRUCTORS = ("__init__", "constructor")
_CONTAINERS = ("class", "interface")


def by_position(language: str) -> bool:
    return language != "python"


def judge_symbol(
    name: str,
    before: Mapping[str, Symbol],
    after: Mapping[str, Symbol],
    language: str,
    *,
    members: bool = True,
) -> CallVerdict:
    """The verdict on one symbol that exists in `before`. With `members`, a class or interface
    is judged whole: its constructor and every public member by the same rules."""
    old = before[name]
    new = lookup(name, after, language)
    if new is None:
        if is_constructor(name):
            return _constructor_verdict(name.rsplit(".", 1)[0], before, after, language)
        return make_verdict([f"{old.kind} `{name}` removed"], [])
    if old.public and not new.public:
        return make_verdict([f"`{name}` is no longer public"], [])
    verdict = _pair(name, old, new, before, after, language)
    if name not in after:
        inherited = make_verdict([], [f"`{name}` is now inherited from a base class"])
        verdict = merge([verdict, inherited])
    if not (members and old.kind in _CONTAINERS and new.kind in _CONTAINERS):
        return verdict
    parts = [verdict]
    if old.kind == "class":
        constructor = _constructor_verdict(name, before, after, language)
        parts.append(_labelled(f"`{name}` constructor", constructor))
    for member in _members(name, before):
        if is_constructor(member) or not before[member].public:
            continue
        parts.append(_labelled(f"`{member}`", judge_symbol(member, before, after, language)))
    return merge(parts)


def _pair(
    name: str,
    old: Symbol,
    new: Symbol,
    before: Mapping[str, Symbol],
    after: Mapping[str, Symbol],
    language: str,
) -> CallVerdict:
    if old.signature == new.signature and old.kind == new.kind:
        return make_verdict([], [])
    if old.kind == "property" and new.kind != "property" and new.call is not None:
        return make_verdict([f"`{name}` is now a method: reading it gives the method"], [])
    if new.kind == "property" and old.kind != "property" and old.call is not None:
        return make_verdict([f"`{name}` is now a property: calling it breaks"], [])
    if old.kind == new.kind and old.call is None:
        return make_verdict([], [f"`{old.signature}` → `{new.signature}`"])
    old_call = old.call if old.kind != "class" else _constructor(name, before, language)
    new_call = new.call if new.kind != "class" else _constructor(name, after, language)
    if old_call is not None and new_call is not None:
        verdict = compare_calls(old_call, new_call, by_position=by_position(language))
        header = [f"now a {new.kind}, was a {old.kind}"] if old.kind != new.kind else []
        if not (verdict.reasons or verdict.notes or header):
            header = [f"`{old.signature}` → `{new.signature}`"]
        return merge([verdict, make_verdict([], header)])
    if old_call is not None:
        return make_verdict(
            [f"`{name}` is now a {new.kind}: cannot tell which calls it accepts"], []
        )
    return make_verdict([], [f"`{old.signature}` → `{new.signature}`"])


def is_constructor(name: str) -> bool:
    """`C.__init__` or `C.constructor`: the member whose parameters are the class's."""
    return "." in name and name.rsplit(".", 1)[1] in CONSTRUCTORS


def _members(owner: str, table: Mapping[str, Symbol]) -> list[str]:
    return [n for n in table if n.startswith(owner + ".") and owner_of(n, table) == owner]


def owner_of(name: str, table: Mapping[str, Symbol]) -> str:
    """The class (or interface) `name` is a member of: the longest dotted prefix the table
    knows, since a member's own name may hold a dot (`[Symbol.iterator]`)."""
    parts = name.split(".")
    for k in range(len(parts) - 1, 0, -1):
        candidate = ".".join(parts[:k])
        if candidate in table:
            return candidate
    return ""


def _constructor(cls: str, table: Mapping[str, Symbol], language: str) -> Call | None:
    """The call a class accepts: its own constructor's, else the one it inherits from base
    classes of the same file, else an empty one; None when it inherits from a class this file
    does not define (cannot tell)."""
    known, call = _find_constructor(cls, table, language, 0)
    if not known:
        return None
    return call or Call(())


def _find_constructor(
    cls: str, table: Mapping[str, Symbol], language: str, depth: int
) -> tuple[bool, Call | None]:
    """(whether the chain is known, the first constructor in it), bases left to right."""
    for method in CONSTRUCTORS:
        found = table.get(f"{cls}.{method}")
        if found is not None and found.call is not None:
            return True, found.call
    for base in _bases(table[cls].signature, language) if cls in table else []:
        if base not in table or table[base].kind != "class" or depth >= _MAX_DEPTH:
            return False, None
        known, call = _find_constructor(base, table, language, depth + 1)
        if not known or call is not None:
            return known, call
    return True, None


def lookup(name: str, table: Mapping[str, Symbol], language: str, depth: int = 0) -> Symbol | None:
    """`name` in `table`, or a member its class inherits from a base class of the same file,
    named and made public as the subclass's own."""
    found = table.get(name)
    if found is not None or "." not in name or depth >= _MAX_DEPTH:
        return found
    owner = owner_of(name, table)
    member = name[len(owner) + 1 :]
    cls = table.get(owner)
    if cls is None or cls.kind != "class":
        return None
    for base in _bases(cls.signature, language):
        inherited = lookup(f"{base}.{member}", table, language, depth + 1)
        if inherited is not None:
            private = member.startswith("#") or (
                member.startswith("_") and not member.startswith("__")
            )
            return replace(inherited, name=name, public=cls.public and not private)
    return None


_MAX_DEPTH = 8


def _bases(header: str, language: str) -> list[str]:
    """Base class names from a class header: `class C(A, B[T], metaclass=M)` -> [A, B];
    `class C<T> extends Base<T> implements I` -> [Base]."""
    if by_position(language):
        found = re.search(r"\bextends\s+([\w$.]+)", header)
        return [found.group(1)] if found else []
    _, paren, rest = header.partition("(")
    rest = rest.strip()
    if not paren or not rest.endswith(")"):
        return []
    names, depth, current = [], 0, ""
    for ch in rest[:-1]:
        if ch in "[(":
            depth += 1
        elif ch in "])":
            depth -= 1
        if ch == "," and depth == 0:
            names.append(current)
            current = ""
        else:
            current += ch
    names.append(current)
    bases = [n.strip().split("[", 1)[0].strip() for n in names]
    return [b for b in bases if b and "=" not in b and b != "object"]


def _constructor_verdict(
    cls: str, before: Mapping[str, Symbol], after: Mapping[str, Symbol], language: str
) -> CallVerdict:
    if cls not in after:
        return make_verdict([], [])
    old, new = _constructor(cls, before, language), _constructor(cls, after, language)
    if old is None and new is None:
        return make_verdict([], [])
    if old is None or new is None:
        note = f"`{cls}`: constructor {'now inherited' if new is None else 'no longer inherited'}"
        return make_verdict([], [note + " from a base class; not judged"])
    return compare_calls(old, new, by_position=by_position(language))


def _labelled(tag: str, verdict: CallVerdict) -> CallVerdict:
    """Reasons about a member said with its name: "`Store.get`: parameter `key` removed"."""

    def label(text: str) -> str:
        return text if tag in text else f"{tag}: {text}"

    return CallVerdict(
        verdict.compatible,
        tuple(label(r) for r in verdict.reasons),
        tuple(label(n) for n in verdict.notes),
        verdict.extended,
    )


@dataclass(frozen=True)
class ApiVerdict:
    """Every public symbol of a file that changed, judged: breaking or compatible."""

    breaking: dict[str, CallVerdict] = field(default_factory=dict)
    compatible: dict[str, CallVerdict] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return not self.breaking

    def reasons(self) -> list[str]:
        return [r for name, v in self.breaking.items() for r in _labelled(f"`{name}`", v).reasons]


def judge_api(before: list[Symbol], after: list[Symbol], language: str) -> ApiVerdict:
    """What a file's change does to its public API: no public symbol may be removed or made
    private, and every changed public signature must accept the old calls."""
    old = {s.name: s for s in before}
    new = {s.name: s for s in after}
    breaking: dict[str, CallVerdict] = {}
    compatible: dict[str, CallVerdict] = {}
    for name, sym in old.items():
        if not sym.public or owner_of(name, old) in breaking:
            continue
        now = new.get(name)
        if (
            now is not None
            and now.public
            and (now.signature, now.kind) == (sym.signature, sym.kind)
        ):
            continue
        verdict = judge_symbol(name, old, new, language, members=False)
        (compatible if verdict.compatible else breaking)[name] = verdict
    for name, sym in new.items():
        owner = owner_of(name, new)
        if sym.public and is_constructor(name) and name not in old and owner in old:
            verdict = _constructor_verdict(owner, old, new, language)
            (compatible if verdict.compatible else breaking)[name] = verdict
    return ApiVerdict(breaking, compatible)
