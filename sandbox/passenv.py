"""Variables a person asks to pass through to confined commands (`--env NAME`, `pass_env`).

Commands see an allowlist of the host's environment (see `sandbox.environment`); a test suite
that needs one more harmless variable (`DATABASE_URL`, `NODE_OPTIONS`) gets it by name. Who
names it decides what may pass:

- the command line (`--env NAME`): any name, a secret-looking one too, because the person
  typed that exact name (globs are not names and are refused);
- the repository's configuration (`pass_env`): only names that do not look like secrets. The
  file is part of the repository, which a model's step or a pull request can write, so it can
  never make the model able to read a key; a secret-looking name there is withheld and said.

A name the host does not set is said and skipped, never passed as empty.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from sandbox.environment import NamedEnv, is_secret_name

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


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


def passed_environment(
    host: Mapping[str, str], *, config_names: Iterable[str], cli_names: Iterable[str]
) -> PassedEnv:
    """The variables to add to every confined command's environment."""
    cli = check_names(cli_names, "--env")
    config = check_names(config_names, "pass_env")
    notes: list[str] = []
    values: dict[str, str] = {}
    for name in config:
        if name in cli:
            continue
        if is_secret_name(name):
            notes.append(
                f"pass_env in the repository's configuration names {name}, which looks like a "
                f"secret; withheld (only --env {name} on the command line passes it)"
            )
        elif name in host:
            values[name] = host[name]
        else:
            notes.append(f"pass_env names {name}, which is not set here; commands do not see it")
    for name in cli:
        if name in host:
            values[name] = host[name]
        else:
            notes.append(f"--env {name}: not set here; commands do not see it")
    explicit = frozenset(name for name in cli if name in host)
    return PassedEnv(NamedEnv(values, explicit=explicit), notes)
