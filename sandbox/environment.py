"""The environment a confined command sees.

Built from an allowlist rather than by deleting known secrets from a copy: anything the host
exports that is not needed to find and run tools (`PATH`, locale, terminal type, time zone)
stays outside. Variables a caller passes explicitly are kept unless their name looks like a
secret or their value repeats a secret the host holds, so the model can never read an API
key by asking for it under another name. The one exception is a name the person typed
exactly on the command line (`--env NAME`, carried as `NamedEnv.explicit`): its host value
passes as it is, once sandbox/passenv.py has let it (never a value holding the model key, in
any form).

What every command gets, and why:
- `HOME`, `TMPDIR`: private, writable, thrown away after the command.
- `PYTHONDONTWRITEBYTECODE=1`: test runs must not leave `__pycache__/` in the worktree,
  where it would look like a change outside the step's files.
- `PYTHONPYCACHEPREFIX` in the private TMPDIR: Python (and a test runner's assertion rewriting)
  never reads a `__pycache__/*.pyc` in the worktree, where an unchecked-hash one (never
  compared with its source) brought from the checkout or planted by a command would make
  the tests import code other than the worktree's. Under bubblewrap the interpreter's own
  bytecode is mounted read-only there (sandbox/pycview.py), so that only the worktree's
  code is compiled from source.
- `PYTHONUNBUFFERED=1`: stdout and stderr share one pipe; unbuffered Python keeps the
  merged output in the order it was written.
- `GIT_OPTIONAL_LOCKS=0`: `git status` inside the sandbox must not try to rewrite the index,
  which is read-only there.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Mapping

SECRET_NAME_PATTERNS: tuple[str, ...] = (
    "*_KEY",
    "*_API_KEY",
    "*_TOKEN",
    "*SECRET*",
    "*PASSWORD*",
    "*PASSWD*",
    "*CREDENTIAL*",
    "*_PAT",
    "GITHUB_*",
)
KEPT_NAMES: frozenset[str] = frozenset({"PATH", "LANG", "LANGUAGE", "TERM", "TZ"})
KEPT_PREFIXES: tuple[str, ...] = ("LC_",)
FIXED: Mapping[str, str] = {
    "PYTHONDONTWRITEBYTECODE": "1",
    "PYTHONUNBUFFERED": "1",
    "GIT_OPTIONAL_LOCKS": "0",
}
_MIN_SECRET_VALUE_LEN = 8
PYCACHE_DIR = "pycache"
"""Under the private TMPDIR: where Python keeps (and, under bubblewrap, finds) bytecode."""


class NamedEnv(dict[str, str]):
    """Extra variables for a command, with the names a person typed exactly on the command
    line (`--env NAME`): those pass even when they look like secrets, and only those."""

    def __init__(
        self, values: Mapping[str, str] | None = None, *, explicit: frozenset[str] = frozenset()
    ) -> None:
        super().__init__(values or {})
        self.explicit = frozenset(explicit) & frozenset(self)


def is_secret_name(name: str) -> bool:
    upper = name.upper()
    return any(fnmatch.fnmatchcase(upper, pattern) for pattern in SECRET_NAME_PATTERNS)


def sandbox_environment(
    host: Mapping[str, str],
    extra: Mapping[str, str] | None,
    *,
    home: str,
    tmpdir: str,
    reports: str | None = None,
) -> dict[str, str]:
    """The complete environment for one confined command."""
    env = {
        name: value
        for name, value in host.items()
        if (name in KEPT_NAMES or name.startswith(KEPT_PREFIXES)) and not is_secret_name(name)
    }
    env.setdefault("PATH", "/usr/local/bin:/usr/bin:/bin")
    explicit = extra.explicit if isinstance(extra, NamedEnv) else frozenset()
    secrets = [
        value
        for name, value in host.items()
        if is_secret_name(name) and len(value) >= _MIN_SECRET_VALUE_LEN and name not in explicit
    ]
    for name, value in (extra or {}).items():
        if name in explicit and host.get(name) == value:
            env[name] = value
        elif is_secret_name(name) or any(secret in value for secret in secrets):
            continue
        else:
            env[name] = value
    env.update(FIXED)
    env["HOME"] = home
    env["TMPDIR"] = tmpdir
    if reports is not None:
        env["CODER_REPORTS"] = reports
    env["PYTHONPYCACHEPREFIX"] = f"{tmpdir.rstrip('/')}/{PYCACHE_DIR}"
    return env
