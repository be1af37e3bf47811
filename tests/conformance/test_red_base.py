"""The conformance matrix on a base with something red: a test in the same file, a hook;
and a hook green at the base that a change trips.

One shard of the one generated test (matrix_cells says how its cells are chosen and what each
must get); the matrix is split in files only so that pytest-xdist's `--dist loadfile` spreads it
over the workers."""

import pytest
from matrix_cells import FORMS, params
from matrix_check import check


@pytest.mark.timeout(1200)
@pytest.mark.parametrize("cell", params(("red in file", "red hook", "green hook"), FORMS))
def test_cell(cell, bases, tmp_path):
    check(cell, bases, tmp_path)
