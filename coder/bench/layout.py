"""The parts of a fixture repository git does not hold, laid out after its first commit.

A real project's tests need what its owner installed: `node_modules/`, an in-repo `.venv`
with the project installed in editable mode, generated files, initialized submodules.
Fixtures carry those as data (never as committed trees): a fixture's `ignored/` is copied
over the committed repo (its `.gitignore` must ignore all of it), and `layout.toml` says:
- `venv = ".venv"`: a minimal venv there (pyvenv.cfg and interpreter links, as `python -m
  venv` leaves them, in milliseconds), with `editable = ["src"]` a `.pth` naming those
  directories by absolute path (all `pip install -e .` leaves for a src layout), and
  `system_site_packages = true` to see the interpreter's own packages (pytest);
- `[submodules] "vendor/lib" = "submodules/lib"`: a repository made of that fixture
  directory, added as a submodule at that path (offline, from the local path);
- `node_modules = "js-runners"`: a real copy (`cp -a`) of the `node_modules/` that
  `scripts/js-runners` installed in its cache (the pinned vitest, jest, mocha, node-tap and
  typescript), as a user's `npm ci` leaves it: the registry is not reachable from a run, and a
  copy (not a link) is what the sandbox must make writable and throwaway. Without the cache the
  fixture cannot run: `unavailable` says why, and the bench skips it.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, ValidationError

from sandbox.gitcli import git


class Layout(BaseModel):
    model_config = ConfigDict(extra="forbid")

    venv: str | None = None
    """Where to make a venv inside the repository (ignored by its .gitignore)."""
    editable: list[str] = []
    """Directories of the repository the venv imports from (an editable install's .pth)."""
    system_site_packages: bool = False
    """Whether the venv also sees the interpreter's own packages."""
    submodules: dict[str, str] = {}
    """Submodule path in the repository → fixture directory holding its files."""
    node_modules: Literal["js-runners"] | None = None
    """Whose `node_modules/` the repository gets: the cache `scripts/js-runners` fills."""


JS_RUNNERS_ENV = "CODER_JS_RUNNERS"


def js_runners_dir() -> Path:
    """Where `scripts/js-runners` installs the pinned runners (the same rule as the script)."""
    configured = os.environ.get(JS_RUNNERS_ENV)
    if configured:
        return Path(configured)
    cache = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(cache) / "coder" / "js-runners"


def unavailable(layout: Layout) -> str | None:
    """Why a fixture with this layout cannot run on this machine (None: it can)."""
    if layout.node_modules == "js-runners":
        modules = js_runners_dir() / "node_modules"
        if not modules.is_dir():
            return f"no JavaScript runners in {modules.parent}: run scripts/js-runners"
    return None


def make_venv(path: Path, editable: list[Path], *, system_site_packages: bool = False) -> Path:
    """A venv at `path` for the running interpreter, importing `editable` directories."""
    base = Path(os.path.realpath(sys.executable))
    (path / "bin").mkdir(parents=True, exist_ok=True)
    version = f"{sys.version_info[0]}.{sys.version_info[1]}"
    system = "true" if system_site_packages else "false"
    (path / "pyvenv.cfg").write_text(
        f"home = {base.parent}\ninclude-system-site-packages = {system}\nversion = {version}\n"
    )
    for name in ("python", "python3", f"python{version}"):
        link = path / "bin" / name
        if not link.exists():
            link.symlink_to(base)
    site = path / "lib" / f"python{version}" / "site-packages"
    site.mkdir(parents=True, exist_ok=True)
    if editable:
        lines = "".join(f"{p}\n" for p in editable)
        (site / "_editable_project.pth").write_text(lines)
    return path


def lay_out(fixture_dir: Path, repo: Path, layout: Layout) -> None:
    """Add what git does not track to a committed fixture repository."""
    ignored = fixture_dir / "ignored"
    if ignored.is_dir():
        shutil.copytree(ignored, repo, dirs_exist_ok=True)
    if layout.node_modules == "js-runners":
        modules = js_runners_dir() / "node_modules"
        if not modules.is_dir():
            raise FileNotFoundError(f"{modules}: run scripts/js-runners")
        (repo / "node_modules").mkdir(exist_ok=True)
        subprocess.run(["cp", "-a", f"{modules}/.", str(repo / "node_modules")], check=True)
    if layout.venv:
        editable = [repo / e for e in layout.editable]
        make_venv(repo / layout.venv, editable, system_site_packages=layout.system_site_packages)
    for rel, source in layout.submodules.items():
        module = repo.with_name(f"{repo.name}-submodule-{Path(rel).name}")
        shutil.copytree(fixture_dir / source, module)
        git(["init", "-q", "-b", "main"], module)
        git(["add", "-A"], module)
        git(["commit", "-q", "-m", f"submodule {rel}"], module)
        git(["-c", "protocol.file.allow=always", "submodule", "add", "-q", str(module), rel], repo)
        git(["commit", "-q", "-m", f"add submodule {rel}"], repo)


def load_layout(fixture_dir: Path) -> Layout:
    """The fixture's layout.toml (none: nothing beyond `ignored/`); ValueError when bad."""
    path = fixture_dir / "layout.toml"
    if not path.is_file():
        return Layout()
    try:
        return Layout.model_validate(tomllib.loads(path.read_text(encoding="utf-8")))
    except (tomllib.TOMLDecodeError, ValidationError) as exc:
        raise ValueError(str(exc).splitlines()[0]) from None
