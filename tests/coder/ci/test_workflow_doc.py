"""The workflow in docs/github-action.md is valid YAML and asks for what the bot needs."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

DOC = Path(__file__).resolve().parents[3] / "docs" / "github-action.md"


def _workflow() -> dict:  # type: ignore[type-arg]
    block = re.search(r"```yaml\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)
    assert block is not None
    return yaml.safe_load(block.group(1))


def _runs(job: dict) -> str:  # type: ignore[type-arg]
    return "\n".join(step.get("run", "") for step in job["steps"])


def test_review_job() -> None:
    job = _workflow()["jobs"]["review"]
    assert job["permissions"] == {"contents": "read", "pull-requests": "write"}
    checkout = job["steps"][0]
    assert checkout["uses"].startswith("actions/checkout@")
    assert checkout["with"]["fetch-depth"] == 0
    runs = _runs(job)
    assert 'pip install "coder-contracts' in runs and "apt-get install -y bubblewrap" in runs
    assert "coder ci review" in runs and "--post" in runs
    review_step = next(s for s in job["steps"] if "coder ci review" in s.get("run", ""))
    assert review_step["env"]["GITHUB_TOKEN"] == "${{ secrets.GITHUB_TOKEN }}"
    # the shas reach the script through the environment, never pasted into it
    assert review_step["env"]["BASE"] == "${{ github.event.pull_request.base.sha }}"
    assert review_step["env"]["HEAD"] == "${{ github.event.pull_request.head.sha }}"
    assert '--base "$BASE" --head "$HEAD"' in review_step["run"]


def test_fix_job_has_write_access_and_a_model_key() -> None:
    job = _workflow()["jobs"]["fix"]
    assert job["permissions"] == {"contents": "write", "pull-requests": "write"}
    fix_step = next(s for s in job["steps"] if "coder ci fix" in s.get("run", ""))
    assert "secrets." in fix_step["env"]["ANTHROPIC_API_KEY"]
    assert "--push-to-pr" not in fix_step["run"]
