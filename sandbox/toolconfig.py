"""The user's tool configuration, read-only and without credentials, for confined commands.

Package managers and runtimes read their configuration from the home directory, which the
sandbox hides (sandbox/homes.py): without it pnpm downloads the version `packageManager`
pins, npm and pip forget a private registry, git its settings. So the configuration files
below are copied with every credential taken out and shown read-only at their own path and
at the same place under the command's private HOME. What was taken out is said once, by
file and key, never by value. The copies are made once per sandbox, when it is made.

Taken out: keys named like a credential (`_authToken`, `//registry/:_auth`, `_password`,
`password`, `token`, `npmAuthToken`, `npmAuthIdent`, a `[registry] token`, ...), userinfo in
any URL (`https://user:pass@host` reads `https://host`), and for git what
sandbox/gitconfig.py drops (`credential.*`, `sendemail.smtpPass`, `github.token`,
`include.path`, `includeIf`: an included file is never brought in).

Corepack runs offline with what the user has installed: its cache is shown read-only and
COREPACK_ENABLE_NETWORK=0 (a missing version fails at once, naming itself, instead of
hanging on the network).
"""

from __future__ import annotations

import os
import re
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from sandbox.gitconfig import read_entries, render, scrub, withheld
from sandbox.scratch import sweep_stale

CONFIG_FILES = (
    ".config/pnpm/rc",
    ".npmrc",
    ".yarnrc.yml",
    ".yarnrc",
    ".config/pip/pip.conf",
    ".pip/pip.conf",
    ".config/uv/uv.toml",
    ".cargo/config.toml",
    ".cargo/config",
)
GIT_FILES = (".gitconfig", ".config/git/config")
COREPACK_CACHE = ".cache/node/corepack"
_SECRET_KEY = re.compile(
    r"(?i)(_?auth(token|ident)?|_password|password|passwd|token|secret|"
    r"npmauthtoken|npmauthident|npmpassword|api[-_]?key|credentials?)$"
)
_YAML_KEY = re.compile(r"^\s*(?:-\s+)?(?P<key>[\"']?[A-Za-z0-9_.@-]+[\"']?)\s*:(\s|$)")
_INI_KEY = re.compile(r"^\s*(?P<key>[^=#;\s\[][^=]*?)\s*=")
_USERINFO = re.compile(r"(?i)\b([a-z][a-z0-9+.-]*://)[^/?#@\s\"']*@")
_SCRATCH_PREFIX = "coder-toolconfig-"


@dataclass
class ToolConfig:
    """Scrubbed copies to show (home path -> copy) and what was withheld."""

    copies: dict[Path, Path] = field(default_factory=dict)
    withheld: list[str] = field(default_factory=list)  # "~/.npmrc (//r/:_authToken)"
    env: dict[str, str] = field(default_factory=dict)
    binds: list[Path] = field(default_factory=list)  # shown read-only as they are
    scratch: Path | None = None

    @property
    def note(self) -> str | None:
        if not self.withheld:
            return None
        return "withheld from commands' view of your tool configuration: " + "; ".join(
            self.withheld
        )


def tool_config(home: Path | None) -> ToolConfig:
    """Scrubbed copies of the configuration files in `home` (the harness user's)."""
    found = ToolConfig(env={"COREPACK_ENABLE_NETWORK": "0"})
    if home is None or not _is_dir(home):
        return found
    for rel in (*CONFIG_FILES, *GIT_FILES):
        path = home / rel
        try:
            if not path.is_file() or path.is_symlink() and not _inside(path, home):
                continue
            text = path.read_text(encoding="utf-8", errors="surrogateescape")
        except OSError:
            continue
        if rel in GIT_FILES:
            kept, dropped = _scrub_git(path)
        else:
            kept, dropped = scrub_lines(text)
        if found.scratch is None:
            sweep_stale(_SCRATCH_PREFIX)
            found.scratch = Path(tempfile.mkdtemp(prefix=f"{_SCRATCH_PREFIX}{os.getpid()}-"))
            os.chmod(found.scratch, 0o755)
        copy = found.scratch / rel.replace("/", "_")
        copy.write_text(kept, encoding="utf-8", errors="surrogateescape")
        os.chmod(copy, 0o644)
        found.copies[path] = copy
        if dropped:
            found.withheld.append(f"~/{rel} ({', '.join(dict.fromkeys(dropped))})")
    corepack = home / COREPACK_CACHE
    if _is_dir(corepack):
        found.binds.append(corepack)
        found.env["COREPACK_HOME"] = str(corepack)
    return found


def scrub_lines(text: str) -> tuple[str, list[str]]:
    """ini, npmrc, YAML and TOML alike, line by line: (kept text, keys taken out).
    A dropped key's continuation (an indented block under a YAML key) goes with it."""
    kept: list[str] = []
    dropped: list[str] = []
    skip_indent: int | None = None
    for line in text.splitlines(keepends=True):
        indent = len(line) - len(line.lstrip(" \t"))
        if skip_indent is not None:
            if line.strip() and indent > skip_indent:
                continue
            skip_indent = None
        match = _YAML_KEY.match(line) or _INI_KEY.match(line)
        if match:
            key = match.group("key").strip().strip("\"'")
            name = re.split(r"[.:/]", key.rstrip("]"))[-1] or key
            if _SECRET_KEY.search(name) or _SECRET_KEY.search(key):
                dropped.append(key)
                skip_indent = indent
                continue
        if _USERINFO.search(line):
            dropped.append(f"{match.group('key').strip() if match else 'a URL'}: userinfo")
            line = _USERINFO.sub(r"\1", line)
        kept.append(line)
    return "".join(kept), dropped


def _scrub_git(path: Path) -> tuple[str, list[str]]:
    entries = read_entries(path)
    if entries is None:
        return "", ["unreadable, shown empty"]
    dropped = [
        e.key if withheld(e) else f"{e.key}: userinfo"
        for e in entries
        if withheld(e) or (e.value is not None and _USERINFO.search(e.value))
    ]
    return render(scrub(entries)), dropped


def _is_dir(path: Path) -> bool:
    try:
        return path.is_dir()
    except OSError:  # a parent this user may not search
        return False


def _inside(path: Path, home: Path) -> bool:
    real = Path(os.path.realpath(path))
    return real.is_relative_to(os.path.realpath(home))
