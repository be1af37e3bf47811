"""Editable installs that point into the user's checkout, and the test command's venv.

`pip install -e .` leaves a `.pth` file naming the source directory (or, for setuptools'
finder style, a PEP 610 `direct_url.json` with `"editable": true`). Inside bwrap the
worktree is seen at the checkout's path, so such an install imports the worktree's code; in
`--sandbox none` it would import the user's unmodified checkout, and a broken step could
verify. This module only finds them; sandbox/repo_env.py decides what that means.

Looked at: the running interpreter's site-packages and the test command's venv (an in-repo
`.venv`/`venv`, or the one the command's first word lives in).
"""

from __future__ import annotations

import json
import os
import shlex
import site
import sys
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote, urlparse


@dataclass(frozen=True)
class EditableInstall:
    record: Path  # the .pth or direct_url.json that says so
    target: Path  # where it points, inside the checkout


def test_command_venv(command: str | None, checkout: Path) -> Path | None:
    """The venv the test command runs from: the one its first word lives in
    (`.venv/bin/python -m <runner>`), else an in-repo `.venv` or `venv`."""
    if command:
        try:
            words = shlex.split(command)
        except ValueError:
            words = []
        if words and "/" in words[0]:
            program = Path(words[0])
            program = program if program.is_absolute() else checkout / program
            if program.parent.name == "bin" and (program.parent.parent / "pyvenv.cfg").is_file():
                return program.parent.parent
    for name in (".venv", "venv"):
        if (checkout / name / "pyvenv.cfg").is_file():
            return checkout / name
    return None


def venv_base_prefix(venv: Path) -> Path | None:
    """The interpreter prefix a venv was made from (`home = …/bin` in pyvenv.cfg)."""
    try:
        lines = (venv / "pyvenv.cfg").read_text(encoding="utf-8").splitlines()
    except OSError:
        return None
    for line in lines:
        key, _, value = line.partition("=")
        if key.strip() == "home" and value.strip():
            home = Path(value.strip())
            return home.parent if home.name == "bin" else home
    return None


def site_packages(venv: Path | None) -> list[Path]:
    """The running interpreter's site-packages directories, then the venv's."""
    dirs = [Path(p) for p in site.getsitepackages()]
    user = Path(site.getusersitepackages())
    if site.ENABLE_USER_SITE and user.is_dir():
        dirs.append(user)
    if venv is not None:
        dirs += sorted((venv / "lib").glob("python*/site-packages"))
    seen: dict[Path, None] = {}
    for d in dirs:
        if d.is_dir():
            seen[Path(os.path.realpath(d))] = None
    return list(seen)


def editable_installs(checkout: Path, dirs: list[Path]) -> list[EditableInstall]:
    """Every install in `dirs` whose code lives inside `checkout`."""
    top = Path(os.path.realpath(checkout))
    found: list[EditableInstall] = []
    for directory in dirs:
        try:
            names = os.listdir(directory)
        except OSError:
            continue
        for name in sorted(names):
            entry = directory / name
            if name.endswith(".pth"):
                found += [EditableInstall(entry, t) for t in _pth_targets(entry, top)]
            elif name.endswith(".dist-info"):
                target = _direct_url_target(entry / "direct_url.json", top)
                if target is not None:
                    found.append(EditableInstall(entry / "direct_url.json", target))
    return found


def _pth_targets(pth: Path, top: Path) -> list[Path]:
    try:
        lines = pth.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return []
    targets = []
    for line in lines:
        line = line.strip()
        if not line or line.startswith(("#", "import ", "import\t")):
            continue
        path = Path(os.path.realpath(pth.parent / line))
        if path == top or path.is_relative_to(top):
            targets.append(path)
    return targets


def _direct_url_target(record: Path, top: Path) -> Path | None:
    try:
        data = json.loads(record.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or not (data.get("dir_info") or {}).get("editable"):
        return None
    url = urlparse(str(data.get("url", "")))
    if url.scheme != "file":
        return None
    path = Path(os.path.realpath(unquote(url.path)))
    return path if path == top or path.is_relative_to(top) else None


def interpreter_prefixes() -> list[Path]:
    """Where the running interpreter lives (bound back when it is under a hidden home)."""
    return [Path(p) for p in dict.fromkeys((sys.prefix, sys.base_prefix))]
