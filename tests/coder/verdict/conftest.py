from __future__ import annotations

from pathlib import Path

import pytest
from calcrepo import CALC, PYPROJECT, TESTS
from gitrepo import make_repo, write_script


@pytest.fixture
def calc_repo(tmp_path: Path) -> Path:
    return make_repo(
        tmp_path / "repo",
        {
            "calc.py": CALC,
            "tests/test_calc.py": TESTS,
            "README.md": "calc\n",
            "pyproject.toml": PYPROJECT,
        },
    )


@pytest.fixture
def script(tmp_path: Path):
    def make(*turns: dict) -> str:
        return f"script:{write_script(tmp_path / 'script.json', list(turns))}"

    return make
