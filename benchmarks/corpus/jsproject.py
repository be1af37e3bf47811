"""Generated JavaScript and TypeScript projects with real failures for the benchmark corpus.

Deterministic: the same files every time. The JS project is CommonJS tested with node --test
(nested describe/it and t.test subtests); some library functions carry injected bugs. The TS
project has a known set of type errors spread over many files.
"""

from __future__ import annotations

from pathlib import Path

MODULES = 12
TESTS_PER_MODULE = 25
BUGGY = {1, 4, 7, 10}  # modules whose functions carry a bug


def _module(k: int) -> str:
    off = " + 1" if k in BUGGY else ""
    throw = "if (x === 13) throw new TypeError(`unlucky value ${x}`);" if k in BUGGY else ""
    return f"""'use strict';
function scale{k}(x) {{ {throw} return x * {k + 2}{off}; }}
function pairs{k}(list) {{ return list.map((v, i) => [i, v * {k + 1}{off}]); }}
function label{k}(name) {{ return `m{k}:${{name}}`; }}
module.exports = {{ scale{k}, pairs{k}, label{k} }};
"""


def _tests(k: int) -> str:
    cases = []
    for t in range(TESTS_PER_MODULE):
        x = t + 3
        if t % 3 == 0:
            body = f"assert.strictEqual(m.scale{k}({x}), {x * (k + 2)});"
        elif t % 3 == 1:
            body = f"assert.deepStrictEqual(m.pairs{k}([{x}, {x + 1}]), [[0, {x * (k + 1)}], [1, {(x + 1) * (k + 1)}]]);"
        else:
            body = f"assert.strictEqual(m.label{k}('n{t}'), 'm{k}:n{t}');"
        cases.append(f"    it('case {t} of module {k}', () => {{ {body} }});")
    inner = "\n".join(cases)
    return f"""'use strict';
const {{ describe, it, test }} = require('node:test');
const assert = require('node:assert');
const m = require('../lib/mod{k}');

describe('module {k}', () => {{
  describe('arithmetic', () => {{
{inner}
  }});
}});

test('module {k} subtests', async (t) => {{
  await t.test('scale of 13', () => {{ assert.ok(Number.isFinite(m.scale{k}(13))); }});
  await t.test('label is a string', () => {{ assert.strictEqual(typeof m.label{k}('x'), 'string'); }});
}});
"""


def write(root: Path) -> None:
    (root / "lib").mkdir(parents=True, exist_ok=True)
    (root / "test").mkdir(parents=True, exist_ok=True)
    (root / "package.json").write_text(
        '{"name": "bench-js", "version": "1.0.0", "private": true}\n'
    )
    for k in range(MODULES):
        (root / "lib" / f"mod{k}.js").write_text(_module(k))
        (root / "test" / f"mod{k}.test.js").write_text(_tests(k))


TS_FILES = 24


def _ts_file(k: int) -> str:
    bad = k % 3 == 0
    lines = [
        f"export interface Item{k} {{ id: number; name: string; tags?: string[] }}",
        f"export function make{k}(id: number, name: string): Item{k} {{",
        "  return { id, name };",
        "}",
        f"export function total{k}(items: Item{k}[]): number {{",
        "  return items.reduce((sum, it) => sum + it.id, 0);",
        "}",
    ]
    if bad:
        lines += [
            f"const wrong{k}: number = make{k}(1, 'a').name;",
            f"make{k}('x', 2);",
            f"total{k}([{{ id: 1 }}]);",
            f"export const missing{k} = undefinedHelper{k}();",
        ]
    return "\n".join(lines) + "\n"


def write_ts(root: Path) -> None:
    (root / "src").mkdir(parents=True, exist_ok=True)
    (root / "package.json").write_text(
        '{"name": "bench-ts", "version": "1.0.0", "private": true}\n'
    )
    (root / "tsconfig.json").write_text(
        '{"compilerOptions": {"strict": true, "noEmit": true, "target": "es2020", "module": "commonjs"},'
        ' "include": ["src"]}\n'
    )
    for k in range(TS_FILES):
        (root / "src" / f"file{k}.ts").write_text(_ts_file(k))
