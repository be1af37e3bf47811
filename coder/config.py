"""Per-repository configuration: `[tool.coder]` in pyproject.toml, or a `.coder.toml`.

Command-line flags win over the file; the file wins over defaults only where the repository
may set a value at all (`REPOSITORY_MAY_SET`). Unknown keys are an error that names them,
because a misspelt `max_turn` silently ignored is worse than a failed start.

The file is part of the repository, which a model's step, a pull request or a stranger's
clone can write, and it is read before the user has looked at it: it may tighten, never
loosen. It never chooses the model (`model` is a known key, so a file that has it is valid,
but its value is never used), never raises a limit above the default, never turns the
sandbox off or drops a protected path, and never passes a credential to commands
(sandbox/passenv.py). Each value it may not set is ignored with one warning line, and the run
goes on. The file itself (`.coder.toml`, and the `[tool.coder]` table of pyproject.toml) is
protected by default, so no step can change it.
"""

from __future__ import annotations

import json
import tomllib
from collections.abc import Sequence
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from contracts.readable import loc_path, readable_errors
from summarizers.repofiles import read_beneath
from summarizers.runners.table import RUNNERS


class ConfigError(Exception):
    """Bad configuration; the CLI prints the message on one line and exits 2."""


class RepoConfig(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    """Strict: TOML has real types, so `max_turns = true` or `"5"` is a mistake, not a 1 or 5."""

    test_cmd: str | None = None
    """The command that runs the repository's tests; detected when unset."""
    model: str | None = None
    """Known, so that a file naming a model is valid; never used: only --model chooses."""
    sandbox: Literal["auto", "bwrap", "none"] | None = None
    """How commands are confined."""
    max_revisions: int | None = Field(default=None, ge=0)
    """Plan revisions allowed after failed steps."""
    max_turns: int | None = Field(default=None, ge=1)
    """Model calls allowed in the whole run."""
    cmd_timeout: float | None = Field(default=None, gt=0)
    """Seconds any one command may run."""
    max_reply_tokens: int | None = Field(default=None, ge=1)
    """The longest reply one model call may write; default from the server's context window."""
    context_tokens: int | None = Field(default=None, ge=1)
    """The most one model call's context may hold; default from the server's context window."""
    protected: list[str] | None = None
    """Globs no step may touch, on top of the defaults (which a repository cannot drop)."""
    include: list[str] | None = None
    """Ignored paths to bring into the worktree (gitignore syntax, like .worktreeinclude)."""
    setup_cmd: str | None = None
    """Runs confined in the worktree before the baseline (a build step the tests need)."""
    mask_threshold: int | None = Field(default=None, ge=1)
    """Context tokens of a phase past which old tool outputs are masked, in one batch."""
    pass_env: list[str] | None = None
    """Names of host variables commands may see (never secret-looking ones: `--env` only)."""


REPOSITORY_MAY_SET: dict[str, str] = {
    "test_cmd": "the test command (--test-cmd wins)",
    "setup_cmd": "a build step, run confined before the baseline",
    "include": "ignored paths of the checkout to bring into the worktree",
    "protected": "more globs no step may touch (the defaults stay)",
    "sandbox": '"auto" or "bwrap"; "none" is ignored (only --sandbox none turns it off)',
    "pass_env": "variables commands may see, never ones that look like credentials",
    "max_turns": "lower than the default only",
    "max_revisions": "lower than the default only",
    "cmd_timeout": "lower than the default only",
    "max_reply_tokens": "lower than the default only",
    "context_tokens": "lower than the default only",
    "mask_threshold": "lower than the default only",
    "model": "never: only --model chooses the model (a file naming one stays valid)",
}
"""What a repository's file may set, key by key (README "Configuration" says the same)."""
LIMIT_FLAGS: dict[str, str] = {
    "max_turns": "--max-turns",
    "max_revisions": "--max-revisions",
    "cmd_timeout": "--cmd-timeout",
    "max_reply_tokens": "--max-reply-tokens",
    "context_tokens": "--context-tokens",
    "mask_threshold": "--mask-threshold",
}
"""The limits a repository may lower, and the flag that sets any value."""
DEFAULT_PROTECTED = [".github/**", ".coder.toml", ".worktreeinclude", ".coder"]
CONFIG_TABLE = ("pyproject.toml", ("tool", "coder"))
"""Where else configuration lives: protected as a table, so other pyproject edits stay allowed."""


def confinement(
    config: RepoConfig | None, *, sandbox_flag: str | None, always_protected: list[str]
) -> tuple[str, list[str], list[str]]:
    """(sandbox mode, protected globs, warnings) from the flag and the repository's file,
    which may only tighten what the defaults give."""
    warnings: list[str] = []
    configured = config.sandbox if config else None
    if configured == "none" and sandbox_flag is None:
        warnings.append(
            'the repository\'s configuration asks for sandbox = "none"; ignored: only '
            "--sandbox none on the command line runs commands unconfined"
        )
        configured = None
    mode = sandbox_flag or configured or "auto"
    extra = list(config.protected) if config and config.protected is not None else []
    dropped = [
        d for d in DEFAULT_PROTECTED if config and config.protected is not None and d not in extra
    ]
    if dropped:
        warnings.append(
            f"the repository's configuration cannot drop protected paths ({', '.join(dropped)}); "
            "they stay protected"
        )
    protected = list(dict.fromkeys([*DEFAULT_PROTECTED, *extra, *always_protected]))
    return mode, protected, warnings


def ignored_model(config: RepoConfig | None) -> str | None:
    """The warning for a file that names a model; None when it names none."""
    if config is None or config.model is None:
        return None
    return (
        "the repository's configuration names a model; ignored: only --model on the command "
        "line chooses the model"
    )


def repository_limit(
    config: RepoConfig | None, key: str, default: float | None
) -> tuple[float | None, str | None]:
    """(the file's value for limit `key` when it is no looser than `default`, else None;
    the warning when the file asked for more). `default`: what the run has without the file
    (None: no bound to compare with, the file's value counts)."""
    value = getattr(config, key, None) if config is not None else None
    if value is None or default is None or value <= default:
        return value, None
    return None, (
        f"the repository's configuration sets {key} = {value:g}, above the {default:g} this "
        f"run has; ignored: a repository may lower a limit, never raise it "
        f"({LIMIT_FLAGS[key]} on the command line does)"
    )


def config_table(text: str | None) -> object:
    """The parsed `[tool.coder]` table of a pyproject.toml's text (None when absent; the
    text itself when it does not parse, so any edit of a broken file still counts)."""
    if text is None:
        return None
    try:
        data: object = tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return text
    for key in CONFIG_TABLE[1]:
        data = data.get(key) if isinstance(data, dict) else None
    return data


def load_repo_config(repo: Path) -> RepoConfig:
    """Read `.coder.toml` if present, else `[tool.coder]` from pyproject.toml, else defaults."""
    dotfile = _read_toml(repo, ".coder.toml")
    if dotfile is not None:
        return _parse(dotfile, ".coder.toml")
    pyproject = _read_toml(repo, "pyproject.toml")
    if pyproject is not None:
        section = pyproject.get("tool", {}).get("coder")
        if section is not None:
            return _parse(section, "pyproject.toml [tool.coder]")
    return RepoConfig()


def _read_toml(repo: Path, name: str) -> dict | None:
    """The file's table, or None when it is absent or not a regular file (a link is never
    followed: the repository could point it at any file the user may read)."""
    if (repo / name).is_symlink():
        raise ConfigError(
            f"{name} is a symlink; coder reads its configuration only from a regular file there"
        )
    data = read_beneath(repo, name)
    if data is None:
        return None
    try:
        return tomllib.loads(data.decode("utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{name}: not valid TOML ({exc})") from None


def _parse(data: object, where: str) -> RepoConfig:
    if not isinstance(data, dict):
        raise ConfigError(f"{where}: expected a table of settings")
    unknown = sorted(set(data) - set(RepoConfig.model_fields))
    if unknown:
        known = ", ".join(RepoConfig.model_fields)
        raise ConfigError(f"{where}: unknown key(s) {', '.join(unknown)} (known: {known})")
    try:
        return RepoConfig.model_validate(data)
    except ValidationError as exc:
        loc, message = readable_errors(exc, RepoConfig)[0]
        raise ConfigError(f"{where}: {loc_path(loc)}: {message}") from None


def detect_test_cmd(repo: Path, checkout: Path | None = None) -> str | None:
    """Guess the test command the way a newcomer to the repository would: the `test` script
    through the package manager package.json's `packageManager` names, else the default of
    the first runner that claims the project (`Runner.default`: by its test files, then by
    its project files; in the table's order), run with the repository's own `.venv` when it
    has one. `checkout`: where an untracked `.venv` lives when `repo` is a run's worktree,
    which holds tracked files only."""
    package = _package_json(repo)
    scripts = package.get("scripts")
    test = scripts.get("test") if isinstance(scripts, dict) else None
    if isinstance(test, str) and test and "no test specified" not in test:
        return _SCRIPT_TEST.get(_package_manager(package), "npm test")
    venv_python = Path(".venv", "bin", "python")
    python = str(venv_python) if ((checkout or repo) / venv_python).exists() else "python"
    defaults = [r.default for r in RUNNERS if r.default is not None]
    claimed = next((d for d in defaults if _has_any(repo, d.test_files)), None) or next(
        (d for d in defaults if any((repo / f).is_file() for f in d.project_files)), None
    )
    return claimed.command.replace("{python}", python) if claimed else None


_SCRIPT_TEST = {"pnpm": "pnpm test", "yarn": "yarn test", "bun": "bun run test"}
"""How each package manager runs the `test` script (`bun test` is bun's own test runner)."""


def _package_json(repo: Path) -> dict[str, object]:
    try:
        data = json.loads(read_beneath(repo, "package.json") or b"")
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}


def _package_manager(package: dict[str, object]) -> str:
    """`"packageManager": "pnpm@9.1.0+sha512.…"` -> `pnpm`."""
    pinned = package.get("packageManager")
    return pinned.split("@", 1)[0].strip() if isinstance(pinned, str) else "npm"


def _has_any(repo: Path, patterns: Sequence[str]) -> bool:
    for pattern in patterns:
        for hit in repo.rglob(pattern):
            if not any(
                part.startswith(".") or part == "node_modules"
                for part in hit.parts[len(repo.parts) :]
            ):
                return True
    return False
