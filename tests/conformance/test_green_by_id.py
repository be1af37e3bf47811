"""The conformance matrix on a green base, tests named by id in each spelling.

One shard of the one generated test (matrix_cells says how its cells are chosen and what each
must get); the matrix is split in files only so that pytest-xdist's `--dist loadfile` spreads it
over the workers."""

import pytest
from matrix_cells import params
from matrix_check import check


@pytest.mark.timeout(1200)
@pytest.mark.parametrize("cell", params(("green",), ("own id", "printed id")))
def test_cell(cell, bases, tmp_path):
    check(cell, bases, tmp_path)
