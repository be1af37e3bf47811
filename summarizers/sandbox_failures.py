"""Output that says the sandbox, not the change, made a command fail.

Three kinds, each with the path (or address) the log names where it names one:
- `read_only`: a write refused (EROFS, EACCES, "Read-only file system", TypeScript's TS5033
  "Could not write file"), e.g. tsc's build info inside a read-only `node_modules/`;
- `network`: an attempt to reach the network (EAI_AGAIN, ENOTFOUND, ENETUNREACH, a registry
  request refused, pnpm's ERR_PNPM_META_FETCH_FAIL, corepack downloading a package manager,
  pip's "Failed to establish a new connection");
- `home_config`: a configuration expected in the home directory and not there (git's
  identity, a `~/.npmrc`, pnpm's rc, a `.yarnrc.yml`, pip's config).

A connection refused on a local port is a test's own business (its server did not start), so
ECONNREFUSED counts only for a request a package manager made.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

Kind = Literal["read_only", "network", "home_config"]
READ_ONLY: Kind = "read_only"
NETWORK: Kind = "network"
HOME_CONFIG: Kind = "home_config"
MAX_LINE = 300


@dataclass(frozen=True)
class EnvironmentFailure:
    kind: Kind
    path: str | None
    """The file or directory refused, or the address the network attempt was for."""
    line: str
    """The log's line that says it (clipped)."""


_Q = r"['‘\"]?([^'’\"\s]+?)['’\"]?"
_READ_ONLY = (
    re.compile(r"error TS5033: Could not write file '([^']+)'"),
    re.compile(r"\bE(?:ROFS|ACCES|PERM): [\w -]+?, \w+ '([^']+)'"),
    re.compile(r"\[Errno (?:30|13)\] (?:Read-only file system|Permission denied): '([^']+)'"),
    re.compile(r"(?:cannot create(?: directory)?|can't create|cannot touch|cannot remove) " + _Q + r": (?:Read-only file system|Permission denied)"),
    re.compile(r"^(?:\S+: )?(/[^:\s]+): (?:Read-only file system|Permission denied)$"),
    re.compile(r"due to an error writing to the directory: (\S+)"),
    re.compile(r"\bEROFS\b|Read-only file system"),
)  # fmt: skip
_NPM_CODE = re.compile(r"^npm (?:error|ERR!) code (EROFS|EACCES|EPERM)$")
_NPM_PATH = re.compile(r"^npm (?:error|ERR!) path (\S+)$")
_NETWORK = (
    re.compile(r"Corepack is about to download (\S+)"),
    re.compile(r"Error when performing the request to (\S+?);"),
    re.compile(r"ERR_PNPM_\w*(?:FETCH|NETWORK|REGISTRY)\w*\s+(?:GET )?(\S+)"),
    re.compile(r"request to (\S+) failed, reason: .*\b(?:EAI_AGAIN|ENOTFOUND|ECONNREFUSED|ECONNRESET|ENETUNREACH|ETIMEDOUT)\b"),
    re.compile(r"getaddrinfo (?:EAI_AGAIN|ENOTFOUND) (\S+)"),
    re.compile(r"connect (?:ENETUNREACH|EHOSTUNREACH) (\S+)"),
    re.compile(r"Failed to establish a new connection: .*?\)?'\)?: (\S+)$"),
    re.compile(r"Failed to establish a new connection|Temporary failure in name resolution|Network is unreachable"),
    re.compile(r"\b(?:EAI_AGAIN|ENETUNREACH)\b"),
)  # fmt: skip
_HOME = (
    (re.compile(r"Author identity unknown|Please tell me who you are|unable to auto-detect email address"), "~/.gitconfig"),
    (re.compile(r"ENOENT: no such file or directory, \w+ '([^']*/(?:\.npmrc|\.yarnrc(?:\.yml)?|\.gitconfig|\.pypirc|pip\.conf|pnpm/rc|\.config/[^']+))'"), None),
    (re.compile(r"(?:No such file or directory|not found)\W+(~?/\S*/(?:\.npmrc|\.yarnrc\.yml|\.gitconfig|pip\.conf|pnpm/rc))"), None),
)  # fmt: skip


def environment_failures(lines: list[str]) -> list[EnvironmentFailure]:
    """Every environment failure the lines show, in order, one per kind and path."""
    found: list[EnvironmentFailure] = []
    seen: set[tuple[str, str | None]] = set()

    def add(kind: Kind, path: str | None, line: str) -> None:
        path = path.rstrip(".,;:)") if path else path
        if (kind, path) in seen or (path is None and any(k == kind for k, _ in seen)):
            return
        if path is not None and (kind, None) in seen:  # a better line for the same failure
            found[:] = [f for f in found if (f.kind, f.path) != (kind, None)]
            seen.discard((kind, None))
        seen.add((kind, path))
        found.append(EnvironmentFailure(kind, path, line.strip()[:MAX_LINE]))

    for i, line in enumerate(lines):
        npm = _NPM_CODE.match(line)
        if npm:
            path = next(
                (m.group(1) for x in lines[i + 1 : i + 6] if (m := _NPM_PATH.match(x))), None
            )
            add(READ_ONLY, path, line)
            continue
        for pattern in _READ_ONLY:
            m = pattern.search(line)
            if m:
                add(READ_ONLY, m.group(1) if m.groups() else None, line)
                break
        else:
            for pattern in _NETWORK:
                m = pattern.search(line)
                if m:
                    add(NETWORK, m.group(1) if m.groups() else None, line)
                    break
        for pattern, where in _HOME:
            m = pattern.search(line)
            if m:
                add(HOME_CONFIG, where or m.group(1), line)
                break
    return found
