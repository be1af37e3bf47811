"""Real git repositories with a `main` base and a `feature` head, in Python and in JavaScript."""

from __future__ import annotations

from pathlib import Path

from gitrepo import git as run_git

FAST_PYTEST = "PYTEST_DISABLE_PLUGIN_AUTOLOAD=1 python -m pytest -q"
"""The host's pytest plugins cost seconds per run and these repositories need none."""


def git(repo: Path, *args: str) -> str:
    return run_git(repo, *args).strip()


def write(repo: Path, files: dict[str, str | None]) -> None:
    for rel, text in files.items():
        path = repo / rel
        if text is None:
            path.unlink()
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def commit_all(repo: Path, message: str) -> str:
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", message)
    return git(repo, "rev-parse", "HEAD")


def init_repo(repo: Path) -> None:
    repo.mkdir(parents=True, exist_ok=True)
    git(repo, "init", "-q", "-b", "main")
    git(repo, "config", "user.email", "test@example.com")
    git(repo, "config", "user.name", "Test")
    git(repo, "config", "commit.gpgsign", "false")


PY_BASE = {
    "calc.py": (
        "def add(a, b):\n    return a + b\n\n\n"
        "def scale(value, factor):\n    return value * factor\n\n\n"
        "def obsolete(x):\n    return x\n\n\n"
        "def _helper(x):\n    return x\n"
    ),
    "app.py": (
        "from calc import obsolete, scale\n\n\n"
        "def run():\n    return scale(value=2, factor=3) + obsolete(1)\n"
    ),
    "test_calc.py": (
        "from calc import add, scale\n\n\n"
        "def test_add():\n    assert add(2, 3) == 5\n\n\n"
        "def test_scale():\n    assert scale(2, 3) == 6\n\n\n"
        "def test_known_bug():\n    assert add(0.1, 0.2) == 0.3\n"
    ),
}

PY_HEAD = {
    "calc.py": (
        "def add(a, b):\n    total = a + b\n    return total\n\n\n"
        "def scale(value, times):\n    return value * times\n\n\n"
        "def _helper(x, y=0):\n    return x + y\n"
    ),
    "extra.py": "def triple(x):\n    return x * 2\n",
    "test_extra.py": (
        "from extra import triple\n\n\ndef test_triple():\n    assert triple(3) == 9\n"
    ),
}


def python_pr(root: Path) -> tuple[Path, str, str]:
    """A repo whose `feature` renames a parameter, removes a function, adds a file and a
    failing test; `test_known_bug` fails on both sides. Returns (repo, base sha, head sha)."""
    repo = root / "pyrepo"
    init_repo(repo)
    write(repo, PY_BASE)
    base = commit_all(repo, "base")
    git(repo, "checkout", "-q", "-b", "feature")
    write(repo, PY_HEAD)
    head = commit_all(repo, "feature")
    git(repo, "checkout", "-q", "main")
    return repo, base, head


JS_BASE = {
    "package.json": '{"name": "demo", "version": "1.0.0", "type": "module"}\n',
    "src/math.js": (
        "export function add(a, b) {\n  return a + b;\n}\n\n"
        "export function remove(list, item) {\n  return list.filter((x) => x !== item);\n}\n\n"
        "function internal(x) {\n  return x;\n}\n"
    ),
    "src/use.js": (
        'import { add, remove } from "./math.js";\n\n'
        "export function total(xs) {\n  return remove(xs, 0).reduce((s, x) => add(s, x), 0);\n}\n"
    ),
    "src/greet.ts": ("export function greet(name: string): string {\n  return `hi ${name}`;\n}\n"),
    "test/math.test.js": (
        'import { test } from "node:test";\nimport assert from "node:assert";\n'
        'import { add } from "../src/math.js";\n\n'
        'test("add", () => {\n  assert.strictEqual(add(2, 3), 5);\n});\n'
    ),
}

JS_HEAD = {
    "src/math.js": (
        "export function add(a, b, c = 0) {\n  return a + b + c;\n}\n\n"
        "function internal(x) {\n  return x;\n}\n"
    ),
    "src/greet.ts": (
        "export function greet(name: string, loud: boolean): string {\n"
        "  return loud ? `HI ${name}` : `hi ${name}`;\n}\n"
    ),
    "src/extra.js": "export function double(x) {\n  return x * 3;\n}\n",
    "test/extra.test.js": (
        'import { test } from "node:test";\nimport assert from "node:assert";\n'
        'import { double } from "../src/extra.js";\n\n'
        'test("double", () => {\n  assert.strictEqual(double(2), 4);\n});\n'
    ),
}


def js_pr(root: Path) -> tuple[Path, str, str]:
    repo = root / "jsrepo"
    init_repo(repo)
    write(repo, JS_BASE)
    base = commit_all(repo, "base")
    git(repo, "checkout", "-q", "-b", "feature")
    write(repo, JS_HEAD)
    head = commit_all(repo, "feature")
    git(repo, "checkout", "-q", "main")
    return repo, base, head


SHAPES_BASE = {
    "config.py": "SCALE = 2\n",
    "shapes.py": (
        "from config import SCALE\n\n\n"
        "def area(w, h):\n    return w * h\n\n\n"
        "def perimeter(w, h):\n    return 2 * (w + h)\n\n\n"
        'def describe(w, h):\n    return f"{w}x{h}"\n'
    ),
    "test_shapes.py": (
        "from shapes import area, describe, perimeter\n\n\n"
        "def test_area():\n    assert area(2, 3) == 6\n\n\n"
        "def test_perimeter():\n    assert perimeter(2, 3) == 10\n\n\n"
        'def test_describe():\n    assert describe(2, 3) == "2 x 3"\n'
    ),
}
SHAPES_AREA = "    return w * h * SCALE\n"
SHAPES_PERIMETER = "    return 2 * w + 2 * h\n"
SHAPES_TITLE = "Scale areas by the configured unit"
SHAPES_MESSAGE = (
    f"{SHAPES_TITLE}\n\nArea now honours SCALE from config.py.\nPerimeter is spelled out."
)


def shapes_pr(root: Path) -> tuple[Path, str, str]:
    """A PR of two hunks in shapes.py: `area` multiplies by SCALE (2 at base, so test_area
    breaks) and `perimeter` is rewritten to the same value. `test_describe` fails on both
    sides. Returns (repo, base sha, head sha)."""
    repo = root / "shapes"
    init_repo(repo)
    write(repo, SHAPES_BASE)
    base = commit_all(repo, "base")
    git(repo, "checkout", "-q", "-b", "feature")
    text = SHAPES_BASE["shapes.py"]
    text = text.replace("    return w * h\n", SHAPES_AREA)
    text = text.replace("    return 2 * (w + h)\n", SHAPES_PERIMETER)
    write(repo, {"shapes.py": text})
    head = commit_all(repo, SHAPES_MESSAGE)
    git(repo, "checkout", "-q", "main")
    return repo, base, head
