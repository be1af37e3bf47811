"""Isolation for a run: git worktrees, checkpoints and verified rollback, the path policy for
edits, the repository's environment in the worktree, and confined commands (bubblewrap, or,
only when asked for, limits and a PID namespace on the host)."""

from sandbox.changes import PathChange
from sandbox.checkpoint import (
    Checkpoint,
    Checkpoints,
    InvalidRollbackRef,
    RollbackError,
    RollbackReport,
    resolve_rollback_ref,
)
from sandbox.confine import (
    CommandResult,
    Sandbox,
    SandboxUnavailable,
    bwrap_unavailable_reason,
    make_sandbox,
)
from sandbox.globs import glob_match
from sandbox.limits import Limits
from sandbox.policy import DEFAULT_PROTECTED, PathPolicy, PolicyDecision, out_of_scope
from sandbox.repo_env import (
    RepoEnvironment,
    RepoEnvironmentError,
    prepare_environment,
    prepare_tree_environment,
)
from sandbox.setup import SetupFailed, run_setup
from sandbox.workspace import Workspace, WorkspaceError, new_run_id, prune_stale_worktrees

__all__ = [
    "DEFAULT_PROTECTED",
    "Checkpoint",
    "Checkpoints",
    "CommandResult",
    "InvalidRollbackRef",
    "Limits",
    "PathChange",
    "PathPolicy",
    "PolicyDecision",
    "RepoEnvironment",
    "RepoEnvironmentError",
    "RollbackError",
    "RollbackReport",
    "Sandbox",
    "SandboxUnavailable",
    "SetupFailed",
    "Workspace",
    "WorkspaceError",
    "bwrap_unavailable_reason",
    "glob_match",
    "make_sandbox",
    "new_run_id",
    "out_of_scope",
    "prepare_environment",
    "prepare_tree_environment",
    "prune_stale_worktrees",
    "resolve_rollback_ref",
    "run_setup",
]
