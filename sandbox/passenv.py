"""Variables a person asks to pass through to confined commands (`--env NAME`, `pass_env`).

Commands see an allowlist of the host's environment (see `sandbox.environment`); a test suite
that needs one more harmless variable (`NODE_OPTIONS`, a `DATABASE_URL` without a password)
gets it by name. Who names it decides what may pass:

- the repository's configuration (`pass_env`): never a credential. The file is part of the
  repository, which a model's step, a pull request or a stranger's clone can write, so it can
  never make the model able to read a secret. Withheld: names that look like a credential
  (`credential_name`: `*_TOKEN`, `*AUTH*`, `*DSN*`, `PGPASS`, ...), and values that do
  (`credential_value`: a password in a URL's userinfo, a bearer or basic token, a private key,
  an auth JSON, a well-known token prefix, or any secret of the host in a form the harness
  recognises). One warning line says each kind, with the names; only `--env NAME` passes them.
- the command line (`--env NAME`): the person typed that exact name, so a secret-looking name
  passes too, with one exception: a value that holds the harness's own model key
  (`MODEL_KEYS`), in any form the harness recognises (as it is, `Bearer <key>`, reversed,
  base64, ...), never reaches a command, whatever it is called: the model would read it.
  A value that holds another secret of the host passes only when that secret's own variable
  is named with `--env` too ("no variable passes whose value repeats a secret of yours").

Names are exact (globs are refused). A name the host does not set is said and skipped, never
passed as empty.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from urllib.parse import unquote

from sandbox.environment import NamedEnv, is_secret_name

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
MODEL_KEYS = ("ANTHROPIC_API_KEY", "OPENAI_API_KEY")
"""The variables coder's model providers read their key from (coder/models/registry.py)."""

_CREDENTIAL_NAME = re.compile(
    r"AUTH(?!OR)|DSN|PASS(?:WORD|WD|PHRASE|FILE)?(?:_|$)|PGPASS|SECRET|TOKENS?(?:_|$)|CREDENTIAL|CREDS"
    r"|COOKIE|SESSION|PRIVATE|(?:^|_)KEY(?:_|$)|APIKEY|_PAT$|^GITHUB_",
)
"""Broader than `is_secret_name` (which also decides redaction, where `GIT_AUTHOR_NAME` must
stay readable): what a repository may not pass, as the name says it."""
_URL_USERINFO = re.compile(
    r"[A-Za-z][A-Za-z0-9+.-]*://(?P<user>[^/?#@\s:]*)(?::(?P<pw>[^/?#@\s]*))?@"
)
_TOKEN_VALUE = re.compile(
    r"(?i)\b(?:bearer|basic|token)\s+[A-Za-z0-9+/._~=-]{8,}"
    r"|-----BEGIN [A-Z ]*PRIVATE KEY-----"
    r"|\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}|glpat-[A-Za-z0-9_-]{20,}"
    r"|sk-[A-Za-z0-9_-]{16,}|xox[abprs]-[A-Za-z0-9-]{10,}|npm_[A-Za-z0-9]{30,}"
    r"|AKIA[0-9A-Z]{16}|eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.)"
    r"|\"(?:auths?|password|token|identitytoken|_authToken)\"\s*:",
)
_LONG_USER = 20
"""A URL's user part this long is a key, not a name (`https://<key>@o1.ingest.sentry.io/2`)."""


class PassEnvError(ValueError):
    """A name that cannot be a variable's name (a glob, `A=B`, empty): bad input."""


@dataclass(frozen=True)
class PassedEnv:
    """What passes, and what was asked for but withheld (each with its reason)."""

    values: NamedEnv
    notes: list[str] = field(default_factory=list)


def check_names(names: Iterable[str], where: str) -> list[str]:
    """The names as given, or PassEnvError naming the first that is not a variable's name."""
    checked = []
    for name in names:
        if not _NAME.match(name):
            raise PassEnvError(
                f"{where}: {name!r} is not a variable name (exact names only, no globs or values)"
            )
        checked.append(name)
    return checked


def credential_name(name: str) -> bool:
    """Whether a variable's name says it holds a credential."""
    return is_secret_name(name) or _CREDENTIAL_NAME.search(name.upper()) is not None


def credential_value(value: str) -> str | None:
    """What makes a value a credential (for the warning), or None when nothing does."""
    for url in _URL_USERINFO.finditer(value):
        if url.group("pw"):
            return "a password in a URL"
        if len(unquote(url.group("user"))) >= _LONG_USER:
            return "a key in a URL"
    if _TOKEN_VALUE.search(value):
        return "a token or key"
    return None


Holds = Callable[[str], bool]
"""Whether a value holds a secret, in any form the harness recognises (sandbox/secrets.py
has the scanner: this layer is given it, it does not know the forms)."""


def _plain_holds(secrets: Iterable[str]) -> Holds:
    """The fallback when no scanner is given: the secret as it is, or reversed."""
    kept = [s for s in secrets if len(s) >= 8]
    return lambda value: any(s in value or s[::-1] in value for s in kept)


def passed_environment(
    host: Mapping[str, str],
    *,
    config_names: Iterable[str],
    cli_names: Iterable[str],
    scanner: Callable[[Iterable[str]], Holds] = _plain_holds,
) -> PassedEnv:
    """The variables to add to every confined command's environment. `scanner`: makes, from
    secret values, the test of whether a value holds one of them in any form."""
    cli = check_names(cli_names, "--env")
    config = [name for name in check_names(config_names, "pass_env") if name not in cli]
    notes: list[str] = []
    values: dict[str, str] = {}
    secrets = {n: v for n, v in host.items() if is_secret_name(n) and len(v) >= 8}
    model_key = scanner([host[n] for n in MODEL_KEYS if host.get(n)])
    unnamed = scanner([v for n, v in secrets.items() if n not in cli])
    any_secret = scanner(secrets.values())
    withheld: dict[str, list[str]] = {}
    for name in config:
        if name not in host:
            notes.append(f"pass_env names {name}, which is not set here; commands do not see it")
            continue
        value = host[name]
        kind = (
            "variables named like credentials"
            if credential_name(name)
            else "variables whose values hold a secret of yours"
            if any_secret(value)
            else f"variables whose values hold {why}"
            if (why := credential_value(value))
            else None
        )
        if kind is None:
            values[name] = value
        else:
            withheld.setdefault(kind, []).append(name)
    for kind, names in withheld.items():
        notes.append(
            f"pass_env in the repository's configuration asks for {kind} ({', '.join(names)}); "
            "withheld: a repository may not pass credentials (--env NAME on the command line "
            "passes one)"
        )
    for name in cli:
        if name not in host:
            notes.append(f"--env {name}: not set here; commands do not see it")
        elif name in MODEL_KEYS or model_key(host[name]):
            notes.append(
                f"--env {name}: its value holds the harness's model key; withheld (commands "
                "never see the key, in any form)"
            )
        elif unnamed(host[name]):
            notes.append(
                f"--env {name}: its value holds a secret of another variable of yours; "
                "withheld (name that variable with --env too to pass it)"
            )
        else:
            values[name] = host[name]
    explicit = frozenset(name for name in cli if name in values)
    return PassedEnv(NamedEnv(values, explicit=explicit), notes)
