"""A copy of a repository's git config with its credentials taken out, for confined commands.

CI checkouts keep their token in the repository's own config (`actions/checkout` writes
`http.https://github.com/.extraheader`), and remote URLs may carry `user:token@`. A confined
command needs the rest of the config (`git status`, `git diff` read it) but never those.
Git itself parses the original (`git config --file F --list -z`: continuation lines, quoting
and comments are its business, includes are not followed); the copy is rendered from the
entries it kept, so nothing the scrubber did not see can pass through.

Dropped: every `credential.*` key, every `http.*.extraheader`, any key whose subsection
holds a URL with userinfo (`url.https://x:TOKEN@host/.insteadOf`), keys named like a secret
(`sendemail.smtpPass`, `github.token`, `*.password`, `*token`), and `include.path` and
`includeIf.*` (an included file is never brought in, so naming it only says where it is). Rewritten: userinfo in any
URL inside a value (`remote.origin.url`), so `https://x-access-token:T@github.com/o/r` reads
`https://github.com/o/r`. Confined commands have no network, so nothing needs those URLs.
"""

from __future__ import annotations

import os
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

_SECRET_NAMES = frozenset({"smtppass", "password", "pass", "token", "secret"})
_SECRET_ENDINGS = ("token", "password", "passwd", "secret", "apikey")
_USERINFO = re.compile(r"(?i)\b([a-z][a-z0-9+.-]*://)[^/?#@\s]*@")


@dataclass(frozen=True)
class ConfigEntry:
    key: str  # "section.subsection.name": section and name lower-cased by git
    value: str | None  # None: a bare key (`[core] bare`), which git reads as true

    @property
    def section(self) -> str:
        return self.key.split(".", 1)[0]

    @property
    def subsection(self) -> str | None:
        parts = self.key.split(".", 1)[1].rsplit(".", 1)
        return parts[0] if len(parts) == 2 else None

    @property
    def name(self) -> str:
        return self.key.rsplit(".", 1)[1]


def read_entries(path: Path) -> list[ConfigEntry] | None:
    """The entries of one config file as git parses it; None when git cannot read it."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_") or k == "GIT_EXEC_PATH"}
    try:
        done = subprocess.run(
            ["git", "config", "--file", str(path), "--list", "-z"],
            capture_output=True,
            stdin=subprocess.DEVNULL,
            env={**env, "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull},
            timeout=30,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    if done.returncode != 0:
        return None
    entries: list[ConfigEntry] = []
    for item in done.stdout.decode("utf-8", errors="surrogateescape").split("\0"):
        if item:
            key, newline, value = item.partition("\n")
            entries.append(ConfigEntry(key, value if newline else None))
    return entries


def withheld(entry: ConfigEntry) -> bool:
    """Whether `entry` is a credential, or points at a file that may hold one."""
    if entry.section in ("credential", "include", "includeif"):
        return True
    if entry.section == "http" and entry.name == "extraheader":
        return True
    name = entry.name.lower()
    return name in _SECRET_NAMES or name.endswith(_SECRET_ENDINGS)


def scrub(entries: list[ConfigEntry]) -> list[ConfigEntry]:
    """The entries a confined command may see (see the module docstring for the rules)."""
    kept: list[ConfigEntry] = []
    for entry in entries:
        if withheld(entry):
            continue
        if entry.subsection is not None and _USERINFO.search(entry.subsection):
            continue
        value = entry.value if entry.value is None else _USERINFO.sub(r"\1", entry.value)
        kept.append(ConfigEntry(entry.key, value))
    return kept


def render(entries: list[ConfigEntry]) -> str:
    """Config file text that git reads back as exactly `entries`, in order."""
    lines: list[str] = []
    current: tuple[str, str | None] | None = None
    for entry in entries:
        header = (entry.section, entry.subsection)
        if header != current:
            current = header
            sub = entry.subsection
            lines.append(
                f"[{entry.section}]" if sub is None else f'[{entry.section} "{_quote(sub)}"]'
            )
        if entry.value is None:
            lines.append(f"\t{entry.name}")
        else:
            value = _quote(entry.value).replace("\n", "\\n").replace("\t", "\\t")
            lines.append(f'\t{entry.name} = "{value}"')
    return "".join(line + "\n" for line in lines)


def write_scrubbed(source: Path, target: Path) -> None:
    """`source` without credentials at `target`; empty when git cannot parse `source`
    (an empty config still lets git work, and a leak is worse than a broken command)."""
    entries = read_entries(source)
    text = render(scrub(entries)) if entries is not None else ""
    target.write_text(text, encoding="utf-8", errors="surrogateescape")


def _quote(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"')
