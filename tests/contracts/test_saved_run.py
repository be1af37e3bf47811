"""state.json: written whole or not at all, and read back with one clear line when it is bad."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from contracts.saved_run import (
    STATE_FILE,
    SavedLimits,
    SavedRun,
    SavedRunError,
    load_saved_run,
    save_run,
)


def _saved() -> SavedRun:
    return SavedRun(
        run_id="r1",
        repo="/somewhere",
        branch="coder/r1",
        base_commit="a" * 40,
        head="b" * 40,
        mode="contract",
        model="script:x.json",
        task="fix it",
        limits=SavedLimits(
            max_turns=60, max_revisions=3, timeout_s=1800, cmd_timeout_s=120, max_tokens=10
        ),
        verified=["one"],
        step_commits={"one": "b" * 40},
    )


def test_saved_run_round_trips_and_leaves_no_temporary_file(tmp_path: Path) -> None:
    save_run(tmp_path, _saved())
    assert load_saved_run(tmp_path) == _saved()
    assert [p.name for p in tmp_path.iterdir()] == [STATE_FILE]


@pytest.mark.parametrize(
    ("content", "needle"),
    [
        (None, "is not a run directory (no state.json)"),
        ("{oops", "is not valid JSON (line 1"),
        (json.dumps({"run_id": "r1"}), "is not a run state (repo: Field required)"),
        (json.dumps({**_saved().model_dump(), "format": 2}), "is not a run state (format:"),
    ],
)
def test_a_bad_state_file_is_one_line(tmp_path: Path, content: str | None, needle: str) -> None:
    if content is not None:
        (tmp_path / STATE_FILE).write_text(content)
    with pytest.raises(SavedRunError) as caught:
        load_saved_run(tmp_path)
    assert needle in str(caught.value) and "\n" not in str(caught.value)
