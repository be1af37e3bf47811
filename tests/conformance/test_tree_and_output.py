"""The conformance matrix on bases whose runner writes in the tree, gates coverage on the
whole suite, or prints no per-test lines.

One shard of the one generated test (matrix_cells says how its cells are chosen and what each
must get); the matrix is split in files only so that pytest-xdist's `--dist loadfile` spreads it
over the workers."""

import pytest
from matrix_cells import FORMS, params
from matrix_check import check


@pytest.mark.timeout(1200)
@pytest.mark.parametrize("cell", params(("artifacts", "coverage gate", "quiet"), FORMS))
def test_cell(cell, bases, tmp_path):
    check(cell, bases, tmp_path)
