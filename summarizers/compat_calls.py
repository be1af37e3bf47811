"""Compatible or breaking, for one pair of parameter lists: does the new one accept every call
the old one accepted? The symbol-level judgement (classes, removals, files) is `compat`'s.

Python: positional parameters keep their order, names and kinds; a parameter may gain a
default; `*args`/`**kwargs` may be added; new parameters need defaults. JavaScript and
TypeScript: parameters count by position (callers cannot name them); new trailing ones need a
default or `?`. In both, annotations, return types and default values are reported, not judged.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from summarizers.ast_common import Call, Param
from summarizers.ast_params import (
    KEYWORD_ONLY,
    POSITIONAL_ONLY,
    POSITIONAL_OR_KEYWORD,
    VAR_KEYWORD,
    VAR_POSITIONAL,
)

_POSITIONAL = (POSITIONAL_ONLY, POSITIONAL_OR_KEYWORD)
_VARIADIC = (VAR_POSITIONAL, VAR_KEYWORD)


@dataclass(frozen=True)
class CallVerdict:
    compatible: bool
    reasons: tuple[str, ...] = ()
    """Why some old call may no longer work ("new required parameter `c`"); empty if none."""
    notes: tuple[str, ...] = ()
    """What changed without being judged: annotations, return types, defaults, additions."""
    extended: bool = False
    """Something callers may now use was added (a parameter, a default, `*args`)."""

    def text(self) -> str:
        """The verdict in one line, reasons first."""
        body = "; ".join(self.reasons or self.notes)
        head = "compatible" if self.compatible else "breaking"
        return f"{head}: {body}" if body else head


def make_verdict(reasons: list[str], notes: list[str], extended: bool = False) -> CallVerdict:
    return CallVerdict(not reasons, tuple(reasons), tuple(notes), extended)


def merge(verdicts: list[CallVerdict]) -> CallVerdict:
    reasons = [r for v in verdicts for r in v.reasons]
    notes = [n for v in verdicts for n in v.notes]
    return make_verdict(reasons, notes, any(v.extended for v in verdicts))


@dataclass
class _Words:
    """How a parameter is named in a reason: by name in Python, by position in JavaScript."""

    by_position: bool

    def param(self, p: Param, index: int) -> str:
        """The subject of a sentence: "`b`" in Python, "parameter 2 `b`" in JavaScript."""
        return f"parameter {index + 1} `{p.name}`" if self.by_position else f"`{p.name}`"

    def noun(self, p: Param, index: int | None) -> str:
        """ "parameter `b`", "keyword-only parameter `b`", "parameter 2 `b`"."""
        if index is None:
            return f"keyword-only parameter `{p.name}`"
        return f"parameter {index + 1} `{p.name}`" if self.by_position else f"parameter `{p.name}`"

    def star(self, p: Param) -> str:
        if self.by_position:
            return f"`...{p.name}`"
        return f"`*{p.name}`" if p.kind == VAR_POSITIONAL else f"`**{p.name}`"


@dataclass
class _Comparison:
    old: Call
    new: Call
    words: _Words
    reasons: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    extended: bool = False
    matched_positions: set[int] = field(default_factory=set)
    matched_names: set[str] = field(default_factory=set)
    moves: list[tuple[Param, int, int]] = field(default_factory=list)
    """Old positional parameters found at another position: (parameter, old index, new)."""

    def run(self) -> CallVerdict:
        old_pos = [p for p in self.old.params if p.kind in _POSITIONAL]
        new_pos = [p for p in self.new.params if p.kind in _POSITIONAL]
        for i, p in enumerate(old_pos):
            self._old_positional(i, p, new_pos)
        for p in self.old.params:
            if p.kind == KEYWORD_ONLY:
                self._old_keyword(p)
        self._variadics()
        self._explain_moves(new_pos)
        self._additions(len(old_pos), new_pos)
        self._returns()
        return make_verdict(self.reasons, self.notes, self.extended)

    def _new_named(self, name: str) -> Param | None:
        return next(
            (q for q in self.new.params if q.named and q.kind not in _VARIADIC and q.name == name),
            None,
        )

    def _star(self, call: Call, kind: str) -> Param | None:
        return next((p for p in call.params if p.kind == kind), None)

    def _old_positional(self, i: int, p: Param, new_pos: list[Param]) -> None:
        w = self.words
        q = new_pos[i] if i < len(new_pos) else None
        elsewhere = self._new_named(p.name) if p.named else None
        old_names = {o.name for o in self.old.params if o.named}
        if q is not None and q.named == p.named and q.name == p.name:
            self.matched_positions.add(i)
            self._same(p, q, i)
        elif elsewhere is not None:
            self.matched_names.add(elsewhere.name)
            if elsewhere.kind == KEYWORD_ONLY:
                self.reasons.append(f"{w.param(p, i)} is now keyword-only")
            else:
                j = new_pos.index(elsewhere)
                self.matched_positions.add(j)
                self.moves.append((p, i, j))
        elif q is not None and not (q.named and q.name in old_names):
            self.matched_positions.add(i)
            if p.kind == POSITIONAL_ONLY:
                if p.named and q.named and p.name != q.name:
                    self.notes.append(
                        f"{w.param(p, i)} renamed `{q.name}` (callers cannot name it)"
                    )
            else:
                self.reasons.append(f"{w.param(p, i)} renamed `{q.name}`")
            self._same(p, q, i)
        elif q is None and self._absorbed(p):
            star = self._star(self.new, VAR_POSITIONAL)
            assert star is not None
            self.notes.append(f"{w.param(p, i)} is now taken by {w.star(star)}")
        else:
            self.reasons.append(f"{w.noun(p, i)} removed")

    def _explain_moves(self, new_pos: list[Param]) -> None:
        """Moved parameters said with what pushed them: "new parameter `intfmt` inserted at
        position 5: `numalign` and the 6 after it shift 1 place right"."""
        if not self.moves:
            return
        w = self.words
        last = max(j for _, _, j in self.moves)
        inserted = [k for k in range(last) if k not in self.matched_positions]
        self.matched_positions.update(inserted)
        added = _inserted([new_pos[k] for k in inserted], inserted)
        deltas = {j - i for _, i, j in self.moves}
        if len(deltas) != 1:
            if inserted:
                self.reasons.append(added)
            for p, i, j in self.moves:
                self.reasons.append(f"{w.param(p, i)} moved to position {j + 1}")
            return
        delta = deltas.pop()
        first, i, _ = self.moves[0]
        places = f"{abs(delta)} place{'s' if abs(delta) != 1 else ''}"
        after = f" and the {len(self.moves) - 1} after it" if len(self.moves) > 1 else ""
        verb = "shift" if after else "shifts"
        shift = f"{w.param(first, i)}{after} {verb} {places} {'right' if delta > 0 else 'left'}"
        self.reasons.append(f"{added}: {shift}" if inserted else shift)

    def _absorbed(self, p: Param) -> bool:
        """A positional call still fits `*args`; a keyword one also needs `**kwargs`."""
        if self._star(self.new, VAR_POSITIONAL) is None:
            return False
        return p.kind == POSITIONAL_ONLY or self._star(self.new, VAR_KEYWORD) is not None

    def _same(self, p: Param, q: Param, i: int) -> None:
        w = self.words
        if p.kind == POSITIONAL_OR_KEYWORD and q.kind == POSITIONAL_ONLY:
            self.reasons.append(f"{w.param(p, i)} is now positional-only")
        self._defaults(p, q, w.param(p, i))
        if not p.named and p.name != q.name:
            self.notes.append(f"{w.param(p, i)} is now `{q.name}`")
        self._annotation(p, q, w.param(p, i))

    def _defaults(self, p: Param, q: Param, label: str) -> None:
        if p.optional and not q.optional:
            lost = "is now required" if self.words.by_position else "lost its default"
            self.reasons.append(f"{label} {lost}")
        elif q.optional and not p.optional:
            self.extended = True
            self.notes.append(f"{label} is now optional")
        elif p.default and q.default and p.default != q.default:
            self.notes.append(f"default of {label}: `{p.default}` → `{q.default}`")

    def _annotation(self, p: Param, q: Param, label: str) -> None:
        if p.annotation == q.annotation:
            return
        what = "type" if self.words.by_position else "annotation"
        before, after = p.annotation or "none", q.annotation or "none"
        self.notes.append(f"{what} of {label}: `{before}` → `{after}`")

    def _old_keyword(self, p: Param) -> None:
        q = self._new_named(p.name)
        label = f"`{p.name}`"
        if q is None:
            if self._star(self.new, VAR_KEYWORD) is not None:
                star = self._star(self.new, VAR_KEYWORD)
                assert star is not None
                self.notes.append(f"{label} is now taken by {self.words.star(star)}")
            else:
                self.reasons.append(f"{self.words.noun(p, None)} removed")
            return
        self.matched_names.add(q.name)
        if q.kind == POSITIONAL_ONLY:
            self.reasons.append(f"{label} is now positional-only")
        self._defaults(p, q, label)
        self._annotation(p, q, label)

    def _variadics(self) -> None:
        for kind in _VARIADIC:
            before, after = self._star(self.old, kind), self._star(self.new, kind)
            if before is not None and after is None:
                what = "rest parameter" if self.words.by_position else "parameter"
                self.reasons.append(f"{what} {self.words.star(before)} removed")
            elif after is not None and before is None:
                self.extended = True
                self.notes.append(f"added {self.words.star(after)}")

    def _additions(self, old_count: int, new_pos: list[Param]) -> None:
        w = self.words
        old_star = self._star(self.old, VAR_POSITIONAL)
        for i, q in enumerate(new_pos):
            if i in self.matched_positions or (q.named and q.name in self.matched_names):
                continue
            if i >= old_count and old_star is not None:
                self.reasons.append(
                    f"new {w.noun(q, i)} takes an argument that went to {w.star(old_star)}"
                )
            else:
                self._added(q, w.noun(q, i))
        for q in self.new.params:
            if q.kind == KEYWORD_ONLY and q.name not in self.matched_names:
                self._added(q, w.noun(q, None))

    def _added(self, q: Param, noun: str) -> None:
        if not q.optional:
            self.reasons.append(f"new required {noun}")
            return
        self.extended = True
        default = f" (default `{q.default}`)" if q.default else ""
        optional = "" if noun.startswith("keyword-only") else "optional "
        self.notes.append(f"added {optional}{noun}{default}")

    def _returns(self) -> None:
        old, new = self.old, self.new
        if old.returns != new.returns:
            self.notes.append(f"return type: `{old.returns or 'none'}` → `{new.returns or 'none'}`")
        if old.is_async == new.is_async:
            return
        if self.words.by_position and old.returns and old.returns == new.returns:
            self.notes.append("async now, with the same declared return type")
            return
        result = "a Promise" if self.words.by_position else "a coroutine"
        if new.is_async:
            self.reasons.append(f"now async: callers get {result} instead of the value")
        else:
            self.reasons.append(f"no longer async: callers that await {result} break")


def _inserted(params: list[Param], indexes: list[int]) -> str:
    """ "new parameter `intfmt` inserted at position 5", "new parameters `a`, `b` (required)
    inserted at positions 2, 3"."""
    if len(params) == 1:
        required = "" if params[0].optional else "required "
        return f"new {required}parameter `{params[0].name}` inserted at position {indexes[0] + 1}"
    names = ", ".join(f"`{p.name}`" + ("" if p.optional else " (required)") for p in params)
    return f"new parameters {names} inserted at positions {', '.join(str(k + 1) for k in indexes)}"


def compare_calls(old: Call, new: Call, *, by_position: bool = False) -> CallVerdict:
    """Does `new` accept every call `old` accepted? `by_position` for JavaScript/TypeScript."""
    return _Comparison(old, new, _Words(by_position)).run()
