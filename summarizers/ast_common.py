"""What the tree-sitter symbol extractors share: languages, result types, text normalisation."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from functools import cache

import tree_sitter
import tree_sitter_javascript
import tree_sitter_python
import tree_sitter_typescript

_EXTENSIONS = {
    ".py": "python",
    ".pyi": "python",
    ".js": "javascript",
    ".mjs": "javascript",
    ".cjs": "javascript",
    ".jsx": "javascript",
    ".ts": "typescript",
    ".mts": "typescript",
    ".cts": "typescript",
    ".tsx": "tsx",
}
LANGUAGES = ("python", "javascript", "typescript", "tsx")


@dataclass(frozen=True)
class Param:
    """One parameter as a caller sees it, for judging whether old calls still work."""

    name: str
    """The identifier; for a destructured JS parameter, its pattern text."""
    kind: str
    """positional_only | positional_or_keyword | keyword_only | var_positional | var_keyword.
    Every JavaScript parameter is positional_only (callers cannot name it); a rest is
    var_positional."""
    optional: bool = False
    """Has a default (or TypeScript's `?`): a call may leave it out."""
    annotation: str = ""
    default: str = ""
    named: bool = True
    """False for a destructuring pattern, whose text is not a name callers could match."""


@dataclass(frozen=True)
class Call:
    """What a callable accepts: its parameters without the implicit `self`/`cls`/`this`."""

    params: tuple[Param, ...]
    returns: str = ""
    is_async: bool = False


@dataclass(frozen=True)
class Symbol:
    name: str
    """Qualified within the file: "f", "Class.method", "Interface.member"."""
    kind: str
    """function, class, method, property, variable, interface, type, enum, reexport."""
    signature: str
    line: int
    public: bool
    body_hash: str
    call: Call | None = None
    """Parameters of a function or method (None for classes, variables, types)."""


@dataclass(frozen=True)
class ParseErrorInfo:
    line: int
    column: int
    message: str

    def __str__(self) -> str:
        return f"{self.line}:{self.column}: {self.message}"


@dataclass(frozen=True)
class ParseResult:
    symbols: list[Symbol]
    error: ParseErrorInfo | None = None


def language_for(path: str) -> str | None:
    """python | javascript | typescript | tsx by extension; None for anything else."""
    dot = path.rfind(".")
    return _EXTENSIONS.get(path[dot:].lower()) if dot >= 0 else None


@cache
def _language(name: str) -> tree_sitter.Language:
    if name == "python":
        return tree_sitter.Language(tree_sitter_python.language())
    if name == "javascript":
        return tree_sitter.Language(tree_sitter_javascript.language())
    if name == "typescript":
        return tree_sitter.Language(tree_sitter_typescript.language_typescript())
    if name == "tsx":
        return tree_sitter.Language(tree_sitter_typescript.language_tsx())
    raise ValueError(f"unknown language {name!r}; known: {', '.join(LANGUAGES)}")


def parse_tree(source: str, language: str) -> tree_sitter.Tree:
    return tree_sitter.Parser(_language(language)).parse(source.encode("utf-8", "surrogatepass"))


def first_error(root: tree_sitter.Node) -> ParseErrorInfo | None:
    """Position of the first ERROR or MISSING node in document order."""
    if not root.has_error:
        return None
    stack = [root]
    while stack:
        node = stack.pop()
        if node.is_missing:
            return _error_at(node, f"missing {node.type!r}")
        if node.is_error:
            snippet = text_of(node).strip().splitlines()[0][:40] if text_of(node).strip() else ""
            return _error_at(node, f"syntax error near {snippet!r}" if snippet else "syntax error")
        stack.extend(reversed([c for c in node.children if c.has_error or c.is_missing]))
    return _error_at(root, "syntax error")


def _error_at(node: tree_sitter.Node, message: str) -> ParseErrorInfo:
    return ParseErrorInfo(node.start_point[0] + 1, node.start_point[1] + 1, message)


def text_of(node: tree_sitter.Node | None) -> str:
    if node is None or node.text is None:
        return ""
    return node.text.decode("utf-8", "replace")


def text_without_comments(node: tree_sitter.Node | None) -> str:
    """Node text with comment nodes cut out (a comment in a parameter list is not API)."""
    if node is None:
        return ""
    raw = node.text or b""
    cuts: list[tuple[int, int]] = []
    stack = [node]
    while stack:
        current = stack.pop()
        if current.type == "comment":
            cuts.append((current.start_byte - node.start_byte, current.end_byte - node.start_byte))
            continue
        stack.extend(current.children)
    for start, end in sorted(cuts, reverse=True):
        raw = raw[:start] + raw[end:]
    return raw.decode("utf-8", "replace")


_SPACES = re.compile(r"\s+")
_OPEN = re.compile(r"([(\[{<]) ")
_CLOSE = re.compile(r" ([)\]}>])")
_TRAILING_COMMA = re.compile(r",\s*([)\]}])")


def normalize(text: str) -> str:
    """Whitespace-collapsed header text; layout and trailing commas are not signature changes."""
    text = _SPACES.sub(" ", text).strip()
    text = _TRAILING_COMMA.sub(r"\1", text)
    return _CLOSE.sub(r"\1", _OPEN.sub(r"\1", text))


def body_hash(*nodes: tree_sitter.Node | None) -> str:
    """Hash of the whitespace-collapsed text: layout changes are not body changes."""
    digest = hashlib.sha1()
    for node in nodes:
        if node is not None and node.text:
            digest.update(_SPACES.sub(" ", node.text.decode("utf-8", "replace")).strip().encode())
        digest.update(b"\x00")
    return digest.hexdigest()[:12]


def _companion(symbol: Symbol) -> bool:
    """A property's setter or deleter (Python `@x.setter`, JavaScript `set x`): it completes
    the definition before it instead of replacing it."""
    sig = symbol.signature
    return sig.startswith("set ") or any(
        mark in sig.split(" ", 1)[0] for mark in (".setter", ".deleter")
    )


def effective(symbols: list[Symbol]) -> list[Symbol]:
    """One symbol per name, where each stood first: the definition that takes effect, the last
    one (a later `def f` replaces an earlier one at import, an implementation its `@overload`
    stubs), except that a property's setter or deleter does not replace its getter."""
    chosen: dict[str, Symbol] = {}
    for symbol in symbols:
        if symbol.name not in chosen or not _companion(symbol):
            chosen[symbol.name] = symbol
    return list(chosen.values())
