"""One candidate's proven regression tests run on another candidate's tree, by the verifier's
own machinery, confined like every command.

A proof names tests the candidate added ("the new tests in tests/test_x.py fail before this
step and pass after"). On another candidate's tree those tests may not exist, or exist in that
candidate's own version: so the other tree is checked out beside the repository
(`sandbox.proof_tree.tree_at`, as a step's proof checks out its checkpoint), the proving
candidate's version of each test file is laid over it (read from its commit, a symlink as a
symlink), and the ids are run with the command a `tests_pass` on those paths runs
(`command_for_paths`), through `run_tests` in a sandbox made like the attempts' own.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from coder.attempts.selection import Attempted, Exchange
from coder.config import ConfigError, load_repo_config
from coder.verdict.proof import outcome_of
from coder.verdict.run import TestRun, run_tests
from coder.verdict.scoping import PathsRun, command_for_paths
from sandbox.confine import SandboxUnavailable, make_sandbox
from sandbox.environment import NamedEnv
from sandbox.gitcli import GitError, git
from sandbox.limits import Limits as CommandLimits
from sandbox.proof_tree import Link, Overlay, tree_at
from sandbox.repo_env import RepoEnvironmentError, prepare_tree_environment
from sandbox.wrapper import EnvSandbox
from summarizers.runners.names import Project, read_names

_SYMLINK_MODE = "120000"


@dataclass(frozen=True)
class CrossProofs:
    """How the attempts ran their tests, to run one's proofs on another's tree the same way."""

    repo: Path
    test_cmd: str | None
    sandbox_mode: str
    env: NamedEnv
    timeout_s: float
    limits: CommandLimits | None = None

    def exchange(self, proofs_of: Attempted, tree_of: Attempted) -> Exchange:
        ids = list(proofs_of.proven)
        if not ids:
            return Exchange(0, 0)
        if not self.test_cmd or not proofs_of.final_commit or not tree_of.final_commit:
            return Exchange(0, len(ids), tuple(ids), "no test command or no commit to run on")
        files = _test_files(self.repo, proofs_of.final_commit, ids)
        overlay = files_at(self.repo, proofs_of.final_commit, files)
        if isinstance(overlay, str):
            return Exchange(0, len(ids), tuple(ids), overlay)
        ran = self.run(tree_of.final_commit, overlay, ids)
        if isinstance(ran, str):
            return Exchange(0, len(ids), tuple(ids), ran)
        selection, run = ran
        facts = run.facts()
        failing = tuple(t.name for t in selection.targets if outcome_of(t, facts) != "passed")
        if selection.problem or len(selection.targets) != len(ids):
            failing = tuple(ids)
        return Exchange(len(ids) - len(failing), len(ids), failing)

    def run(
        self, commit: str, overlay: Overlay, names: list[str]
    ) -> tuple[PathsRun, TestRun] | str:
        """The tests `names` stand for, run as a `tests_pass` on them runs, on the tree at
        `commit` with `overlay` laid over it; or why they could not be run."""
        assert self.test_cmd is not None
        with tree_at(self.repo, commit, overlay) as tree:
            sandbox = self._sandbox(tree)
            if isinstance(sandbox, str):
                return sandbox
            selection = command_for_paths(self.test_cmd, names, tree)
            return selection, run_tests(sandbox, tree, selection.command, self.timeout_s)

    def _sandbox(self, tree: Path) -> EnvSandbox | str:
        try:
            config = load_repo_config(tree)
        except ConfigError:
            config = None
        try:
            environment = prepare_tree_environment(
                tree,
                include=(config.include if config else None) or [],
                sandbox_mode=self.sandbox_mode,
                test_cmd=self.test_cmd,
                own_includes=True,
            )
            inner = make_sandbox(
                self.sandbox_mode, tree, environment=environment, limits=self.limits
            )
        except (RepoEnvironmentError, SandboxUnavailable) as exc:
            return f"the candidate's tree could not be set up: {exc}"
        return EnvSandbox(inner, self.env)


def _test_files(repo: Path, commit: str, ids: list[str]) -> set[str]:
    """The files the ids are in, as the runners spell them (`f::t`, `f > d > t`, dotted)."""
    try:
        listed = git(["ls-tree", "-r", "-z", "--name-only", commit], repo)
    except GitError:
        return set()
    project = Project(frozenset(listed.decode(errors="surrogateescape").split("\0")) - {""})
    names = read_names(ids, project)
    return {n.path for n in names if n.path} if isinstance(names, list) else set()


def files_at(repo: Path, commit: str, paths: set[str]) -> Overlay | str:
    """How `paths` stand in `commit`: a file's bytes, a symlink as a Link, None when absent.
    Read from git's objects, so nothing on disk is followed."""
    overlay: dict[str, bytes | Link | None] = {}
    for rel in sorted(paths):
        try:
            listed = git(["ls-tree", "-z", commit, "--", rel], repo).decode(
                errors="surrogateescape"
            )
        except GitError as exc:
            return f"{rel} could not be read at {commit[:12]}: {exc}"
        entry = listed.split("\0", 1)[0]
        meta, _, name = entry.partition("\t")
        parts = meta.split()
        if name != rel or len(parts) != 3 or parts[1] != "blob":
            overlay[rel] = None
            continue
        data = git(["cat-file", "blob", parts[2]], repo)
        overlay[rel] = (
            Link(data.decode(errors="surrogateescape")) if parts[0] == _SYMLINK_MODE else data
        )
    return overlay
