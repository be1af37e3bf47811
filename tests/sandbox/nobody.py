"""Running the harness's own code as `nobody`, wherever the checkout sits.

A clone made inside a directory only root may enter (`mktemp -d` makes 0700) cannot be
imported by uid 65534, so the packages a child needs are copied into a directory it can
read: the project's layers below coder, and the pure-Python dependencies they import.
"""

from __future__ import annotations

import importlib
import shutil
import subprocess
import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
PROJECT_PACKAGES = ("sandbox", "contracts", "summarizers")
DEPENDENCIES = (
    "pydantic",
    "pydantic_core",
    "typing_extensions",
    "annotated_types",
    "typing_inspection",
)
SYSTEM_PYTHON = Path("/usr/bin/python3")


def system_python_matches() -> bool:
    """Whether /usr/bin/python3 is this interpreter's version (the copies are for it)."""
    if not SYSTEM_PYTHON.exists() or shutil.which("setpriv") is None:
        return False
    done = subprocess.run(
        [str(SYSTEM_PYTHON), "-c", "import sys; print(sys.version_info[:2])"],
        capture_output=True,
        text=True,
    )
    return done.stdout.strip() == str(sys.version_info[:2])


def readable_site(base: Path) -> Path:
    """`base/site` holding copies of what the child imports, readable by every user."""
    site = base / "site"
    site.mkdir()
    skip = shutil.ignore_patterns("__pycache__")
    for name in PROJECT_PACKAGES:
        shutil.copytree(REPO_ROOT / name, site / name, ignore=skip)
    for name in DEPENDENCIES:
        module = Path(importlib.import_module(name).__file__ or "")
        if module.name == "__init__.py":
            shutil.copytree(module.parent, site / module.parent.name, ignore=skip)
        else:
            shutil.copy(module, site)
    for path in [site, *site.rglob("*")]:
        path.chmod(0o755 if path.is_dir() else 0o644)
    return site


def run_as_nobody(
    code: str, args: list[str], site: Path, *, home: Path, path: str = "/usr/bin:/bin"
) -> subprocess.CompletedProcess[str]:
    """`code` run by the system python as uid 65534, importing only from `site`."""
    return subprocess.run(
        [
            "setpriv",
            "--reuid=65534",
            "--regid=65534",
            "--clear-groups",
            str(SYSTEM_PYTHON),
            "-c",
            code,
            *args,
        ],
        capture_output=True,
        text=True,
        timeout=120,
        cwd="/",
        env={"PATH": path, "HOME": str(home), "PYTHONPATH": str(site)},
    )
