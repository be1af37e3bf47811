"""The user's tool configuration, read-only and without credentials, for confined commands.

Package managers and runtimes read their configuration from the home directory, which the
sandbox hides (sandbox/homes.py): without it pnpm downloads the version `packageManager`
pins, npm and pip forget a private registry, git its settings. So the configuration files
below are copied with every credential taken out and shown read-only at their own path and
at the same place under the command's private HOME. What was taken out is said once, by
file and key, never by value. The copies are made once per sandbox, when it is made.

Taken out: keys named like a credential (`_authToken`, `//registry/:_auth`, `_password`,
`password`, `token`, `npmAuthToken`, `npmAuthIdent`, a `[registry] token`, npm's `key` and
`otp`, ...) in every spelling the formats have (`key=value`, `key: value`, yarn 1's
`"key" "value"`, TOML inline tables and YAML flow mappings, `{ token = "…" }`), with all of
their value (an indented block, a multi-line string, an array), userinfo in any URL
(`https://user:pass@host` reads `https://host`), and for git what
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
    r"(?i)((_?auth(token|ident)?|_password|password|passwd|passphrase|token|secret|"
    r"npmauthtoken|npmauthident|npmpassword|api[-_]?key|credentials?)|(^|[-_])(key|otp))$"
)
"""A credential's key: `key` is npm's client key (a PEM), `otp` its one-time password."""
_YAML_KEY = re.compile(r"^\s*(?:-\s+)?(?P<key>[\"']?[A-Za-z0-9_.@-]+[\"']?)\s*:(\s|$)")
_INI_KEY = re.compile(r"^\s*(?P<key>[^=#;\s\[][^=]*?)\s*=")
_SPACED_KEY = re.compile(r"^\s*(?P<key>\"[^\"]+\"|[^\s\"#;\[]+)[ \t]+\S")
"""yarn 1's `.yarnrc`: `"//registry.npmjs.org/:_authToken" "…"`, `_authToken …`."""
_INLINE_PAIR = re.compile(
    r"""(?P<sep>[{,])\s*(?P<key>"(?:\\.|[^"\\])*"|'[^']*'|[A-Za-z0-9_.@/:-]+?)\s*"""
    r"""(?:=|:(?=[\s"'{\[]))\s*"""
    r"""(?P<value>"(?:\\.|[^"\\])*"|'[^']*'|\{[^{}]*\}|\[[^\[\]]*\]|[^,{}\[\]\n]*[^,{}\[\]\s])"""
)
"""A pair of a TOML inline table or a YAML/JSON flow mapping: `{ token = "…" }`, `{a: …}`."""
_QUOTED = re.compile(r"\"(?:\\.|[^\"\\])*\"|'[^']*'")
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
    """ini, npmrc, yarnrc, YAML and TOML alike, line by line: (kept text, keys taken out).
    A dropped key takes its value's continuation with it: an indented block under it, the
    rest of a TOML multi-line string (triple quotes), the rest of an array or table it opens.
    A credential inside a TOML inline table or a YAML flow mapping is cut out of its line."""
    kept: list[str] = []
    dropped: list[str] = []
    block: _Block | None = None
    for line in text.splitlines(keepends=True):
        if block is not None and block.holds(line):
            continue
        block = None
        key = _secret_key(line)
        if key is not None:
            dropped.append(key)
            block = _Block.after(line)
            continue
        line, inline = _scrub_inline(line)
        dropped += inline
        if _USERINFO.search(line):
            match = _YAML_KEY.match(line) or _INI_KEY.match(line)
            dropped.append(f"{match.group('key').strip() if match else 'a URL'}: userinfo")
            line = _USERINFO.sub(r"\1", line)
        kept.append(line)
    return "".join(kept), dropped


def _secret_key(line: str) -> str | None:
    """The line's key when it names a credential, in any of the formats' spellings."""
    for pattern in (_YAML_KEY, _INI_KEY, _SPACED_KEY):
        match = pattern.match(line)
        if match and _is_secret(key := match.group("key").strip().strip("\"'")):
            return key
    return None


def _is_secret(key: str) -> bool:
    key = key.strip().strip("\"'").removesuffix("[]")  # npmrc arrays: `key[]=…`
    name = re.split(r"[.:/]", key.rstrip("]"))[-1] or key
    return bool(_SECRET_KEY.search(name) or _SECRET_KEY.search(key))


def _scrub_inline(line: str) -> tuple[str, list[str]]:
    """The line without the credential pairs of its inline tables or flow mappings."""
    dropped: list[str] = []
    while True:
        quoted = [m.span() for m in _QUOTED.finditer(line)]
        starts = [
            at for at, c in enumerate(line) if c in "{," and not any(a < at < b for a, b in quoted)
        ]
        pairs = (_INLINE_PAIR.match(line, at) for at in starts)
        found = next((m for m in pairs if m and _is_secret(m.group("key"))), None)
        if found is None:
            return line, dropped
        dropped.append(found.group("key").strip("\"'"))
        start, end = found.start("key"), found.end("value")
        if found.group("sep") == ",":
            start = found.start("sep")  # `a = 1, token = "…"`: the comma before goes
        else:
            trailing = re.match(r"\s*,\s*", line[end:])  # `{ token = "…", a = 1 }`
            end += trailing.end() if trailing else 0
        line = line[:start] + line[end:]


@dataclass
class _Block:
    """The lines that still belong to a dropped key's value."""

    indent: int
    closing: str | None = None
    """A multi-line string's delimiter, until the line that holds it."""
    depth: int = 0
    """Brackets the value opened and has not closed yet."""

    @classmethod
    def after(cls, line: str) -> _Block:
        value = re.split(r"[=:]", line, maxsplit=1)[-1]
        closing = next((d for d in ('"""', "'''") if value.count(d) % 2 == 1), None)
        depth = 0 if closing else _depth(value)
        return cls(len(line) - len(line.lstrip(" \t")), closing, max(0, depth))

    def holds(self, line: str) -> bool:
        if self.closing is not None:
            if self.closing in line:
                self.closing = None
                self.depth = -1  # the string's last line, and nothing after it
            return True
        if self.depth > 0:
            self.depth += _depth(line)
            if self.depth <= 0:
                self.depth = -1
            return True
        if self.depth < 0:
            return False
        indent = len(line) - len(line.lstrip(" \t"))
        return bool(line.strip()) and indent > self.indent


def _depth(text: str) -> int:
    """Brackets opened less brackets closed, outside quoted strings."""
    bare = _QUOTED.sub("", text)
    return sum(bare.count(c) for c in "[{") - sum(bare.count(c) for c in "]}")


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
