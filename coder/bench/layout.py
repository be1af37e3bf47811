"""The parts of a fixture repository git does not hold, laid out after its first commit.

A real project's tests need what its owner installed: `node_modules/`, an in-repo `.venv`
with the project installed in editable mode, generated files, initialized submodules.
Fixtures carry those as data (never as committed trees): a fixture's `ignored/` is copied
over the committed repo (its `.gitignore` must ignore all of it), and `layout.toml` says:
- `venv = ".venv"`: a minimal venv there (pyvenv.cfg and interpreter links, as `python -m
  venv` leaves them, in milliseconds), with `editable = ["src"]` a `.pth` naming those
  directories by absolute path (all `pip install -e .` leaves for a src layout), and
  `system_site_packages = true` to see the interpreter's own packages (the Python runner);
- `[submodules] "vendor/lib" = "submodules/lib"`: a repository made of that fixture
  directory, added as a submodule at that path (offline, from the local path);
- `node_modules = "js-runners"`: the `node_modules/` that `scripts/js-runners` installed in
  its cache (the pinned JavaScript runners and typescript), shared, never copied
  (`share_js_runners`): the repository's `node_modules` is a link to the install, which the
  sandbox shows commands as the checkout's own, a read-only lower layer under a throwaway
  upper (sandbox/shared_installs.py, sandbox/overlay.py). A copy cost 252 MB and 19,585 files
  per run. Without the cache the fixture cannot run: `unavailable` says why, and the bench
  skips it.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, ValidationError

from sandbox.gitcli import git
from sandbox.shared_installs import trust_shared_install


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
JS_RUNNERS_LOCK = (
    Path(__file__).resolve().parents[2] / "scripts" / "js-runners.d" / "package-lock.json"
)
"""The lockfile `scripts/js-runners` installs from (absent where coder is installed as a package)."""


def js_runners_dir() -> Path:
    """Where `scripts/js-runners` installed the pinned runners (the same rule as the script):
    the cache's directory for this checkout's lockfile, else the cache itself (its
    `node_modules` is the latest install, or one made before the cache was keyed)."""
    configured = os.environ.get(JS_RUNNERS_ENV)
    cache = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    base = Path(configured) if configured else Path(cache) / "coder" / "js-runners"
    try:
        key = hashlib.sha256(JS_RUNNERS_LOCK.read_bytes()).hexdigest()[:16]
    except OSError:
        return base
    keyed = base / key
    return keyed if (keyed / "node_modules").is_dir() else base


def unavailable(layout: Layout) -> str | None:
    """Why a fixture with this layout cannot run on this machine (None: it can)."""
    if layout.node_modules == "js-runners":
        modules = js_runners_dir() / "node_modules"
        if not modules.is_dir():
            return f"no JavaScript runners in {modules.parent}: run scripts/js-runners"
    return None


def share_js_runners(repo: Path) -> Path:
    """Give the repository `repo` the runners' `node_modules` without copying anything.

    `repo/node_modules` becomes a link to the install `scripts/js-runners` made, which git
    ignores (a line in the repository's own `.git/info/exclude`, when it is one already), and
    that install is named a shared install (CODER_SHARED_INSTALLS, for this process and the
    ones it starts: a `coder` subprocess too). Coder's sandbox then shows it to commands at
    `node_modules/` as a read-only lower layer under a throwaway upper: every write a command
    makes there (a runner's cache, `.vite`, tsbuildinfo) is thrown away and never reaches
    the install or another run. For tests as for the bench: one install, any number of
    repositories. Commands run outside coder's sandbox would write into the install itself:
    give such a tree a copy (`lay_out(..., copy_runners=True)`). FileNotFoundError when the
    runners are not installed (`unavailable` says so first). Returns the install's
    `node_modules`."""
    modules = js_runners_dir() / "node_modules"
    if not modules.is_dir():
        raise FileNotFoundError(f"{modules}: run scripts/js-runners")
    real = Path(os.path.realpath(modules))
    trust_shared_install(real)
    _clear(repo / "node_modules")
    (repo / "node_modules").symlink_to(real, target_is_directory=True)
    exclude = repo / ".git" / "info" / "exclude"
    if (repo / ".git").is_dir() and not (repo / ".git").is_symlink():
        exclude.parent.mkdir(exist_ok=True)
        text = exclude.read_text(encoding="utf-8") if exclude.is_file() else ""
        if RUNNERS_EXCLUDE not in text.splitlines():
            separator = "" if not text or text.endswith("\n") else "\n"
            exclude.write_text(f"{text}{separator}{RUNNERS_EXCLUDE}\n", encoding="utf-8")
    return real


RUNNERS_EXCLUDE = "/node_modules"
"""The exclude line for the link (`node_modules/`, as a .gitignore has it, matches no link)."""


def copy_js_runners(repo: Path) -> None:
    """A real copy (`cp -a`) of the runners' `node_modules` into `repo`: only for a tree whose
    commands run outside coder's sandbox, where a shared install would take their writes."""
    modules = js_runners_dir() / "node_modules"
    if not modules.is_dir():
        raise FileNotFoundError(f"{modules}: run scripts/js-runners")
    _clear(repo / "node_modules")
    subprocess.run(["cp", "-a", f"{modules}/.", str(repo / "node_modules")], check=True)


def _clear(path: Path) -> None:
    """Whatever is at `path` (a committed link or file is removed, never followed)."""
    if path.is_symlink() or path.is_file():
        path.unlink()
    elif path.is_dir():
        shutil.rmtree(path)


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


def lay_out(fixture_dir: Path, repo: Path, layout: Layout, *, copy_runners: bool = False) -> None:
    """Add what git does not track to a committed fixture repository. The runners are
    shared (`share_js_runners`); `copy_runners` copies them, for a tree whose commands run
    outside coder's sandbox (a test that runs the fixture's suite itself)."""
    ignored = fixture_dir / "ignored"
    if ignored.is_dir():
        shutil.copytree(ignored, repo, dirs_exist_ok=True)
    if layout.node_modules == "js-runners":
        if copy_runners:
            copy_js_runners(repo)
        else:
            share_js_runners(repo)
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
