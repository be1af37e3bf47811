"""What of the user's ignored files a run's worktree needs, found in the user's checkout.

Two sources. Dependency directories by name (`node_modules` at any depth, `.venv`, `venv`),
which are exposed as they are; and what `.worktreeinclude` (at the checkout's top) and the
`include` config key name in gitignore syntax (sandbox/ignorefile.py). Only what git does
not track counts: what git tracks is already in the worktree, so a literal pattern naming a
tracked file is a mistake worth stopping for.

A dependency directory at the checkout's top that git neither tracks nor ignores (what
`python -m venv .venv` leaves in a project without that ignore line) comes in as an ignored
one would, and so does an untracked directory an include names: the worktree hides it from
git itself (sandbox/materialize.py), so it is never taken for the run's work.

Ignored paths come from one `git ls-files --others --ignored --directory`, which reports a
wholly ignored directory as one entry without descending into it: a 200 MB node_modules
costs one line. Only a pattern whose fixed directory part lies inside such a directory
(`build/gen/*.py`) makes us look inside it, and only there.

Secret-looking files (`.env*`, `*.pem`, `*.key`, `credentials*`, `id_rsa*`, `secrets.*`,
`service-account*.json`, `token*`, `.npmrc`, ...) are selected only when a literal pattern
names them; otherwise they are left out and the run says so.

Every component of an include's path must resolve inside the repository (a symlinked
directory inside an ignored one may not lead out of it), and Python bytecode is never brought
in: a stale `__pycache__/*.pyc` of the checkout (an unchecked-hash one is never compared with
its source) would make the worktree's tests import old code.
"""

from __future__ import annotations

import fnmatch
import os
from dataclasses import dataclass, field, replace
from pathlib import Path

from sandbox.changes import LIST_IGNORED
from sandbox.gitcli import git, split_z
from sandbox.ignorefile import IncludePattern, PatternError, last_match, parse_patterns
from sandbox.shared_installs import SHARED_INSTALLS_ENV, in_shared_install
from summarizers.repofiles import read_beneath

DEPENDENCY_DIRS = frozenset({"node_modules", ".venv", "venv"})
SECRET_NAMES = (
    ".env*",
    "*.pem",
    "*.key",
    "*.p12",
    "*.pfx",
    "credentials*",
    "id_rsa*",
    "id_dsa*",
    "id_ecdsa*",
    "id_ed25519*",
    "secrets.*",
    "secret.*",
    "service-account*.json",
    "service_account*.json",
    "token*",
    ".npmrc",
    ".pypirc",
    ".netrc",
    ".git-credentials",
)
BYTECODE_DIR = "__pycache__"
INCLUDE_FILE = ".worktreeinclude"
WALK_LIMIT = 50_000  # entries looked at inside one ignored directory for one pattern


class IncludeError(ValueError):
    """Bad input in what names the files to bring in; one line naming it."""


@dataclass(frozen=True)
class Selection:
    rel: str  # repo-relative, no trailing slash
    is_dir: bool
    source: Path  # the host path to expose or copy (symlinks resolved, inside the checkout)
    origin: str  # "dependency", ".worktreeinclude" or "include"
    secret: bool = False  # looks like a secret and was named explicitly
    unignored: bool = False  # neither tracked nor ignored in the checkout (a directory)


@dataclass
class Found:
    selections: list[Selection] = field(default_factory=list)
    secrets_masked: list[str] = field(default_factory=list)  # inside selected include dirs
    notes: list[str] = field(default_factory=list)


def looks_secret(name: str) -> bool:
    lowered = name.lower()
    return any(fnmatch.fnmatchcase(lowered, pattern) for pattern in SECRET_NAMES)


def is_bytecode(rel: str) -> bool:
    """A checkout's compiled Python, which must never stand in for the worktree's source."""
    parts = rel.split("/")
    return BYTECODE_DIR in parts or parts[-1].endswith((".pyc", ".pyo"))


def load_patterns(
    checkout: Path, configured: list[str], *, include_file: bool = True
) -> list[IncludePattern]:
    """`.worktreeinclude` (unless `include_file` is False) then the config key (later lines
    win, as in one gitignore file)."""
    lines: list[tuple[str, str]] = []
    data = read_beneath(checkout, INCLUDE_FILE) if include_file else None
    if data is not None:
        text = data.decode("utf-8", errors="replace")
        lines += [(line, INCLUDE_FILE) for line in text.splitlines()]
    lines += [(line, "include") for line in configured]
    try:
        patterns: list[IncludePattern] = []
        for line, source in lines:
            patterns += parse_patterns([line], source, checkout)
    except PatternError as error:
        raise IncludeError(str(error)) from None
    return patterns


def find_selections(
    checkout: Path, patterns: list[IncludePattern], *, named_secrets: bool = True
) -> Found:
    """Dependency directories and what the patterns name, checked and resolved.
    `named_secrets=False`: secret-looking files stay out even when named exactly."""
    found = Found()
    ignored = _ignored_entries(checkout)
    _refuse_tracked(checkout, patterns)
    taken: set[str] = set()
    for rel, is_dir in ignored:
        if rel.rsplit("/", 1)[-1] in DEPENDENCY_DIRS and (is_dir or (checkout / rel).is_symlink()):
            found.selections.append(_select(checkout, rel, "dependency", explicit=False))
            taken.add(rel)
    unignored = _untracked_dirs(checkout, everywhere=any(not p.negated for p in patterns))
    for rel in sorted(unignored):
        if rel in DEPENDENCY_DIRS and rel not in taken:
            selection = _select(checkout, rel, "dependency", explicit=False)
            found.selections.append(replace(selection, unignored=True))
            taken.add(rel)
    for name in sorted(DEPENDENCY_DIRS):  # a symlink to a file, say: checked all the same
        if name not in taken and (checkout / name).is_symlink():
            _inside(checkout, name)
    candidates = dict(ignored)
    candidates.update((rel, True) for rel in unignored)
    for pattern in patterns:
        candidates.update(_look_inside(checkout, pattern, ignored))
    chosen: list[tuple[str, bool, IncludePattern]] = []
    for rel, is_dir in sorted(candidates.items()):
        if rel in taken or any(rel.startswith(t + "/") for t in taken):
            continue
        decided = last_match(patterns, rel, is_dir=is_dir)
        if decided is None or decided.negated:
            continue
        if any(rel.startswith(c + "/") for c, d, _ in chosen if d):
            continue
        if is_bytecode(rel):
            found.notes.append(f"left out {rel}: compiled Python is rebuilt from the worktree")
            continue
        chosen.append((rel, is_dir, decided))
    for rel, _is_dir, decided in chosen:
        secret = looks_secret(rel.rsplit("/", 1)[-1])
        if secret and not named_secrets:
            found.notes.append(f"left out {rel}: it looks like a secret")
            continue
        if secret and not decided.literal:
            found.notes.append(
                f"left out {rel}: it looks like a secret; name it exactly in "
                f"{decided.source} to bring it in"
            )
            continue
        selection = _select(checkout, rel, decided.source, explicit=secret)
        if rel in unignored:
            selection = replace(selection, unignored=True)
        found.selections.append(selection)
        if selection.is_dir:
            found.secrets_masked += _secrets_inside(selection, found.notes)
            found.secrets_masked += _bytecode_inside(selection)
    return found


def _ignored_entries(checkout: Path) -> list[tuple[str, bool]]:
    """(path, is_dir) for each ignored entry git reports in the checkout."""
    entries = []
    for item in split_z(git(LIST_IGNORED, checkout)):
        rel = item.rstrip("/")
        if rel:
            entries.append((rel, item.endswith("/")))
    return entries


def _untracked_dirs(checkout: Path, *, everywhere: bool) -> set[str]:
    """Directories (or symlinks to one) git neither tracks nor ignores, each reported whole:
    the top's dependency directories only, unless `everywhere` (an include may name any)."""
    specs = ["."] if everywhere else [f":(top,literal){name}" for name in sorted(DEPENDENCY_DIRS)]
    listed = split_z(
        git(
            ["ls-files", "-z", "--others", "--exclude-standard", "--directory", "--", *specs],
            checkout,
            env={"GIT_LITERAL_PATHSPECS": "0"},
        )
    )
    found = set()
    for item in listed:
        rel = item.rstrip("/")
        path = checkout / rel
        if rel and (item.endswith("/") or (path.is_symlink() and path.is_dir())):
            found.add(rel)
    return found


def _look_inside(
    checkout: Path, pattern: IncludePattern, ignored: list[tuple[str, bool]]
) -> dict[str, bool]:
    """Entries under an ignored directory that `pattern` may name (git lists only the
    directory itself); nothing when the pattern does not point inside one."""
    if pattern.negated or not pattern.anchored:
        return {}
    prefix = pattern.static_prefix()
    inside_ignored = any(
        is_dir and (prefix == rel or prefix.startswith(rel + "/")) for rel, is_dir in ignored
    )
    if not inside_ignored:
        return {}
    if pattern.literal:
        path = checkout / pattern.body
        if path.exists() or path.is_symlink():
            return {pattern.body: path.is_dir() and not path.is_symlink()}
        return {}
    found: dict[str, bool] = {}
    depth = None if "**" in pattern.body else pattern.body.count("/") - prefix.count("/")
    base = _inside_every_step(checkout, prefix)
    seen = 0
    for dirpath, dirnames, filenames in os.walk(base):
        rel_dir = (Path(prefix) / Path(dirpath).relative_to(base)).as_posix()
        level = 0 if dirpath == str(base) else rel_dir.count("/") - prefix.count("/")
        for name in dirnames:
            found[f"{rel_dir}/{name}"] = True
        for name in filenames:
            found[f"{rel_dir}/{name}"] = False
        seen += len(dirnames) + len(filenames)
        if seen > WALK_LIMIT:
            raise IncludeError(
                f"{pattern.source}: {pattern.text!r} would look through more than "
                f"{WALK_LIMIT} entries under {prefix}/; name the files more precisely"
            )
        if depth is not None and level + 1 >= depth:
            dirnames[:] = []
    return found


def _refuse_tracked(checkout: Path, patterns: list[IncludePattern]) -> None:
    """A literal pattern that names a tracked file is a mistake: git already has it."""
    for pattern in patterns:
        if pattern.negated or not pattern.literal:
            continue
        if pattern.anchored:
            specs = [f":(literal){pattern.body}"]
        else:
            specs = [f":(glob)**/{_glob_escape(pattern.body)}"]
            specs.append(specs[0] + "/**")
        out = split_z(
            git(["ls-files", "-z", "--", *specs], checkout, env={"GIT_LITERAL_PATHSPECS": "0"})
        )
        if out:
            raise IncludeError(
                f"{pattern.source}: {pattern.text!r} names {out[0]}, which git tracks; "
                "list only ignored files (tracked ones are in the worktree already)"
            )


def _select(checkout: Path, rel: str, origin: str, *, explicit: bool) -> Selection:
    source = _inside_every_step(checkout, rel, shared=origin == "dependency")
    return Selection(rel, source.is_dir(), source, origin, secret=explicit)


def _inside_every_step(checkout: Path, rel: str, *, shared: bool = False) -> Path:
    """Where `rel` leads, checked at each component: a symlinked directory on the way (one
    inside an ignored directory, say) may not lead out of the repository either.
    `shared`: `rel` itself (a dependency directory) may lead into a shared install."""
    parts = [p for p in rel.split("/") if p not in ("", ".")]
    for end in range(1, len(parts)):
        step = "/".join(parts[:end])
        if (checkout / step).is_symlink():
            _inside(checkout, step)
    return _inside(checkout, rel, shared=shared) if parts else checkout


def _inside(checkout: Path, rel: str, *, shared: bool = False) -> Path:
    """Where a symlink in the checkout leads, which must stay inside it (and out of .git),
    or with `shared`, may lead into a shared install (sandbox/shared_installs.py)."""
    target = Path(os.path.realpath(checkout / rel))
    top = Path(os.path.realpath(checkout))
    if shared and (checkout / rel).is_symlink() and in_shared_install(target):
        return target
    if target == top or not target.is_relative_to(top) or ".git" in target.relative_to(top).parts:
        shared_hint = (
            f" (or an install shared between checkouts, named in {SHARED_INSTALLS_ENV})"
            if shared
            else ""
        )
        raise IncludeError(
            f"{rel} is a symlink to {target}, outside the repository; "
            f"commands may only see the repository's own files{shared_hint}"
        )
    return target


def _secrets_inside(selection: Selection, notes: list[str]) -> list[str]:
    """Secret-looking files inside a directory an include pattern selected (bounded walk)."""
    secrets: list[str] = []
    seen = 0
    for dirpath, dirnames, filenames in os.walk(selection.source):
        rel_dir = Path(dirpath).relative_to(selection.source).as_posix()
        inner = selection.rel if rel_dir == "." else f"{selection.rel}/{rel_dir}"
        for name in filenames + dirnames:
            if looks_secret(name):
                secrets.append(f"{inner}/{name}")
        seen += len(dirnames) + len(filenames)
        if seen > WALK_LIMIT:
            notes.append(f"{selection.rel}/ is too big to check for secret-looking files")
            break
    if secrets:
        notes.append(
            f"hid {len(secrets)} secret-looking file(s) inside {selection.rel}/ "
            f"({', '.join(secrets[:3])}); name them exactly to bring them in"
        )
    return secrets


def _bytecode_inside(selection: Selection) -> list[str]:
    """`__pycache__` directories inside an included directory, hidden from commands."""
    found: list[str] = []
    for dirpath, dirnames, _filenames in os.walk(selection.source):
        rel_dir = Path(dirpath).relative_to(selection.source).as_posix()
        inner = selection.rel if rel_dir == "." else f"{selection.rel}/{rel_dir}"
        if BYTECODE_DIR in dirnames:
            found.append(f"{inner}/{BYTECODE_DIR}")
            dirnames.remove(BYTECODE_DIR)
        if len(found) > WALK_LIMIT:
            break
    return found


def _glob_escape(text: str) -> str:
    return "".join(f"[{ch}]" if ch in "*?[]\\" else ch for ch in text)
