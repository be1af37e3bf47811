"""`coder run` on a project as its owner has it: `python -m venv .venv` and an editable install
of the project, in a repository without a .gitignore, so git calls `.venv/` untracked. The
detected baseline runs `.venv/bin/python -m pytest`, the run verifies and applies, the tree is
never called dirty, and no commit holds a file of `.venv`."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from clirun import coder, run_args
from gitrepo import git, make_repo, write_script

SETUP_PY = "from setuptools import setup\n\nsetup(name='tally', version='0.1', package_dir={'': 'src'}, packages=['tally'])\n"
PYPROJECT = """\
[tool.pytest.ini_options]
addopts = "-p no:hypothesispytest -p no:benchmark -p no:anyio"
"""
TALLY = "def add(a, b):\n    return a - b\n"
TESTS = "from tally import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n"
STEP = {
    "stepId": "fix-add",
    "dependencies": [],
    "intendedModification": {
        "files": ["src/tally/__init__.py"],
        "invariants": ["All unit tests in tests/test_add.py must exit code 0"],
    },
    "rollbackPlan": {"gitCheckout": "HEAD~1"},
}
TURNS = [
    {"tool": "submit_plan", "input": {"goal": "fix add", "steps": [STEP]}},
    {
        "tool": "edit_file",
        "input": {"path": "src/tally/__init__.py", "old_text": "a - b", "new_text": "a + b"},
    },
    {"tool": "finish_step", "input": {"summary": "add adds"}},
]


def _project(root: Path) -> Path:
    make_repo(
        root,
        {
            "setup.py": SETUP_PY,
            "pyproject.toml": PYPROJECT,
            "src/tally/__init__.py": TALLY,
            "tests/test_add.py": TESTS,
        },
    )
    venv = root / ".venv"
    subprocess.run(
        [sys.executable, "-m", "venv", "--without-pip", "--system-site-packages", str(venv)],
        check=True,
    )
    # setuptools' own editable install (`pip install -e .` runs it where no wheel package is
    # installed): an easy-install.pth naming src/ by absolute path. Its egg-info is kept out
    # of the tree the way a user would, in .git/info/exclude (the .venv stays unignored).
    subprocess.run(
        [str(venv / "bin" / "python"), "setup.py", "-q", "develop"],
        cwd=root,
        check=True,
        capture_output=True,
    )
    with (root / ".git" / "info" / "exclude").open("a") as exclude:
        exclude.write("src/*.egg-info/\n")
    assert list(venv.glob("lib/python*/site-packages/easy-install.pth"))
    assert git(root, "status", "--porcelain") == "?? .venv/\n"
    return root


def test_an_unignored_venv_with_an_editable_install_runs_verifies_and_is_never_committed(
    tmp_path: Path,
):
    repo = _project(tmp_path / "repo")
    script = write_script(tmp_path / "script.json", TURNS)

    done = coder(*run_args(repo, script, "--apply", "--json", task="make add() add"))

    assert done.returncode == 0, done.stdout + done.stderr
    assert "uncommitted" not in done.stdout + done.stderr
    assert "fix the command" not in done.stdout + done.stderr
    result = json.loads(done.stdout)
    assert result["status"] == "verified", result
    assert result["baseline"]["command"] == ".venv/bin/python -m pytest -q"
    assert result["baseline"]["failing"] == ["tests/test_add.py::test_add"]
    committed = git(repo, "ls-tree", "-r", "--name-only", result["branch"]).split()
    assert not any(path.startswith(".venv") for path in committed)
    assert "src/tally/__init__.py" in git(
        repo, "diff", "--name-only", result["base_commit"], result["branch"]
    )
    assert "a + b" in (repo / "src" / "tally" / "__init__.py").read_text()  # applied
    assert git(repo, "status", "--porcelain") == " M src/tally/__init__.py\n?? .venv/\n"
