"""Plans, scripts and waits shared by the tests of `coder plan`, `--plan`, `--approve` and
`coder resume`, on the calc repository (tests/calcrepo.py)."""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from calcrepo import FIX_ADD, FIX_STEP, step

ADD_SUB = step(
    "add-sub",
    ["calc.py"],
    [{"kind": "text_present", "pattern": "def sub", "paths": ["calc.py"]}],
    deps=["fix-add"],
)
"""A second step after FIX_STEP: calc gets a sub()."""

SUB = {
    "path": "calc.py",
    "old_text": "def scale(",
    "new_text": "def sub(a, b):\n    return a - b\n\n\ndef scale(",
}
FIX_TURNS = [
    {"tool": "edit_file", "input": FIX_ADD},
    {"tool": "finish_step", "input": {"summary": "fixed add"}},
]
SUB_TURNS = [
    {"tool": "edit_file", "input": SUB},
    {"tool": "finish_step", "input": {"summary": "added sub"}},
]
BROKEN_ADD = {**FIX_ADD, "new_text": "return (a, b)"}
"""An edit that fails FIX_STEP's tests."""


def plan_file(path: Path, *steps: dict[str, Any], goal: str = "fix calc") -> Path:
    path.write_text(json.dumps({"goal": goal, "steps": list(steps or [FIX_STEP])}, indent=1))
    return path


def wait_for(what: str, condition: Callable[[], Any], timeout_s: float = 90.0) -> Any:
    """Poll until `condition()` is truthy (a file appears, a line is written): a condition,
    never a fixed sleep, so a loaded machine is only slower."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        found = condition()
        if found:
            return found
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def editor(tmp_path: Path, actions: list[dict[str, Any]]) -> str:
    """An $EDITOR that does the next of `actions` each time it is opened: {"exit": N} exits N
    without writing; {"write": TEXT} writes TEXT; {"json": OBJ} writes OBJ as JSON."""
    queue = tmp_path / "editor-actions.json"
    queue.write_text(json.dumps(actions))
    script = tmp_path / "editor.py"
    script.write_text(
        "import json, sys\n"
        f"queue = {str(queue)!r}\n"
        "actions = json.load(open(queue))\n"
        "action = actions.pop(0)\n"
        "json.dump(actions, open(queue, 'w'))\n"
        "if 'exit' in action:\n"
        "    sys.exit(action['exit'])\n"
        "text = action['write'] if 'write' in action else json.dumps(action['json'])\n"
        "open(sys.argv[1], 'w').write(text)\n"
    )
    return f"{sys.executable} {script}"
