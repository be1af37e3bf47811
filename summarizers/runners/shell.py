"""A small reader of the shell commands people give as test commands: lists (`a && b`,
`a; b`, `a || b`), pipelines (`a | b`), env assignments and redirections, each word with its
span in the source so a rewrite can keep every untouched word exactly as written (globs,
variables and quoting keep working).

It reads what test commands are made of and nothing more: a subshell, a group, a control
structure (`if`, `for`, ...) or a here-document makes `parse` return None, and callers leave
such a command as it is rather than guess what it means.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

LIST_OPERATORS = ("&&", "||", ";", "&", "\n")
_RESERVED = frozenset(
    "if then else elif fi for while until do done case esac function select { } ! [[ ]]".split()
)
"""Words that start a compound command (`time` is a keyword too, but times one command)."""
_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")


@dataclass(frozen=True)
class Word:
    start: int
    end: int
    text: str
    """The word as the program receives it (quotes removed; `$x`, `$(..)` left as written)."""
    plain: bool
    """Written without quotes, escapes or expansions: the text is exactly the source span."""
    assignment: bool = False
    """Starts with an unquoted `NAME=`: an env assignment where a command's words begin."""


@dataclass(frozen=True)
class Simple:
    """One simple command: `A=1 pytest -q tests 2>&1`."""

    assignments: tuple[Word, ...]
    words: tuple[Word, ...]
    redirects: tuple[Word, ...]
    start: int
    end: int

    @property
    def argv(self) -> list[str]:
        return [w.text for w in self.words]


@dataclass(frozen=True)
class Pipeline:
    commands: tuple[Simple, ...]
    start: int
    end: int


@dataclass(frozen=True)
class Item:
    """A pipeline of a list, with the operator that joins it to the one before (None first)."""

    pipeline: Pipeline
    before: str | None


class _Unfollowed(Exception):
    """Shell syntax this reader does not follow."""


def parse(command: str) -> list[Item] | None:
    """The command's top-level list; None for syntax this reader does not follow."""
    try:
        tokens = _tokens(command)
        return _items(tokens)
    except _Unfollowed:
        return None


def source(command: str, word: Word) -> str:
    return command[word.start : word.end]


@dataclass(frozen=True)
class _Token:
    word: Word | None = None
    operator: str | None = None
    redirect: bool = False


def _tokens(command: str) -> list[_Token]:
    out: list[_Token] = []
    i, n = 0, len(command)
    target_next = False
    while i < n:
        ch = command[i]
        if ch in " \t":
            i += 1
        elif ch == "\\" and command[i + 1 : i + 2] == "\n":
            i += 2
        elif ch == "#":
            while i < n and command[i] != "\n":
                i += 1
        elif ch in "()":
            raise _Unfollowed("a subshell")
        elif ch == "&" and command[i + 1 : i + 2] == ">":
            end = i + (3 if command[i + 2 : i + 3] == ">" else 2)
            out.append(_Token(Word(i, end, command[i:end], True), redirect=True))
            i, target_next = end, True
        elif ch in ";&|\n":
            op = command[i : i + 2]
            if op == ";;" or op == ";&":
                raise _Unfollowed("a case clause")
            if op not in ("&&", "||", "|&"):
                op = ch
            out.append(_Token(operator=op))
            i += len(op)
        else:
            word, i, redirect = _word(command, i)
            out.append(_Token(word, redirect=redirect or target_next))
            target_next = redirect and word.text.rstrip("0123456789-") in (
                "<",
                ">",
                ">>",
                ">|",
                "<>",
                "<<<",
            )
    return out


def _word(command: str, i: int) -> tuple[Word, int, bool]:
    """One word from `i`: quotes, escapes and `$(...)`/`${...}`/backticks held as one piece;
    a redirection operator (`2>&1`, `>`, `>>log`) is a word of its own, marked."""
    n, start = len(command), i
    text: list[str] = []
    plain = True
    while i < n and command[i] not in " \t;&|\n()":
        ch = command[i]
        if ch in "<>":
            if text and not "".join(text).isdigit():
                break
            m = re.compile(r"<<<|<<-?|>>|>\||<>|>&|<&|>|<").match(command, i)
            assert m is not None
            if m.group().startswith("<<") and m.group() != "<<<":
                raise _Unfollowed("a here-document")
            i = m.end()
            if m.group().endswith("&"):
                while i < n and (command[i].isdigit() or command[i] == "-"):
                    i += 1
            return Word(start, i, command[start:i], True), i, True
        if ch == "'":
            end = command.find("'", i + 1)
            if end < 0:
                raise _Unfollowed("an unterminated quote")
            text.append(command[i + 1 : end])
            plain, i = False, end + 1
        elif ch == '"':
            end = _closing_double_quote(command, i + 1)
            text.append(re.sub(r'\\([$`"\\\n])', r"\1", command[i + 1 : end]))
            plain, i = False, end + 1
        elif ch == "\\":
            text.append(command[i + 1 : i + 2])
            plain, i = False, i + 2
        elif ch == "`":
            end = command.find("`", i + 1)
            if end < 0:
                raise _Unfollowed("an unterminated backtick")
            text.append(command[i : end + 1])
            plain, i = False, end + 1
        elif ch == "$" and command[i + 1 : i + 2] in ("(", "{"):
            end = _balanced(command, i + 1)
            text.append(command[i : end + 1])
            plain, i = False, end + 1
        else:
            if ch == "$":
                plain = False
            text.append(ch)
            i += 1
    assignment = _ASSIGNMENT.match(command[start:i]) is not None
    return Word(start, i, "".join(text), plain, assignment), i, False


def _closing_double_quote(command: str, i: int) -> int:
    while i < len(command):
        if command[i] == "\\":
            i += 2
            continue
        if command[i] == '"':
            return i
        if command[i] == "$" and command[i + 1 : i + 2] in ("(", "{"):
            i = _balanced(command, i + 1) + 1
            continue
        i += 1
    raise _Unfollowed("an unterminated quote")


def _balanced(command: str, i: int) -> int:
    """The index of the bracket closing the one at `i`, skipping quoted text."""
    pairs = {"(": ")", "{": "}"}
    stack = [pairs[command[i]]]
    i += 1
    while i < len(command):
        ch = command[i]
        if ch == "\\":
            i += 2
            continue
        if ch in "'\"":
            end = command.find(ch, i + 1)
            if end < 0:
                break
            i = end + 1
            continue
        if ch in pairs:
            stack.append(pairs[ch])
        elif ch == stack[-1]:
            stack.pop()
            if not stack:
                return i
        i += 1
    raise _Unfollowed("an unterminated expansion")


def _items(tokens: list[_Token]) -> list[Item]:
    items: list[Item] = []
    commands: list[Simple] = []
    current: list[_Token] = []
    before: str | None = None

    def end_command() -> None:
        if not current:
            raise _Unfollowed("an operator with no command")
        commands.append(_simple(current))
        current.clear()

    def end_pipeline(op: str | None) -> None:
        nonlocal before
        end_command()
        items.append(Item(Pipeline(tuple(commands), commands[0].start, commands[-1].end), before))
        commands.clear()
        before = op

    for token in tokens:
        if token.operator is None:
            current.append(token)
        elif token.operator in ("|", "|&"):
            end_command()
        elif not current and not commands and token.operator == "\n":
            continue
        else:
            end_pipeline(token.operator)
    if current or commands:
        end_pipeline(None)
    return items


def _simple(tokens: list[_Token]) -> Simple:
    assignments: list[Word] = []
    words: list[Word] = []
    redirects: list[Word] = []
    for token in tokens:
        assert token.word is not None
        if token.redirect:
            redirects.append(token.word)
        elif not words and token.word.assignment:
            assignments.append(token.word)
        else:
            words.append(token.word)
    if words and words[0].text in _RESERVED and words[0].plain:
        raise _Unfollowed(f"the shell keyword {words[0].text!r}")
    spans = [t.word for t in tokens if t.word is not None]
    return Simple(
        tuple(assignments),
        tuple(words),
        tuple(redirects),
        min(w.start for w in spans),
        max(w.end for w in spans),
    )
