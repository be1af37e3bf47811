"""Where tests are defined in a test file's source, by title path, so that "the tests a step
added or changed in a file" can be told apart from the tests already there.

Python: test functions and `Test*` classes' test methods (`Class`, `test_x`). JavaScript and
TypeScript: the calls every runner of theirs shares (`describe`/`suite`/`context` blocks
around `test`/`it`/`specify` calls, with `.only`, `.skip`, `.each` variants; node-tap's and
node's `t.test(...)`), each named by its string title. A run's ids end with such a path
however the runner spells the rest (`file::Class::test[param]`, `pkg.mod.Class.test`,
`file > describe > test`): `matches` compares the tails.
"""

from __future__ import annotations

import re

import tree_sitter

from summarizers.ast_common import body_hash, language_for, parse_tree
from summarizers.ast_scope import extract_symbols

_BLOCKS = frozenset({"describe", "suite", "context", "fdescribe", "xdescribe"})
_TESTS = frozenset({"test", "it", "specify", "fit", "xit", "xtest"})
_SPLIT = re.compile(r"::| > |\.")
_PARAMS = re.compile(r"\[.*\]$")


def test_definitions(text: str, path: str) -> dict[tuple[str, ...], str] | None:
    """Title path -> a hash of its source; None when the file's language is not read here."""
    language = language_for(path)
    if language == "python":
        return _python(text)
    if language in ("javascript", "typescript", "tsx"):
        return _javascript(text, language)
    return None


def changed_tests(before: str | None, after: str, path: str) -> list[tuple[str, ...]] | None:
    """Title paths of the tests added or changed from `before` (None: a new file) to
    `after`; None when the language is not read here."""
    now = test_definitions(after, path)
    if now is None:
        return None
    old = test_definitions(before, path) if before is not None else {}
    return [title for title, digest in now.items() if (old or {}).get(title) != digest]


def matches(test_id: str, title: tuple[str, ...]) -> bool:
    """Whether a run's id names the test at `title` (its last parts, parameters aside)."""
    if not title:
        return False
    parts = [_PARAMS.sub("", p).strip() for p in _split(test_id)]
    return len(parts) >= len(title) and tuple(parts[-len(title) :]) == title


def _split(test_id: str) -> list[str]:
    if " > " in test_id:
        return test_id.split(" > ")
    if "::" in test_id:
        return test_id.split("::")
    return _SPLIT.split(test_id)


def _python(text: str) -> dict[tuple[str, ...], str]:
    found: dict[tuple[str, ...], str] = {}
    for symbol in extract_symbols(text, "python").symbols:
        parts = tuple(symbol.name.split("."))
        if symbol.kind == "class" or not parts[-1].startswith("test"):
            continue
        if len(parts) > 1 and not parts[0].startswith("Test"):
            continue
        found[parts] = f"{symbol.signature}\0{symbol.body_hash}"
    return found


def _javascript(text: str, language: str) -> dict[tuple[str, ...], str]:
    found: dict[tuple[str, ...], str] = {}
    root = parse_tree(text, language).root_node
    _walk(root, (), found)
    return found


def _walk(
    node: tree_sitter.Node, inside: tuple[str, ...], found: dict[tuple[str, ...], str]
) -> None:
    for child in node.children:
        call = _test_call(child)
        if call is None:
            _walk(child, inside, found)
            continue
        kind, title, body = call
        path = (*inside, title)
        if kind == "test":
            found[path] = body_hash(child)
        if body is not None:
            _walk(body, path if kind == "block" or kind == "test" else inside, found)


def _test_call(node: tree_sitter.Node) -> tuple[str, str, tree_sitter.Node | None] | None:
    """(`block` | `test`, its title, its callback's body) for `describe('x', fn)`,
    `it.only('x', fn)`, `test.each(table)('x', fn)`, `t.test('x', fn)`."""
    if node.type != "call_expression":
        return None
    callee = node.child_by_field_name("function")
    args = node.child_by_field_name("arguments")
    if callee is None or args is None:
        return None
    name = _callee_name(callee)
    if name is None:
        return None
    kind = "block" if name in _BLOCKS else "test" if name in _TESTS else None
    if kind is None:
        return None
    values = [a for a in args.named_children if a.type != "comment"]
    if not values or values[0].type not in ("string", "template_string"):
        return None
    title = (values[0].text or b"").decode("utf-8", "replace")[1:-1]
    body = next(
        (v for v in values[1:] if v.type in ("arrow_function", "function_expression", "function")),
        None,
    )
    return kind, title, body


def _callee_name(callee: tree_sitter.Node) -> str | None:
    """`it` of `it`, `it.only`, `it.each(...)`, `t.test` (as `test`)."""
    while callee.type == "call_expression":
        inner = callee.child_by_field_name("function")
        if inner is None:
            return None
        callee = inner
    if callee.type == "identifier":
        return (callee.text or b"").decode()
    if callee.type == "member_expression":
        obj = callee.child_by_field_name("object")
        prop = callee.child_by_field_name("property")
        names = [(n.text or b"").decode() for n in (obj, prop) if n is not None]
        if names and names[0] in _BLOCKS | _TESTS:
            return names[0]
        if len(names) == 2 and names[1] == "test":
            return "test"
    return None
