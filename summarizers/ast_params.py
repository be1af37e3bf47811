"""Parameter lists read from tree-sitter nodes, so a compatibility judgement can reason about
calls (positions, names, defaults, `*args`) instead of comparing header text."""

from __future__ import annotations

import tree_sitter

from summarizers.ast_common import Call, Param, normalize, text_of, text_without_comments

POSITIONAL_ONLY = "positional_only"
POSITIONAL_OR_KEYWORD = "positional_or_keyword"
KEYWORD_ONLY = "keyword_only"
VAR_POSITIONAL = "var_positional"
VAR_KEYWORD = "var_keyword"


def _clean(node: tree_sitter.Node | None) -> str:
    return normalize(text_without_comments(node)) if node is not None else ""


def python_call(function: tree_sitter.Node, *, drop_first: bool) -> Call:
    """A `def`'s parameters; `drop_first` leaves out the `self` or `cls` a method gets bound."""
    params: list[Param] = []
    kind = POSITIONAL_OR_KEYWORD
    node = function.child_by_field_name("parameters")
    for child in node.named_children if node is not None else []:
        kind_after, param = _python_param(child, kind)
        if child.type == "positional_separator":
            params = [
                Param(p.name, POSITIONAL_ONLY, p.optional, p.annotation, p.default)
                if p.kind == POSITIONAL_OR_KEYWORD
                else p
                for p in params
            ]
        kind = kind_after
        if param is not None:
            params.append(param)
    if drop_first and params and params[0].kind in (POSITIONAL_ONLY, POSITIONAL_OR_KEYWORD):
        params = params[1:]
    return Call(
        tuple(params),
        returns=_clean(function.child_by_field_name("return_type")),
        is_async=any(c.type == "async" for c in function.children),
    )


def _python_param(node: tree_sitter.Node, kind: str) -> tuple[str, Param | None]:
    """(the kind of the parameters after this one, this parameter or None for a separator)."""
    if node.type == "keyword_separator":
        return KEYWORD_ONLY, None
    if node.type in ("positional_separator", "comment"):
        return kind, None
    annotation = _clean(node.child_by_field_name("type"))
    default = _clean(node.child_by_field_name("value"))
    target = node.child_by_field_name("name")
    if node.type == "typed_parameter":
        target = next((c for c in node.named_children if c.type != "type"), None)
    target = target or node
    if target.type == "list_splat_pattern":
        return KEYWORD_ONLY, Param(_splat_name(target), VAR_POSITIONAL, annotation=annotation)
    if target.type == "dictionary_splat_pattern":
        return kind, Param(_splat_name(target), VAR_KEYWORD, annotation=annotation)
    name = text_of(target)
    return kind, Param(name, kind, bool(default), annotation, default)


def _splat_name(node: tree_sitter.Node) -> str:
    return next((text_of(c) for c in node.named_children if c.type == "identifier"), "")


def js_call(function: tree_sitter.Node) -> Call:
    """A JavaScript or TypeScript function's parameters; every one is positional to callers."""
    node = function.child_by_field_name("parameters")
    single = function.child_by_field_name("parameter")
    children = node.named_children if node is not None else ([single] if single else [])
    params = [p for p in (_js_param(c) for c in children) if p is not None]
    returns = _clean(function.child_by_field_name("return_type")).removeprefix(":").strip()
    return Call(
        tuple(params), returns=returns, is_async=any(c.type == "async" for c in function.children)
    )


def _js_param(node: tree_sitter.Node) -> Param | None:
    if node.type == "comment":
        return None
    annotation = ""
    default = ""
    optional = False
    pattern: tree_sitter.Node | None = node
    if node.type in ("required_parameter", "optional_parameter"):
        pattern = node.child_by_field_name("pattern")
        annotation = _clean(node.child_by_field_name("type")).removeprefix(":").strip()
        default = _clean(node.child_by_field_name("value"))
        optional = node.type == "optional_parameter" or bool(default)
    if pattern is None or pattern.type == "this":
        return None
    if pattern.type == "assignment_pattern":
        default = _clean(pattern.child_by_field_name("right"))
        optional = True
        pattern = pattern.child_by_field_name("left")
        if pattern is None:
            return None
    if pattern.type == "rest_pattern":
        inner = next(iter(pattern.named_children), None)
        return Param(_clean(inner), VAR_POSITIONAL, annotation=annotation)
    named = pattern.type == "identifier"
    return Param(_clean(pattern), POSITIONAL_ONLY, optional, annotation, default, named)
