"""Python symbols: functions, classes, methods and assignments at module and class level."""

from __future__ import annotations

import tree_sitter

from summarizers.ast_common import (
    Symbol,
    body_hash,
    effective,
    normalize,
    text_of,
    text_without_comments,
)
from summarizers.ast_params import python_call

_COMPOUND = {
    "if_statement",
    "elif_clause",
    "else_clause",
    "try_statement",
    "except_clause",
    "finally_clause",
    "with_statement",
    "block",
}
_API_DECORATORS = {"staticmethod", "classmethod", "property", "overload", "abstractmethod"}


def symbols(root: tree_sitter.Node, *, every: bool = False) -> list[Symbol]:
    """One symbol per name, the definition that takes effect (`ast_common.effective`); with
    `every`, each definition, in order."""
    exported = _dunder_all(root)
    out: list[Symbol] = []
    for node in _statements(root):
        out += _definition(node, prefix="", owner_public=True, exported=exported)
    return out if every else effective(out)


def _statements(block: tree_sitter.Node) -> list[tree_sitter.Node]:
    """Statements of a block, looking through if/try/with but not into functions or classes."""
    out = []
    for child in block.named_children:
        if child.type in _COMPOUND:
            out += _statements(child)
        else:
            out.append(child)
    return out


def _is_public(name: str, exported: set[str] | None, top_level: bool) -> bool:
    if top_level and exported is not None:
        return name in exported
    if name.startswith("__") and name.endswith("__"):
        return True
    return not name.startswith("_")


def _definition(
    node: tree_sitter.Node, prefix: str, owner_public: bool, exported: set[str] | None
) -> list[Symbol]:
    decorators: list[str] = []
    if node.type == "decorated_definition":
        decorators = [_decorator_name(d) for d in node.named_children if d.type == "decorator"]
        inner = node.child_by_field_name("definition")
        if inner is None:
            return []
        node = inner
    top = not prefix
    if node.type == "function_definition":
        return [_function(node, prefix, owner_public, exported, decorators)]
    if node.type == "class_definition":
        return _class(node, prefix, owner_public, exported)
    if node.type == "expression_statement" and node.named_children:
        first = node.named_children[0]
        if first.type == "assignment":
            return _assignment(first, prefix, owner_public, exported, top)
    return []


def _decorator_nodes(node: tree_sitter.Node) -> list[tree_sitter.Node]:
    """A function's decorators, part of what it is: cases added to a
    `@parameterized.expand([...])` list change the tests it makes (the dateparser live trial:
    a proven regression test was "no test changed" for want of this)."""
    parent = node.parent
    if parent is None or parent.type != "decorated_definition":
        return []
    return [c for c in parent.children if c.type == "decorator"]


def _decorator_name(decorator: tree_sitter.Node) -> str:
    text = text_of(decorator).lstrip("@").strip()
    return text.split("(", 1)[0].strip()


def _function(
    node: tree_sitter.Node,
    prefix: str,
    owner_public: bool,
    exported: set[str] | None,
    decorators: list[str],
) -> Symbol:
    name = text_of(node.child_by_field_name("name"))
    params = normalize(text_without_comments(node.child_by_field_name("parameters")))
    ret = node.child_by_field_name("return_type")
    is_async = any(c.type == "async" for c in node.children)
    marks = [
        d for d in decorators if d.rsplit(".", 1)[-1] in _API_DECORATORS or d.endswith(".setter")
    ]
    signature = "".join(f"@{d} " for d in marks) + ("async " if is_async else "") + name + params
    if ret is not None:
        signature += f" -> {normalize(text_without_comments(ret))}"
    kind = "function" if not prefix else ("property" if "property" in marks else "method")
    qualified = f"{prefix}{name}"
    public = owner_public and _is_public(name, exported, not prefix)
    bound = bool(prefix) and not any(d.rsplit(".", 1)[-1] == "staticmethod" for d in marks)
    return Symbol(
        qualified,
        kind,
        signature,
        node.start_point[0] + 1,
        public,
        body_hash(node.child_by_field_name("body"), *_decorator_nodes(node)),
        python_call(node, drop_first=bound),
    )


def _class(
    node: tree_sitter.Node, prefix: str, owner_public: bool, exported: set[str] | None
) -> list[Symbol]:
    name = text_of(node.child_by_field_name("name"))
    bases = node.child_by_field_name("superclasses")
    type_params = node.child_by_field_name("type_parameters")
    signature = "class " + name + normalize(text_without_comments(type_params))
    signature += normalize(text_without_comments(bases))
    qualified = f"{prefix}{name}"
    public = owner_public and _is_public(name, exported, not prefix)
    body = node.child_by_field_name("body")
    members = [c for c in _statements(body)] if body is not None else []
    own = [
        m
        for m in members
        if m.type not in ("function_definition", "decorated_definition", "class_definition")
    ]
    out = [Symbol(qualified, "class", signature, node.start_point[0] + 1, public, body_hash(*own))]
    for member in members:
        out += _definition(member, f"{qualified}.", public, None)
    return out


def _assignment(
    node: tree_sitter.Node, prefix: str, owner_public: bool, exported: set[str] | None, top: bool
) -> list[Symbol]:
    left = node.child_by_field_name("left")
    annotation = node.child_by_field_name("type")
    value = node.child_by_field_name("right")
    if left is None:
        return []
    names = (
        [left]
        if left.type == "identifier"
        else [n for n in left.named_children if n.type == "identifier"]
    )
    out = []
    for ident in names:
        name = text_of(ident)
        if name == "__all__":
            continue
        signature = name + (
            f": {normalize(text_without_comments(annotation))}" if annotation else ""
        )
        public = owner_public and _is_public(name, exported, top)
        out.append(
            Symbol(
                f"{prefix}{name}",
                "variable",
                signature,
                node.start_point[0] + 1,
                public,
                body_hash(value),
            )
        )
    return out


def _dunder_all(root: tree_sitter.Node) -> set[str] | None:
    """Names listed in a module-level `__all__` (= or +=), or None when there is none."""
    names: set[str] | None = None
    for node in _statements(root):
        if node.type != "expression_statement" or not node.named_children:
            continue
        stmt = node.named_children[0]
        if stmt.type not in ("assignment", "augmented_assignment"):
            continue
        if text_of(stmt.child_by_field_name("left")) != "__all__":
            continue
        value = stmt.child_by_field_name("right")
        names = names or set()
        for item in value.named_children if value is not None else []:
            if item.type == "string":
                content = [c for c in item.named_children if c.type == "string_content"]
                names.add(text_of(content[0]) if content else "")
    return names
