"""Deterministic fault injection into Python source: flip a comparison, change a constant,
drop a line, negate a boolean. Each mutant is one token (or one line) changed."""

from __future__ import annotations

import io
import random
import tokenize
from dataclasses import dataclass

_FLIPS = {"<": "<=", "<=": "<", ">": ">=", ">=": ">", "==": "!=", "!=": "==", "+": "-", "-": "+"}
_NAMES = {"True": "False", "False": "True", "and": "or", "or": "and"}


@dataclass(frozen=True)
class Mutation:
    line: int  # 1-based
    col: int
    old: str
    new: str
    kind: str

    def describe(self) -> str:
        return f"{self.kind} at line {self.line}: {self.old!r} -> {self.new!r}"


def candidates(source: str) -> list[Mutation]:
    out: list[Mutation] = []
    lines = source.splitlines(keepends=True)
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    except (tokenize.TokenError, SyntaxError):
        return out
    in_def = False
    for tok in tokens:
        (row, col), text = tok.start, tok.string
        if tok.type == tokenize.NAME and text == "def":
            in_def = True
        if not in_def:
            continue
        if tok.type == tokenize.OP and text in _FLIPS:
            out.append(Mutation(row, col, text, _FLIPS[text], "flip operator"))
        elif tok.type == tokenize.NUMBER and text.isdigit() and len(text) < 4:
            out.append(Mutation(row, col, text, str(int(text) + 1), "change constant"))
        elif tok.type == tokenize.NAME and text in _NAMES:
            out.append(Mutation(row, col, text, _NAMES[text], "negate"))
        elif tok.type == tokenize.NAME and text == "return" and col > 0:
            line = lines[row - 1]
            if (
                line.strip().startswith("return ")
                and line.rstrip().endswith((")", "]", "}")) is False
            ):
                out.append(Mutation(row, col, line.strip(), "pass", "drop line"))
    return out


def pick(source: str, seed: int, count: int) -> list[Mutation]:
    found = candidates(source)
    random.Random(seed).shuffle(found)
    return found[:count]


def apply(source: str, m: Mutation) -> str:
    lines = source.splitlines(keepends=True)
    line = lines[m.line - 1]
    if m.kind == "drop line":
        indent = line[: len(line) - len(line.lstrip())]
        lines[m.line - 1] = f"{indent}pass  # mutant: dropped {m.old[:40]!r}\n"
    else:
        assert line[m.col : m.col + len(m.old)] == m.old, (line, m)
        lines[m.line - 1] = line[: m.col] + m.new + line[m.col + len(m.old) :]
    return "".join(lines)
