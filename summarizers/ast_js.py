"""JavaScript and TypeScript symbols, with exports from ES modules and CommonJS.

Public means exported. A module with ES `export`s exports exactly those; one without them but
with `module.exports = {...}` / `exports.a = ...` (the CommonJS the fixtures use with node
--test) exports those names; a script that exports nothing has every top-level name public.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import tree_sitter

from summarizers.ast_common import (
    Symbol,
    body_hash,
    effective,
    normalize,
    text_of,
    text_without_comments,
)
from summarizers.ast_params import js_call

_FUNCTION_VALUES = {"arrow_function", "function_expression", "function", "generator_function"}
_CLASS_VALUES = {"class", "class_expression"}
_MODIFIERS = {"static", "async", "get", "set", "*", "readonly", "abstract", "override", "declare"}


DEFAULT_EXPORT = "default"
"""The name of what `module.exports = function (...) {...}` exports, as ES `export default`."""


@dataclass
class _Exports:
    es: bool = False
    commonjs: bool = False
    opaque: bool = False  # module.exports = something we cannot list
    names: set[str] = field(default_factory=set)


def symbols(root: tree_sitter.Node, *, every: bool = False) -> list[Symbol]:
    """One symbol per name, the definition that takes effect (`ast_common.effective`); with
    `every`, each definition, in order."""
    exports = _Exports()
    found: list[tuple[Symbol, bool]] = []  # (symbol, declared inside an export statement)
    for node in root.named_children:
        if node.type == "export_statement":
            exports.es = True
            found += _export_statement(node, exports)
        elif node.type == "expression_statement":
            found += _commonjs(node, exports)
        else:
            found += [(s, False) for s in _declaration(node, "")]
    if exports.es:
        public_top = {s.name for s, inside in found if inside} | exports.names
    elif exports.commonjs and not exports.opaque:
        public_top = exports.names
    else:
        public_top = {s.name for s, _ in found if "." not in s.name}
    out: list[Symbol] = []
    for sym, _ in found:
        owner = sym.name if sym.kind == "reexport" else sym.name.split(".", 1)[0]
        public = sym.kind == "reexport" or (owner in public_top and sym.public)
        out.append(replace(sym, public=public))
    return out if every else effective(out)


def _export_statement(node: tree_sitter.Node, exports: _Exports) -> list[tuple[Symbol, bool]]:
    declaration = node.child_by_field_name("declaration")
    if declaration is not None:
        return [(s, True) for s in _declaration(declaration, "")]
    value = node.child_by_field_name("value")
    is_default = any(c.type == "default" for c in node.children)
    source = node.child_by_field_name("source")
    out: list[tuple[Symbol, bool]] = []
    for child in node.named_children:
        if child.type in (
            "function_declaration",
            "class_declaration",
            "generator_function_declaration",
        ):
            out += [(s, True) for s in _declaration(child, "")]
        elif child.type == "export_clause":
            for spec in child.named_children:
                local = text_of(spec.child_by_field_name("name"))
                alias = text_of(spec.child_by_field_name("alias")) or local
                if source is not None:
                    sig = normalize(f"export {{ {text_of(spec)} }} from {text_of(source)}")
                    out.append(
                        (Symbol(alias, "reexport", sig, node.start_point[0] + 1, True, ""), True)
                    )
                else:
                    exports.names.add(local)
    if value is not None and is_default:
        if value.type == "identifier":
            exports.names.add(text_of(value))
        elif value.type in _FUNCTION_VALUES | _CLASS_VALUES:
            out += [(s, True) for s in _valued("default", value, node, "")]
    if source is not None and not out and not node.named_children[:1] == []:
        if not any(c.type == "export_clause" for c in node.named_children):
            sig = normalize(f"export * from {text_of(source)}")
            out.append(
                (
                    Symbol(
                        f"* from {text_of(source)}",
                        "reexport",
                        sig,
                        node.start_point[0] + 1,
                        True,
                        "",
                    ),
                    True,
                )
            )
    return out


def _commonjs(node: tree_sitter.Node, exports: _Exports) -> list[tuple[Symbol, bool]]:
    expr = node.named_children[0] if node.named_children else None
    if expr is None or expr.type != "assignment_expression":
        return []
    left, right = expr.child_by_field_name("left"), expr.child_by_field_name("right")
    target = text_of(left)
    if target == "module.exports" and right is not None:
        exports.commonjs = True
        if right.type == "object":
            for member in right.named_children:
                if member.type == "shorthand_property_identifier":
                    exports.names.add(text_of(member))
                elif member.type == "pair":
                    key = text_of(member.child_by_field_name("key")).strip("'\"")
                    value = member.child_by_field_name("value")
                    exports.names.add(key)
                    if value is not None and value.type == "identifier":
                        exports.names.add(text_of(value))
                    elif value is not None and value.type in _FUNCTION_VALUES | _CLASS_VALUES:
                        return [(s, False) for s in _valued(key, value, node, "")]
                elif member.type == "method_definition":
                    exports.names.add(text_of(member.child_by_field_name("name")))
        elif right.type == "identifier":
            exports.names.add(text_of(right))
        elif right.type in _FUNCTION_VALUES | _CLASS_VALUES:
            exports.names.add(DEFAULT_EXPORT)  # the module is this one function or class
            return [(s, False) for s in _valued(DEFAULT_EXPORT, right, node, "")]
        else:
            exports.opaque = True
        return []
    for prefix in ("module.exports.", "exports."):
        if target.startswith(prefix) and right is not None:
            exports.commonjs = True
            name = target[len(prefix) :]
            exports.names.add(name)
            while right.type == "assignment_expression":  # exports.a = exports.b = ...
                chained = text_of(right.child_by_field_name("left"))
                exports.names.add(chained.removeprefix("module.").removeprefix("exports."))
                right = right.child_by_field_name("right") or right
            if text_of(right) == "void 0":  # tsc's preamble declares names, defines nothing
                return []
            if right.type == "identifier":
                exports.names.add(text_of(right))
                return []
            return [(s, False) for s in _valued(name, right, node, "")]
    return []


def _declaration(node: tree_sitter.Node, prefix: str) -> list[Symbol]:
    kind = node.type
    if kind in ("function_declaration", "generator_function_declaration", "function_signature"):
        return [_function_symbol(node, prefix, node.child_by_field_name("name"), node)]
    if kind in ("class_declaration", "abstract_class_declaration", "class"):
        return _class(node, prefix)
    if kind in ("lexical_declaration", "variable_declaration"):
        keyword = text_of(node.children[0]) if node.children else "var"
        out = []
        for declarator in node.named_children:
            if declarator.type != "variable_declarator":
                continue
            name_node = declarator.child_by_field_name("name")
            if name_node is None or name_node.type != "identifier":
                continue
            value = declarator.child_by_field_name("value")
            out += _valued(text_of(name_node), value, declarator, prefix, keyword)
        return out
    if kind == "interface_declaration":
        return _interface(node, prefix)
    if kind == "type_alias_declaration":
        name = text_of(node.child_by_field_name("name"))
        sig = normalize(text_without_comments(node)).rstrip(";")
        return [
            Symbol(
                prefix + name,
                "type",
                sig,
                node.start_point[0] + 1,
                True,
                body_hash(node.child_by_field_name("value")),
            )
        ]
    if kind == "enum_declaration":
        name = text_of(node.child_by_field_name("name"))
        sig = normalize(text_without_comments(node))
        return [
            Symbol(
                prefix + name,
                "enum",
                sig,
                node.start_point[0] + 1,
                True,
                body_hash(node.child_by_field_name("body")),
            )
        ]
    if kind == "ambient_declaration":
        return [s for child in node.named_children for s in _declaration(child, prefix)]
    return []


def _valued(
    name: str,
    value: tree_sitter.Node | None,
    anchor: tree_sitter.Node,
    prefix: str,
    keyword: str = "",
) -> list[Symbol]:
    if value is not None and value.type in _FUNCTION_VALUES:
        return [_function_symbol(value, prefix, None, anchor, name)]
    if value is not None and value.type in _CLASS_VALUES:
        return _class(value, prefix, name)
    type_node = anchor.child_by_field_name("type") if anchor.type == "variable_declarator" else None
    sig = f"{keyword} {name}".strip() + (
        normalize(text_without_comments(type_node)) if type_node else ""
    )
    return [
        Symbol(prefix + name, "variable", sig, anchor.start_point[0] + 1, True, body_hash(value))
    ]


def _function_symbol(
    node: tree_sitter.Node,
    prefix: str,
    name_node: tree_sitter.Node | None,
    anchor: tree_sitter.Node,
    name: str | None = None,
) -> Symbol:
    name = name or text_of(name_node)
    params = node.child_by_field_name("parameters")
    params_text = normalize(text_without_comments(params)) if params is not None else ""
    if params is None and node.child_by_field_name("parameter") is not None:
        params_text = f"({text_of(node.child_by_field_name('parameter'))})"
    type_params = normalize(text_without_comments(node.child_by_field_name("type_parameters")))
    ret = node.child_by_field_name("return_type")
    marks = [text_of(c) for c in node.children if c.type in ("async", "*")]
    sig = "".join(f"{m} " if m != "*" else "*" for m in marks) + name + type_params + params_text
    if ret is not None:
        sig += normalize(text_without_comments(ret))
    return Symbol(
        prefix + name,
        "function",
        sig,
        anchor.start_point[0] + 1,
        True,
        body_hash(node.child_by_field_name("body")),
        js_call(node),
    )


def _class(node: tree_sitter.Node, prefix: str, name: str | None = None) -> list[Symbol]:
    name = name or text_of(node.child_by_field_name("name")) or "default"
    heritage = next((c for c in node.named_children if c.type == "class_heritage"), None)
    type_params = node.child_by_field_name("type_parameters")
    abstract = "abstract " if node.type == "abstract_class_declaration" else ""
    sig = normalize(
        f"{abstract}class {name}{text_without_comments(type_params)} {text_without_comments(heritage)}"
    )
    body = node.child_by_field_name("body")
    members = body.named_children if body is not None else []
    fields = [
        m
        for m in members
        if m.type not in ("method_definition", "abstract_method_signature", "comment")
    ]
    qualified = prefix + name
    out = [Symbol(qualified, "class", sig, node.start_point[0] + 1, True, body_hash(*fields))]
    for member in members:
        sym = _member(member, qualified + ".")
        if sym is not None:
            out.append(sym)
    return out


def _member(node: tree_sitter.Node, prefix: str) -> Symbol | None:
    name_node = node.child_by_field_name("name")
    if name_node is None:
        return None
    name = text_of(name_node)
    access = next((text_of(c) for c in node.children if c.type == "accessibility_modifier"), "")
    public = not name.startswith("#") and access != "private"
    modifiers = [
        text_of(c)
        for c in node.children
        if text_of(c) in _MODIFIERS and c.end_byte <= name_node.start_byte
    ]
    head = " ".join([access, *modifiers]).strip()
    if node.type in ("method_definition", "abstract_method_signature", "method_signature"):
        params = normalize(text_without_comments(node.child_by_field_name("parameters")))
        type_params = normalize(text_without_comments(node.child_by_field_name("type_parameters")))
        ret = node.child_by_field_name("return_type")
        sig = f"{head} {name}{type_params}{params}".strip() + (
            normalize(text_without_comments(ret)) if ret else ""
        )
        kind = "property" if "get" in modifiers or "set" in modifiers else "method"
        return Symbol(
            prefix + name,
            kind,
            sig,
            node.start_point[0] + 1,
            public,
            body_hash(node.child_by_field_name("body")),
            js_call(node) if kind == "method" else None,
        )
    if node.type in ("public_field_definition", "field_definition", "property_signature"):
        type_node = node.child_by_field_name("type")
        optional = "?" if any(c.type == "?" for c in node.children) else ""
        sig = f"{head} {name}{optional}".strip() + (
            normalize(text_without_comments(type_node)) if type_node else ""
        )
        return Symbol(
            prefix + name,
            "property",
            sig,
            node.start_point[0] + 1,
            public,
            body_hash(node.child_by_field_name("value")),
        )
    return None


def _interface(node: tree_sitter.Node, prefix: str) -> list[Symbol]:
    name = text_of(node.child_by_field_name("name"))
    type_params = node.child_by_field_name("type_parameters")
    extends = next((c for c in node.named_children if c.type == "extends_type_clause"), None)
    sig = normalize(
        f"interface {name}{text_without_comments(type_params)} {text_without_comments(extends)}"
    )
    body = node.child_by_field_name("body")
    qualified = prefix + name
    out = [Symbol(qualified, "interface", sig, node.start_point[0] + 1, True, body_hash(body))]
    for member in body.named_children if body is not None else []:
        sym = _member(member, qualified + ".")
        if sym is not None:
            out.append(sym)
    return out
