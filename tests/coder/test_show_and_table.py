"""`coder show --transcript --diff`, and the plan table that keeps file paths whole."""

from __future__ import annotations

import json
import re

import pytest
from calcrepo import FIX_ADD, FIX_STEP, make_calc_repo, plan, step
from clirun import coder, run_args
from gitrepo import write_script
from rich.console import Console

from coder.plan_table import plan_table
from contracts.validation import validate_plan


def test_show_gives_the_transcript_and_the_diff(tmp_path):
    repo = make_calc_repo(tmp_path)
    script = write_script(
        tmp_path / "s.json",
        [
            plan(FIX_STEP),
            {"tool": "run", "input": {"command": "echo looked"}},
            {"tool": "edit_file", "input": FIX_ADD},
            {"tool": "finish_step", "input": {"summary": "fixed add"}},
        ],
    )
    ran = coder(*run_args(repo, script), "--json")
    assert ran.returncode == 0, ran.stderr
    run_dir = repo / ".coder" / "runs" / json.loads(ran.stdout)["run_id"]
    plain_show = coder("show", str(run_dir))
    assert "── model call" not in plain_show.stdout and "+    return a + b" not in plain_show.stdout
    shown = coder("show", str(run_dir), "--transcript", "--diff")
    assert shown.returncode == 0, shown.stderr
    out = shown.stdout
    assert "── model call 2 (execute:fix-add)" in out
    assert "→ run echo looked" in out and "← run [ok]" in out and "    looked" in out
    assert '→ edit_file {"path": "calc.py", "old_text": "return a - b"' in out
    assert "-    return a - b\n+    return a + b" in out
    assert out.index("→ run echo looked") < out.index("→ edit_file") < out.index("diff --git")
    by_id = coder("show", run_dir.name, cwd=repo / "tests")  # the id the progress line prints
    assert by_id.returncode == 0, by_id.stderr
    assert by_id.stdout == plain_show.stdout
    unknown = coder("show", "20990101-000000-abcdef", cwd=repo)
    assert unknown.returncode == 2 and "is not a run directory" in unknown.stderr


LONG = [
    "inflection/__init__.py",
    "src/very/deeply/nested/package/with/a/long/module_name_here.py",
    "tests/test_inflection_pluralize_irregular_nouns.py",
]


@pytest.mark.parametrize("width", [60, 80, 120])
def test_plan_table_keeps_every_path_whole(width):
    raw = {
        "goal": "g",
        "steps": [
            step(
                "s-" + "x" * 40,
                LONG,
                ["All unit tests in tests/test_inflection.py must exit code 0"],
            )
        ],
    }
    checked = validate_plan(raw)
    assert checked.plan is not None, checked.problems
    console = Console(width=width, record=True, file=open("/dev/null", "w"))  # noqa: SIM115
    console.print(plan_table(checked.plan, "plan"))
    text = console.export_text()
    assert "…" not in text
    assert max(len(line) for line in text.splitlines()) <= width
    cells = _column(text, 3)  # files
    for path in LONG:
        assert path in cells, (path, text)


def _column(text: str, index: int) -> str:
    """The text of one table column, its folded lines joined back together."""
    parts = []
    for line in text.splitlines():
        cols = re.split(r"[│┃]", line)
        if len(cols) > index:
            parts.append(cols[index].strip())
    return "".join(parts)


def test_an_evidence_of_several_lines_is_shown_on_its_lines_not_as_escapes():
    """A proof's evidence holds a line break; `coder show` printed it as a literal `\\n`."""
    from coder.show import _steps

    console = Console(width=120, record=True)
    event = {
        "type": "verification",
        "step": "fix",
        "kind": "tests_fail_before",
        "status": "passed",
        "evidence": "1 test(s) failed before the change\nthe test command without the hook",
    }
    _steps(console, [event], [])
    out = console.export_text()
    assert "\\n" not in out
    assert "1 test(s) failed before the change" in out and "the test command without" in out
