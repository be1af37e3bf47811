"""Set-up as a newcomer does it: scripts/bootstrap on Debian's own Python (PEP 668), and a
plain `pip install .` that brings the bundled fixtures along."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SYSTEM_PYTHON = Path("/usr/bin/python3")
TOP_IGNORES = {
    ".git", ".venv", "build", ".mypy_cache", ".ruff_cache", ".pytest_cache", ".hypothesis",
    ".coder", "tests", "benchmarks",
}  # fmt: skip


def _ignore(directory: str, names: list[str]) -> set[str]:
    """What a fresh clone does not have: caches, builds, a venv (at the top only: a fixture's
    own `tests/` is part of it)."""
    top = Path(directory) == ROOT
    return {
        n
        for n in names
        if n == "__pycache__" or n.endswith(".egg-info") or (top and n in TOP_IGNORES)
    }


def _fresh_copy(tmp_path: Path) -> Path:
    """The project as a fresh clone has it (no venv, no build leftovers)."""
    return Path(shutil.copytree(ROOT, tmp_path / "clone", ignore=_ignore, symlinks=True))


def _externally_managed(python: Path) -> bool:
    if not python.exists():
        return False
    probe = (
        "import os, sys, sysconfig; print(sys.prefix == sys.base_prefix and "
        "os.path.exists(os.path.join(sysconfig.get_path('stdlib'), 'EXTERNALLY-MANAGED')))"
    )
    return subprocess.run([python, "-c", probe], capture_output=True, text=True).stdout == "True\n"


def _clean_env() -> dict[str, str]:
    drop = ("PYTHONPATH", "VIRTUAL_ENV", "PIP_USER", "PYTHONHOME")
    return {k: v for k, v in os.environ.items() if k not in drop}


@pytest.mark.slow
@pytest.mark.timeout(900)
@pytest.mark.skipif(
    not _externally_managed(SYSTEM_PYTHON), reason="needs Debian's system Python (PEP 668)"
)
def test_bootstrap_on_a_system_managed_python_makes_a_venv(tmp_path):
    clone = _fresh_copy(tmp_path)
    refused = subprocess.run(
        [SYSTEM_PYTHON, "-m", "pip", "install", "--dry-run", "--no-deps", "."],
        cwd=clone, capture_output=True, text=True, env=_clean_env(),
    )  # fmt: skip
    assert "externally-managed-environment" in refused.stderr  # what the README met before
    env = {**_clean_env(), "BOOTSTRAP_PYTHON": str(SYSTEM_PYTHON)}
    done = subprocess.run(
        ["scripts/bootstrap"], cwd=clone, capture_output=True, text=True, env=env, timeout=800
    )
    assert done.returncode == 0, done.stderr
    assert "installing into .venv" in done.stderr
    where = subprocess.run(
        ["scripts/py", "-c", "import sys, coder; print(sys.prefix); print(coder.__file__)"],
        cwd=clone, capture_output=True, text=True, env=env,
    )  # fmt: skip
    prefix, module = where.stdout.split()
    assert Path(prefix) == clone / ".venv" and Path(module) == clone / "coder" / "__init__.py"
    version = subprocess.run(
        ["scripts/py", "-m", "coder", "--version"], cwd=clone, capture_output=True, text=True,
        env=env,
    )  # fmt: skip
    assert version.returncode == 0 and version.stdout.startswith("coder ")
    again = subprocess.run(
        ["scripts/bootstrap"], cwd=clone, capture_output=True, text=True, env=env
    )
    assert again.returncode == 0 and "installing into .venv" not in again.stderr


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_a_plain_install_ships_the_fixtures(tmp_path):
    clone = _fresh_copy(tmp_path)
    venv = tmp_path / "venv"
    # the dependencies come from this interpreter's site-packages; coder itself is installed
    # from the copy, not editable
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", venv], check=True)
    python = venv / "bin" / "python"
    install = subprocess.run(
        [python, "-m", "pip", "install", "-q", "--no-deps", "."],
        cwd=clone, capture_output=True, text=True, env=_clean_env(), timeout=600,
    )  # fmt: skip
    assert install.returncode == 0, install.stderr
    shutil.rmtree(clone)  # nothing may come from the source tree
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    which = subprocess.run(
        [python, "-c", "import coder, coder_fixtures; print(coder.__file__)"],
        cwd=elsewhere, capture_output=True, text=True, env=_clean_env(),
    )  # fmt: skip
    site = sysconfig.get_path("purelib", vars={"base": str(venv), "platbase": str(venv)})
    assert which.stdout.strip().startswith(site), which
    bench = subprocess.run(
        [venv / "bin" / "coder", "bench", "--only", "py-bugfix-invoice", "--modes", "contract"],
        cwd=elsewhere, capture_output=True, text=True, env={**_clean_env(), "COLUMNS": "80"},
        timeout=600,
    )  # fmt: skip
    assert bench.returncode == 0, bench.stdout + bench.stderr
    assert "py-bugfix-invoice" in bench.stdout and "1/1" in bench.stdout
