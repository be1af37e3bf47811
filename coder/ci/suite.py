"""The repository's tests, run confined in a tree of one commit, and two runs told apart.

Which command: the flag, else the repository's own config read at that commit, else what a
newcomer would guess. The output is compacted for the report; per-test outcomes (when the
runner prints them) let a base run tell new failures from old ones.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from coder.ci.errors import CiInputError
from coder.ci.gitrefs import git
from coder.ci.report import SuiteRun
from coder.config import ConfigError, detect_test_cmd, load_repo_config, repository_limit
from coder.verdict.run import run_tests
from sandbox.confine import Sandbox, SandboxUnavailable, make_sandbox
from sandbox.includes import INCLUDE_FILE
from sandbox.repo_env import RepoEnvironmentError, prepare_tree_environment
from summarizers.logs import compact_log

DEFAULT_TIMEOUT_S = 600.0
LOG_BUDGET = 1500
FAILING = ("failed", "error")


@dataclass(frozen=True)
class SuiteCommand:
    command: str
    source: Literal["flag", "config", "detected"]


@dataclass(frozen=True)
class CommandChoice:
    command: SuiteCommand | None
    timeout_s: float = DEFAULT_TIMEOUT_S
    warnings: list[str] = field(default_factory=list)


def choose_test_command(flag: str | None, tree: Path) -> CommandChoice:
    """The test command for the commit checked out at `tree`; a bad config is a warning here,
    because the review should still say what it can about the PR."""
    warnings: list[str] = []
    try:
        config = load_repo_config(tree)
    except ConfigError as exc:
        warnings.append(f"repository config ignored: {exc}")
        config = None
    timeout, raised = repository_limit(config, "cmd_timeout", DEFAULT_TIMEOUT_S)
    warnings += [raised] if raised else []
    timeout = timeout or DEFAULT_TIMEOUT_S
    if flag and flag.strip():
        return CommandChoice(SuiteCommand(flag.strip(), "flag"), timeout, warnings)
    if config and config.test_cmd:
        return CommandChoice(SuiteCommand(config.test_cmd, "config"), timeout, warnings)
    detected = detect_test_cmd(tree)
    if detected:
        return CommandChoice(SuiteCommand(detected, "detected"), timeout, warnings)
    return CommandChoice(None, timeout, warnings)


def trusted_include(repo: Path, commit: str | None) -> list[str]:
    """What the trusted commit (the PR's base; nothing without one) names to bring in: its
    `.worktreeinclude` lines, then its config's `include`. A pull request's own
    `.worktreeinclude` or `include` never counts: it would choose which of the CI
    checkout's ignored files (`config/creds.json`) its tests, and so its output, may read."""
    if commit is None:
        return []
    with tempfile.TemporaryDirectory(prefix="coder-trusted-config-") as scratch:
        folder = Path(scratch)
        for name in (INCLUDE_FILE, ".coder.toml", "pyproject.toml"):
            spec = f"{commit}:{name}"
            if git(repo, "cat-file", "-t", spec, check=False).strip() == "blob":
                (folder / name).write_text(git(repo, "show", spec), encoding="utf-8")
        lines = []
        if (folder / INCLUDE_FILE).is_file():
            lines = (folder / INCLUDE_FILE).read_text(encoding="utf-8").splitlines()
        try:
            config = load_repo_config(folder)
        except ConfigError:
            config = None
    return [*lines, *((config.include if config else None) or [])]


def tree_sandbox(
    tree: Path,
    mode: str,
    command: str | None,
    warn: Callable[[str], None] | None,
    *,
    include: list[str],
) -> Sandbox:
    """The sandbox for a tree of one commit, with the checkout's environment as a run gets
    it (dependencies, submodules, and what `include` names: trusted_include, never the
    tree's own config); a problem is a CiInputError."""
    try:
        environment = prepare_tree_environment(
            tree,
            include=include,
            sandbox_mode=mode,
            test_cmd=command,
        )
        sandbox = make_sandbox(mode, tree, warn=warn, environment=environment)
    except (RepoEnvironmentError, SandboxUnavailable) as exc:
        raise CiInputError(str(exc)) from None
    if warn is not None:
        for note in environment.notes:
            warn(note)
    return sandbox


@dataclass(frozen=True)
class SuiteOutcome:
    run: SuiteRun
    outcomes: dict[str, str]
    """Test id → passed | failed | error | skipped, when the output names tests."""

    @property
    def failing(self) -> set[str]:
        named = {t for t, o in self.outcomes.items() if o in FAILING}
        return named or set(self.run.failing)


def run_suite(
    sandbox: Sandbox,
    tree: Path,
    command: str,
    *,
    ref: str,
    commit: str,
    timeout_s: float = DEFAULT_TIMEOUT_S,
    budget: int = LOG_BUDGET,
) -> SuiteOutcome:
    tests = run_tests(sandbox, tree, command, timeout_s)
    result = tests.result
    passed = result.exit_code == 0 and not result.timed_out
    output = _relative_paths(result.output, tree)
    outcomes = tests.outcomes
    compact = compact_log(output, budget=budget, exit_code=result.exit_code)
    named = sorted(t for t, o in outcomes.items() if o in FAILING)
    run = SuiteRun(
        ref=ref,
        commit=commit,
        command=command,
        exit_code=result.exit_code,
        passed=passed,
        timed_out=result.timed_out,
        duration_s=round(result.duration_s, 2),
        sandbox=sandbox.name,
        failing=named or list(compact.failing),
        log="" if passed else compact.text,
        raw_tokens=compact.raw_tokens,
    )
    return SuiteOutcome(run, outcomes)


def _relative_paths(output: str, tree: Path) -> str:
    """The log with the throwaway worktree's path cut, so paths read as in the repository."""
    for root in {str(tree), os.path.realpath(tree)}:
        output = output.replace(f"file://{root}/", "").replace(f"{root}/", "")
    return output


def compare_runs(head: SuiteOutcome, base: SuiteOutcome) -> tuple[list[str], list[str]]:
    """(failing only at head, failing at base but passing at head)."""
    new = sorted(head.failing - base.failing)
    fixed = sorted(t for t in base.failing - head.failing if head.outcomes.get(t) == "passed")
    return new, fixed
