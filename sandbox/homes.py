"""Home directories are hidden from commands; the toolchains that live in them are not.

A home holds credentials of every kind (`~/.ssh`, `~/.cargo/credentials.toml`,
`~/.claude/.credentials.json`, keyrings, shell history), and a list of known names can never
be complete, so every home is hidden whole: /root, /home, $HOME and the homes of login users
in the passwd database. What commands need from a hidden home is bound back read-only: the
tool directory of each PATH entry there (`~/.pyenv` for `~/.pyenv/shims`, `~/.cargo` for
`~/.cargo/bin`), the interpreter prefixes and venv the run uses. Inside what is bound back,
top-level files that look like credentials are masked again (`~/.cargo/credentials.toml`).
"""

from __future__ import annotations

import fnmatch
import os
import pwd
from collections.abc import Iterable
from pathlib import Path

_SYSTEM = (
    "/",
    "/bin",
    "/boot",
    "/dev",
    "/etc",
    "/lib",
    "/lib64",
    "/opt",
    "/proc",
    "/run",
    "/sbin",
    "/srv",
    "/sys",
    "/tmp",
    "/usr",
    "/var",
    "/var/lib",
    "/var/tmp",
    "/nonexistent",
)
_NO_LOGIN = ("nologin", "false", "sync", "halt", "shutdown")
CREDENTIAL_NAMES = (
    "credentials*",
    "*.pem",
    "*.key",
    ".netrc",
    ".npmrc",
    ".pypirc",
    ".git-credentials",
    ".env*",
    "*token*",
)
NESTED_TOKEN_FILES = (
    "gh/hosts.yml",
    ".docker/config.json",
    "docker/config.json",
    "credentials.toml",
    "credentials.json",
    ".credentials.json",
    "auth.json",
)
NESTED_DEPTH = 3  # levels below a tool directory looked through
NESTED_LIMIT = 20_000  # entries looked at, per tool directory
_COMPANIONS = {".cargo": (".rustup",)}  # cargo's proxies run the toolchains rustup keeps


def hidden_homes(home: str | None = None) -> list[Path]:
    """Every home directory to hide, outermost first (nested ones are covered already)."""
    candidates = [Path("/root"), Path("/home")]
    if home:
        candidates.append(Path(home))
    for entry in pwd.getpwall():
        if entry.pw_dir and not entry.pw_shell.rsplit("/", 1)[-1].startswith(_NO_LOGIN):
            candidates.append(Path(entry.pw_dir))
    homes: list[Path] = []
    for candidate in candidates:
        path = Path(os.path.realpath(candidate))
        if not _is_dir(path) or _covers_system(path):
            continue
        homes.append(path)
    return _outermost(homes)


def tool_dirs(
    path_entries: Iterable[str],
    homes: list[Path],
    extra: Iterable[Path],
    notes: list[str] | None = None,
) -> list[Path]:
    """What to bind back from the hidden homes: tool directories of PATH entries, plus
    `extra` (interpreter prefixes, the test command's venv) when they are in a home.
    A PATH entry the harness may not search is left out, said once in `notes`: commands
    could not have used it either."""
    found: list[Path] = []
    unsearchable: list[str] = []
    for entry in path_entries:
        if not entry or not os.path.isabs(entry):
            continue
        path = Path(os.path.realpath(entry))
        home = _home_of(path, homes)
        if home is None or path == home:
            continue
        if not _searchable(path):
            unsearchable.append(entry)
            continue
        if not _is_dir(path):
            continue
        found += _tool_dir(path, home)
    for path in extra:
        real = Path(os.path.realpath(path))
        if _home_of(real, homes) is not None and _is_dir(real):
            found.append(real)
    if unsearchable and notes is not None:
        notes.append(
            f"PATH entries you may not search are left out of the sandbox: {', '.join(unsearchable)}"
        )
    return _outermost(found)


def credential_files(dirs: Iterable[Path]) -> list[Path]:
    """Entries of `dirs` that look like credentials (masked inside the view): at the top
    level by name, and token files nested a few levels down (`gh/hosts.yml`,
    `.docker/config.json`), looked for in a bounded walk."""
    masks: list[Path] = []
    for directory in dirs:
        try:
            names = sorted(os.listdir(directory))
        except OSError:
            continue
        for name in names:
            if any(fnmatch.fnmatchcase(name.lower(), p) for p in CREDENTIAL_NAMES):
                masks.append(directory / name)
        masks += _nested_tokens(directory, set(masks))
    return masks


def _nested_tokens(directory: Path, found: set[Path]) -> list[Path]:
    masks: list[Path] = []
    seen = 0
    for dirpath, dirnames, filenames in os.walk(directory):
        here = Path(dirpath)
        depth = len(here.relative_to(directory).parts)
        if depth >= NESTED_DEPTH:
            dirnames[:] = []
        seen += len(dirnames) + len(filenames)
        if seen > NESTED_LIMIT:
            break
        for name in filenames:
            path = here / name
            if path in found:
                continue
            rel = f"{directory.name}/{path.relative_to(directory).as_posix()}".lower()
            lowered = name.lower()
            if any(fnmatch.fnmatchcase(lowered, p) for p in CREDENTIAL_NAMES) or any(
                rel == p or rel.endswith("/" + p) for p in NESTED_TOKEN_FILES
            ):
                masks.append(path)
    return masks


def _tool_dir(path: Path, home: Path) -> list[Path]:
    """`~/.pyenv` for `~/.pyenv/shims`; only the entry itself outside dot-directories
    (`~/work/bin` must not bind back all of `~/work`)."""
    in_dot_dir = path.relative_to(home).parts[0].startswith(".")
    tool_like = path.name in ("bin", "shims") and path.parent != home and in_dot_dir
    base = path.parent if tool_like else path
    if base.name == ".local" and base.parent == home:  # ~/.local/share holds keyrings
        return [p for p in (base / "bin", base / "lib") if _is_dir(p)]
    dirs = [base]
    if base.parent == home:
        dirs += [home / c for c in _COMPANIONS.get(base.name, ()) if _is_dir(home / c)]
    return dirs


def _home_of(path: Path, homes: list[Path]) -> Path | None:
    """The innermost hidden home directory that contains `path`."""
    owners = [h for h in homes if path == h or path.is_relative_to(h)]
    if not owners:
        return None
    owner = max(owners, key=lambda h: len(h.parts))
    if owner == Path("/home"):  # /home/<user> is the home proper
        parts = path.relative_to(owner).parts
        return owner / parts[0] if parts else owner
    return owner


def _is_dir(path: Path) -> bool:
    """`Path.is_dir` that says False where a parent may not be searched (it raises)."""
    try:
        return path.is_dir()
    except OSError:
        return False


def _searchable(path: Path) -> bool:
    """Whether this process may look up `path` (every parent searchable)."""
    try:
        os.stat(path)
    except PermissionError:
        return False
    except OSError:
        return True  # absent or broken: skipped like any missing entry
    return True


def _covers_system(path: Path) -> bool:
    return any(Path(s) == path or Path(s).is_relative_to(path) for s in _SYSTEM)


def _outermost(paths: list[Path]) -> list[Path]:
    unique = sorted(set(paths), key=lambda p: (len(p.parts), str(p)))
    kept: list[Path] = []
    for path in unique:
        if not any(path == k or path.is_relative_to(k) for k in kept):
            kept.append(path)
    return kept
