"""Symbols and symbol diffs for Python, JavaScript, TypeScript and TSX: each kind of change."""

from __future__ import annotations

import pytest

from summarizers.ast_scope import (
    diff_symbols,
    exports_table,
    extract_symbols,
    find_symbol,
    language_for,
)

PY = """
__all__ = ["verify", "Store", "LIMIT"]
LIMIT: int = 3
_cache = {}


def verify(token: str, *, strict: bool = False) -> bool:
    return bool(token)


def helper(x):
    return x


class Store(Base):
    kind = "mem"

    def get(self, key):
        return key

    def _hidden(self):
        pass

    @property
    def size(self) -> int:
        return 0
"""

JS = """
const LIMIT = 3;
function add(a, b) { return a + b; }
function internal() { return 1; }
class Calc {
  constructor(x) { this.x = x; }
  mul(y) { return this.x * y; }
  #secret() {}
}
const sub = (a, b) => a - b;
module.exports = { add, Calc, subtract: sub };
exports.extra = function (q) { return q; };
"""

TS = """
export interface Credential { user: string; token?: string; refresh(): Promise<void> }
export type Id = string | number;
export function verifyCredential(c: Credential, strict = false): boolean { return !!c.user; }
export class Auth<T> extends Base {
  private secret = "";
  async login(c: Credential): Promise<T> { return null as any; }
}
function local(): void {}
export { local as exportedLocal };
"""

TSX = """
import React from "react";
export function Button({ label }: { label: string }): JSX.Element {
  return <button>{label}</button>;
}
const Hidden = () => <div />;
"""


def names(source: str, language: str, public_only: bool = False) -> dict[str, str]:
    result = extract_symbols(source, language)
    assert result.error is None, result.error
    return {s.name: s.signature for s in result.symbols if s.public or not public_only}


@pytest.mark.parametrize(
    ("path", "language"),
    [
        ("a.py", "python"),
        ("a.pyi", "python"),
        ("a.js", "javascript"),
        ("a.cjs", "javascript"),
        ("a.mjs", "javascript"),
        ("a.jsx", "javascript"),
        ("a.ts", "typescript"),
        ("a.d.ts", "typescript"),
        ("a.tsx", "tsx"),
        ("README.md", None),
        ("Makefile", None),
    ],
)
def test_language_for(path: str, language: str | None) -> None:
    assert language_for(path) == language


def test_python_symbols_signatures_and_public_from_dunder_all() -> None:
    symbols = {s.name: s for s in extract_symbols(PY, "python").symbols}
    assert symbols["verify"].signature == "verify(token: str, *, strict: bool = False) -> bool"
    assert symbols["verify"].kind == "function" and symbols["verify"].public
    assert not symbols["helper"].public  # not in __all__
    assert symbols["LIMIT"].public and symbols["LIMIT"].signature == "LIMIT: int"
    assert symbols["Store"].signature == "class Store(Base)"
    assert symbols["Store.get"].kind == "method" and symbols["Store.get"].public
    assert not symbols["Store._hidden"].public
    assert symbols["Store.size"].kind == "property"
    assert symbols["verify"].line == 7


def test_javascript_commonjs_exports_decide_what_is_public() -> None:
    public = names(JS, "javascript", public_only=True)
    assert set(public) == {"add", "Calc", "Calc.constructor", "Calc.mul", "sub", "extra"}
    assert public["add"] == "add(a, b)"
    assert public["sub"] == "sub(a, b)"
    assert "internal" in names(JS, "javascript")


def test_javascript_script_without_exports_has_everything_public() -> None:
    public = names("function a(x) {}\nconst b = 2;\n", "javascript", public_only=True)
    assert public == {"a": "a(x)", "b": "const b"}


def test_typescript_symbols() -> None:
    symbols = {s.name: s for s in extract_symbols(TS, "typescript").symbols}
    assert symbols["Credential"].kind == "interface"
    assert symbols["Credential.token"].signature == "token?: string"
    assert symbols["Id"].signature == "type Id = string | number"
    assert (
        symbols["verifyCredential"].signature
        == "verifyCredential(c: Credential, strict = false): boolean"
    )
    assert symbols["Auth.login"].signature == "async login(c: Credential): Promise<T>"
    assert not symbols["Auth.secret"].public
    assert symbols["local"].public  # exported under another name


def test_tsx_parses_jsx() -> None:
    public = names(TSX, "tsx", public_only=True)
    assert public == {"Button": "Button({label}: {label: string}): JSX.Element"}


@pytest.mark.parametrize(
    ("language", "old", "new", "expect"),
    [
        (
            "python",
            "def f(a):\n    return a\n",
            "def f(a):\n    return a\n\ndef g():\n    pass\n",
            "added",
        ),
        (
            "python",
            "def f(a):\n    return a\n\ndef g():\n    pass\n",
            "def f(a):\n    return a\n",
            "removed",
        ),
        ("python", "def f(a):\n    return a\n", "def f(a, b=1):\n    return a\n", "signature"),
        ("python", "def f(a):\n    return a\n", "def f(a):\n    return a + 1\n", "body"),
        (
            "python",
            "def f(a):\n    return a\n",
            "def f(\n    a,\n):  # reformatted\n    return a\n",
            "none",
        ),
        (
            "javascript",
            "function f(a) { return a; }",
            "function f(a) { return a; }\nfunction g() {}",
            "added",
        ),
        (
            "javascript",
            "function f(a) { return a; }\nfunction g() {}",
            "function f(a) { return a; }",
            "removed",
        ),
        (
            "javascript",
            "function f(a) { return a; }",
            "function f(a, b) { return a; }",
            "signature",
        ),
        ("javascript", "function f(a) { return a; }", "function f(a) { return a * 2; }", "body"),
        ("javascript", "const f = (a) => a;", "const f = (\n  a,\n) => a;", "none"),
        (
            "typescript",
            "export function f(a: string) {}",
            "export function f(a: string) {}\nexport type T = 1;",
            "added",
        ),
        (
            "typescript",
            "export function f(a: string) {}\nexport type T = 1;",
            "export function f(a: string) {}",
            "removed",
        ),
        (
            "typescript",
            "export function f(a: string): void {}",
            "export function f(a: number): void {}",
            "signature",
        ),
        (
            "typescript",
            "export function f(a: string) { return 1; }",
            "export function f(a: string) { return 2; }",
            "body",
        ),
        ("tsx", "export const A = () => <a/>;", "export const A = (p: P) => <a/>;", "signature"),
        ("tsx", "export const A = () => <a/>;", "export const A = () => <b/>;", "body"),
    ],
)
def test_each_change_kind_in_each_language(language: str, old: str, new: str, expect: str) -> None:
    diff = diff_symbols(old, new, language)
    assert diff.error is None
    kinds = {
        "added": bool(diff.added),
        "removed": bool(diff.removed),
        "signature": bool(diff.signature_changed),
        "body": bool(diff.body_changed),
    }
    if expect == "none":
        assert not any(kinds.values())
    else:
        assert [k for k, v in kinds.items() if v] == [expect]


def test_visibility_change_is_breaking() -> None:
    old = "module.exports = { a, b };\nfunction a() {}\nfunction b() {}\n"
    new = "module.exports = { a };\nfunction a() {}\nfunction b() {}\n"
    diff = diff_symbols(old, new, "javascript")
    assert [(o.name, n.public) for o, n in diff.visibility_changed] == [("b", False)]
    assert diff.breaking == ["`b` is no longer public"]


def test_method_signature_change_is_breaking_and_private_change_is_not() -> None:
    old = "class A:\n    def m(self, x): ...\n    def _p(self): ...\n"
    new = "class A:\n    def m(self, x, y): ...\n    def _p(self, z): ...\n"
    diff = diff_symbols(old, new, "python")
    assert {o.name for o, _ in diff.signature_changed} == {"A.m", "A._p"}
    assert diff.breaking == ["`A.m`: new required parameter `y`"]


@pytest.mark.parametrize(
    ("language", "source", "line", "column"),
    [
        ("python", "def ok():\n    pass\n\ndef broken(:\n    pass\n", 4, 12),
        ("javascript", "function ok() {}\nfunction broken( {\n", 2, 1),
        ("typescript", "export const x: number = ;\n", 1, 24),
        ("tsx", "function ok() {}\nexport const A = () => <div>;\n", 2, 1),
    ],
)
def test_syntax_errors_are_reported_with_position_not_raised(
    language: str, source: str, line: int, column: int
) -> None:
    result = extract_symbols(source, language)
    assert result.error is not None
    assert (result.error.line, result.error.column) == (line, column)  # first ERROR/MISSING node
    diff = diff_symbols("x = 1\n" if language == "python" else "const x = 1;", source, language)
    assert diff.error is not None and diff.error.line == line
    assert not diff.added and not diff.removed


def test_old_version_not_parsing_is_reported_as_such() -> None:
    diff = diff_symbols("def f(:\n", "def f():\n    pass\n", "python")
    assert diff.error is not None and diff.error.message.startswith("old version:")


@pytest.mark.parametrize("language", ["python", "javascript", "typescript", "tsx"])
def test_empty_and_binary_files(language: str) -> None:
    assert extract_symbols("", language).symbols == []
    assert extract_symbols("", language).error is None
    binary = extract_symbols("\x00\x01\x02garbage", language)
    assert binary.symbols == [] and binary.error is not None
    assert "binary" in binary.error.message


def test_find_symbol_by_plain_and_qualified_name() -> None:
    assert find_symbol(PY, "python", "verify").name == "verify"  # type: ignore[union-attr]
    assert find_symbol(PY, "python", "Store.get").kind == "method"  # type: ignore[union-attr]
    assert find_symbol(PY, "python", "get").name == "Store.get"  # type: ignore[union-attr]
    assert find_symbol(PY, "python", "Nope.get") is None
    assert find_symbol(TS, "typescript", "verifyCredential") is not None


def test_exports_table_lists_only_changed_exports_across_files() -> None:
    diffs = {
        "src/auth.ts": diff_symbols(
            TS, TS.replace("strict = false", "strict: boolean"), "typescript"
        ),
        "lib/store.py": diff_symbols(PY, PY.replace("def helper(x)", "def helper(x, y)"), "python"),
        "lib/broken.py": diff_symbols(PY, PY + "\ndef oops(:\n", "python"),
        "lib/calc.js": diff_symbols(
            JS, JS.replace("function add(a, b)", "function add(a)"), "javascript"
        ),
    }
    table = exports_table(diffs)
    rows = table.splitlines()
    assert rows[0] == "| file | symbol | change | before | after |"
    assert any(
        "src/auth.ts" in r and "verifyCredential" in r and "signature changed" in r for r in rows
    )
    assert any("lib/calc.js" in r and "add" in r and "`add(a, b)`" in r for r in rows)
    assert any("lib/broken.py" in r and "does not parse" in r for r in rows)
    assert not any("helper" in r for r in rows)  # private in lib/store.py: not an export
    assert exports_table({"a.py": diff_symbols(PY, PY, "python")}) == "No exported symbols changed."


def test_tsc_commonjs_preamble_declares_exports_without_defining_them() -> None:
    """tsc emits `exports.b = exports.a = void 0;` before the real assignments."""
    src = (
        '"use strict";\nexports.b = exports.a = void 0;\nfunction a(x) { return x; }\n'
        "exports.a = a;\nconst bImpl = (y) => y;\nexports.b = bImpl;\n"
        "exports.c = exports.d = function (z) { return z; };\n"
    )
    public = names(src, "javascript", public_only=True)
    assert public == {"a": "a(x)", "bImpl": "bImpl(y)", "c": "c(z)"}
