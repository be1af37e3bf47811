"""The generated projects of the conformance matrix: one base repository per (runner, state of
the base), cloned per cell, and the scripted model's turns for a cell's change.

A base holds a small library (`absolute` returns its argument: the bug; `half` is wrong too, for
the base with a test red for another reason) and two test files in the runner's own style. The
JavaScript runners come from scripts/js-runners' pinned install, given to each cell without
copying its bytes (`give_node_modules`).
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest
from gitrepo import git, make_repo
from matrix_cells import NAMED, OTHER, Cell, State, base_cases, changed_cases
from matrix_runners import Runner

from coder.bench.layout import js_runners_dir

PY_SOURCE = "calc.py"
JS_SOURCE = "src/calc.js"

_PY_LIB = """\
def absolute(x):
    return x


def double(x):
    return 2 * x


def half(x):
    return x
"""
_JS_LIB = """\
function absolute(x) {
  return x;
}

function double(x) {
  return 2 * x;
}

function half(x) {
  return x;
}
"""
_PY_ABSOLUTE = "def absolute(x):\n    return x\n"
_JS_ABSOLUTE = "function absolute(x) {\n  return x;\n}"
_BODY = {
    ("python", "right fix"): "def absolute(x):\n    return abs(x)\n",
    ("python", "wrong fix"): "def absolute(x):\n    return -x\n",
    ("python", "trips hook"): "def absolute(x):\n    return abs(x)  # TODO: NaN\n",
    ("js", "right fix"): "function absolute(x) {\n  return Math.abs(x);\n}",
    ("js", "wrong fix"): "function absolute(x) {\n  return -x;\n}",
    ("js", "trips hook"): "function absolute(x) {\n  return Math.abs(x); // TODO: NaN\n}",
}

_LINT = {
    "red hook": "the source has no licence header (every file must start with one)",
    "green hook": "a TODO is left in the source",
}
"""What the project's lint checks: the red one fails at the base and after any change here; the
green one passes at the base and fails once a change leaves a TODO."""

_IGNORED = {
    "python": ["__pycache__/", ".pytest_cache/"],
    "js": ["node_modules/", ".tap/", "coverage/", ".nyc_output/", "junit.xml", "*.tsbuildinfo"],
}


def source(runner: Runner) -> str:
    return PY_SOURCE if runner.language == "python" else JS_SOURCE


def _lib(runner: Runner) -> str:
    if runner.language == "python":
        return _PY_LIB
    if runner.module == "esm":
        return _JS_LIB.replace("function ", "export function ")
    return _JS_LIB + "\nmodule.exports = { absolute, double, half };\n"


def _lint(runner: Runner, state: State) -> dict[str, str]:
    if state not in _LINT:
        return {}
    src = source(runner)
    red = state == "red hook"
    if runner.language == "python":
        test = "not text.startswith('#')" if red else "'TODO' in text"
        return {
            "lint.py": "import sys\n\n"
            f"text = open({src!r}).read()\n"
            f"if {test}:\n"
            f"    print('lint: {src}: {_LINT[state]}')\n"
            "    sys.exit(1)\n"
        }
    test = "!text.startsWith('//')" if red else "text.includes('TODO')"
    return {
        "lint.cjs": "const fs = require('node:fs');\n\n"
        f"const text = fs.readFileSync('{src}', 'utf8');\n"
        f"if ({test}) {{\n"
        f"  console.log('lint: {src}: {_LINT[state]}');\n"
        "  process.exit(1);\n"
        "}\n"
    }


def command(runner: Runner, state: State) -> str:
    """The runner's command as this state of the base has it."""
    variant = {"quiet": runner.quiet, "artifacts": runner.artifacts, "coverage gate": runner.gate}
    return variant.get(state) or runner.command


def _package(runner: Runner, state: State) -> str:
    scripts = {"test": command(runner, state)}
    if state in _LINT:
        scripts["posttest"] = "node lint.cjs"
    extra = {**runner.package, **(runner.gate_package if state == "coverage gate" else {})}
    package: dict[str, Any] = {"name": "calc", "private": True, "scripts": scripts, **extra}
    if runner.packages:
        package["devDependencies"] = {name: _pinned(name) for name in runner.packages}
    return json.dumps(package, indent=2) + "\n"


def _pinned(name: str) -> str:
    """The version scripts/js-runners pins (what the project's lockfile would hold)."""
    lock = Path(__file__).parents[2] / "scripts" / "js-runners.d" / "package.json"
    return str(json.loads(lock.read_text(encoding="utf-8"))["dependencies"].get(name, "*"))


def base_files(runner: Runner, state: State) -> dict[str, str]:
    calc, other = runner.files
    files = {
        source(runner): _lib(runner),
        calc: runner.render(base_cases(state)),
        other: runner.render(OTHER),
        **runner.extra_files,
        **_lint(runner, state),
    }
    ignored = [] if state == "artifacts" else _IGNORED[runner.language]
    if runner.language == "js":
        files["package.json"] = _package(runner, state)
        ignored = ignored or ["node_modules/"]
    if ignored:
        files[".gitignore"] = "".join(f"{line}\n" for line in ignored)
    return files


def coder_command(runner: Runner, state: State) -> str:
    """What coder is told to run: `npm test` for a JS project, whose hook is `posttest`."""
    if runner.language == "js":
        return "npm test"
    cmd = command(runner, state)
    return f"{cmd} && python lint.py" if state in _LINT else cmd


def make_base(root: Path, runner: Runner, state: State) -> Path:
    return make_repo(root, base_files(runner, state), message=f"{runner.name}, {state}")


def clone(base: Path, path: Path) -> Path:
    git(path.parent, "clone", "-q", "--local", str(base), str(path))
    return path


def missing_runner(runner: Runner, state: State) -> str | None:
    """Why this row cannot run here (its runner is not installed), or None."""
    if runner.language != "js":
        return None
    program = command(runner, state).split()[0]
    binary = js_runners_dir() / "node_modules" / ".bin" / program
    if program == "node" or binary.exists():
        return None
    return f"{binary} is missing: run scripts/js-runners"


def give_node_modules(repo: Path, packages: tuple[str, ...]) -> None:
    """The project's git-ignored node_modules as `npm install` of `packages` leaves it: those
    packages and everything they depend on, hard-linked from scripts/js-runners' pinned install
    (no bytes copied; the sandbox refuses a symlink out of the repository), with their `.bin`
    links. One function, to be swapped for the bench's shared install."""
    install = js_runners_dir()
    lock = json.loads((install / "package-lock.json").read_text(encoding="utf-8"))["packages"]
    wanted = _dependencies(lock, [f"node_modules/{name}" for name in packages])
    present = [p for p in sorted(wanted) if (install / p).is_dir()]
    (repo / "node_modules" / ".bin").mkdir(parents=True)
    if present:
        subprocess.run(["cp", "-al", "--parents", *present, str(repo)], cwd=install, check=True)
    bins = repo / "node_modules" / ".bin"
    for link in (install / "node_modules" / ".bin").iterdir():
        target = os.readlink(link)
        if (bins / target).exists():
            (bins / link.name).symlink_to(target)


def _dependencies(lock: dict[str, Any], roots: list[str]) -> set[str]:
    """The lockfile's package paths `roots` need, resolved as node resolves a require."""
    seen: set[str] = set()
    todo = list(roots)
    while todo:
        path = todo.pop()
        if path in seen or path not in lock:
            continue
        seen.add(path)
        entry = lock[path]
        for kind in ("dependencies", "optionalDependencies", "peerDependencies"):
            for name in entry.get(kind, {}):
                found = _resolve(lock, path, name)
                if found:
                    todo.append(found)
    return {p for p in seen if not any(p.startswith(q + "/") for q in seen)}


def _resolve(lock: dict[str, Any], path: str, name: str) -> str | None:
    base = path
    while (cut := base.rfind("/node_modules/")) >= 0 or base:
        candidate = f"{base}/node_modules/{name}"
        if candidate in lock:
            return candidate
        base = base[:cut] if cut >= 0 else ""
    return f"node_modules/{name}" if f"node_modules/{name}" in lock else None


def drop_node_modules(repo: Path) -> None:
    """The cell's links removed once it is judged."""
    subprocess.run(["rm", "-rf", str(repo / "node_modules")], check=True)


def skip_or_fail(reason: str) -> None:
    """A runner missing here: CI installs every one (.ci/run), so there it is a failure."""
    if os.environ.get("CI"):
        pytest.fail(reason)
    pytest.skip(reason)


def _invariants(cell: Cell) -> list[dict[str, Any]]:
    named = cell.selection()
    checks: list[dict[str, Any]] = [{"kind": "tests_pass", "paths": [named]}]
    if cell.change in ("proving test", "vacuous test"):
        checks.append({"kind": "tests_fail_before", "paths": [named]})
    if cell.change in ("deleted, removed", "deleted, waived"):
        assert cell.runner.printed_id is not None
        gone = cell.runner.printed_id(cell.runner.files[0], NAMED[cell.change])
        checks.append({"kind": "tests_removed", "paths": [gone]})
    return checks


def script(cell: Cell) -> dict[str, Any]:
    """The scripted model's turns: the plan of one step, the change, finish_step."""
    runner = cell.runner
    src = source(runner)
    step = {
        "stepId": "cell",
        "title": cell.change,
        "dependencies": [],
        "intendedModification": {"files": [src, runner.files[0]], "invariants": _invariants(cell)},
        "rollbackPlan": {"gitCheckout": "HEAD~1"},
    }
    plan = {"tool": "submit_plan", "input": {"goal": "absolute() of a negative", "steps": [step]}}
    calls: list[dict[str, Any]] = []
    cases = changed_cases(cell.state, cell.change)
    if cases is not None:
        calls.append(
            {
                "tool": "write_file",
                "input": {"path": runner.files[0], "content": runner.render(cases)},
            }
        )
    edit = cell.change if cell.change in ("wrong fix", "trips hook") else "right fix"
    body = _BODY[(runner.language, edit)]
    old = _PY_ABSOLUTE if runner.language == "python" else _JS_ABSOLUTE
    calls.append({"tool": "edit_file", "input": {"path": src, "old_text": old, "new_text": body}})
    calls.append({"tool": "finish_step", "input": {"summary": cell.change}})
    return {"turns": [plan, {"calls": calls}]}
