"""How a command reaches the program it runs: a package.json script through a package
manager (`npm test`, `pnpm run x`, `yarn x`, `bun run x`), or a launcher in front of the
program (`npx`, `pnpm exec`, `uv run`, `env A=1`, `timeout 60`, ...). Pure functions over
argv words, for summarizers.runners.commands."""

from __future__ import annotations

import posixpath
from collections.abc import Mapping
from dataclasses import dataclass


@dataclass(frozen=True)
class OtherPackage:
    """The command runs the scripts of another package (`--prefix`, `--filter`, workspaces)."""

    command: str


_MANAGERS = ("npm", "pnpm", "yarn", "bun")
_OTHER_PACKAGE = frozenset(
    {"--prefix", "-C", "--dir", "--cwd", "--filter", "-F", "--workspace", "-w", "--workspaces"}
    | {"-r", "--recursive", "-ws", "workspace", "workspaces"}
)
_TEST_ALIASES = frozenset({"test", "t", "tst"})
_RUN = frozenset({"run", "run-script", "rum", "urn"})


def script_call(
    argv: list[str], scripts: Mapping[str, str]
) -> tuple[str, str, list[str]] | OtherPackage | None:
    """(manager, script name, extra arguments) when `argv` runs a package.json script."""
    manager = posixpath.basename(argv[0])
    if manager not in _MANAGERS:
        return None
    rest = argv[1:]
    if any(w.split("=")[0] in _OTHER_PACKAGE for w in rest):
        return OtherPackage(" ".join(argv))
    words = [w for w in rest if not w.startswith("-")]
    if not words:
        return None
    first = words[0]
    at = rest.index(first)
    if first in _RUN and len(words) > 1:
        name, at = words[1], rest.index(words[1], at + 1)
    elif first in _TEST_ALIASES and manager != "bun":
        name = "test"
    elif manager in ("pnpm", "yarn") and first in scripts and first not in ("exec", "dlx"):
        name = first
    else:
        return None
    after = rest[at + 1 :]
    if manager == "npm":
        extra = after[after.index("--") + 1 :] if "--" in after else []
    else:
        extra = after[1:] if after[:1] == ["--"] else after
    return manager, name, extra


_LAUNCHERS: dict[tuple[str, ...], int] = {
    ("npx",): 1,
    ("bunx",): 1,
    ("pnpx",): 1,
    ("npm", "exec"): 2,
    ("pnpm", "exec"): 2,
    ("pnpm", "dlx"): 2,
    ("yarn", "exec"): 2,
    ("uv", "run"): 2,
    ("poetry", "run"): 2,
    ("pipenv", "run"): 2,
    ("pdm", "run"): 2,
    ("hatch", "run"): 2,
    ("env",): 1,
    ("time",): 1,
    ("exec",): 1,
    ("command",): 1,
    ("nice",): 1,
    ("nohup",): 1,
    ("xvfb-run",): 1,
    ("cross-env",): 1,
}


def launcher_words(argv: list[str], scripts: Mapping[str, str]) -> int:
    """How many words of `argv` launch the program after them (`npx --yes`, `env A=1`,
    `timeout 60`, `yarn <bin>`); 0 when `argv[0]` is no launcher."""
    name = posixpath.basename(argv[0])
    size = _LAUNCHERS.get((name, *argv[1:2]), 0) or _LAUNCHERS.get((name,), 0)
    if name == "timeout" and len(argv) > 1:
        size = 1 + next((i for i, w in enumerate(argv[1:]) if not w.startswith("-")), 0) + 1
    if not size and name in ("yarn", "bun") and len(argv) > 1 and argv[1] not in scripts:
        size = 2 if argv[1] == "run" else (1 if name == "yarn" else 0)
    if not size:
        return 0
    while size < len(argv) and (argv[size].startswith("-") or "=" in argv[size]):
        size += 1
    return size if size < len(argv) else 0
