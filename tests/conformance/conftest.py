import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from matrix_check import BaseProjects  # noqa: E402


@pytest.fixture(scope="session")
def bases(tmp_path_factory: pytest.TempPathFactory) -> BaseProjects:
    """One base repository per (runner, state of the base), made once per worker."""
    return BaseProjects(tmp_path_factory.mktemp("bases"))
