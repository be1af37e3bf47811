"""What every check is given and returns: the step's environment (`VerifyEnv`: the worktree,
the sandbox, the checkpoint, the baseline) and a `Check` with compacted evidence; and the two
reads every family makes, a file at the checkpoint and as it is now (never through a link out
of the worktree)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from coder.tools.textfile import NotText, decode_file
from coder.verdict.base_probe import BaseProbe
from coder.verdict.baseline import Baseline
from coder.verdict.evidence import environmental
from coder.verdict.judge import Verdict
from coder.verdict.run import TestRun
from contracts.validation import CompiledStep
from sandbox.checkpoint import Checkpoints
from sandbox.confine import Sandbox
from sandbox.gitcli import GitError, git
from sandbox.policy import PathPolicy

EVIDENCE_BUDGET = 600


@dataclass(frozen=True)
class Check:
    kind: str
    status: str
    """passed | failed | unverified"""
    evidence: str
    detail: str = ""
    command_s: float = 0.0
    run: TestRun | None = None
    """The test run behind a tests_pass check, kept so an identical final check can reuse it."""
    verdict: Verdict | None = None
    """The judgement of that run, as data (what regressed, what is the sandbox's doing)."""
    timed_out: bool = False
    """The check's command was killed at its time limit."""
    proven: tuple[str, ...] = ()
    """A passed `tests_fail_before`: the test ids it proved fail before and pass after (what
    coder.attempts runs against other candidates' trees)."""

    @property
    def environmental(self) -> bool:
        """Failed for the sandbox's reasons, not the change's."""
        return self.verdict is not None and environmental(self.verdict)


@dataclass
class VerifyEnv:
    root: Path
    sandbox: Sandbox
    checkpoints: Checkpoints
    checkpoint_sha: str
    test_cmd: str | None
    cmd_timeout_s: float
    protected: list[str]
    baseline: Baseline | None = None
    """Tests red before the run do not fail a step unless its invariant names them by id."""
    runs: list[TestRun] = field(default_factory=list)
    """The test runs this step's checks made so far (a proof reuses one that ran its tests)."""
    probe: BaseProbe | None = None
    """Runs a part of the test command at the base where the baseline's log says nothing."""
    removal_allowed: str = ""
    """Why tests that ran at the base may be removed (the task asks for it, the user wrote
    the plan), in words for the evidence; empty: they may not."""
    base_commit: str | None = None
    """The run's base: where a test "ran at the base" is asked of the tree itself when the
    baseline's run names no test (a reporter that lists files, not tests)."""


Checker = Callable[[Any, CompiledStep, VerifyEnv], Check]


def at_checkpoint(env: VerifyEnv, rel: str) -> str | None:
    try:
        blob = git(["show", f"{env.checkpoint_sha}:{rel}"], env.root)
    except GitError:
        return None
    return blob.decode("utf-8", errors="replace")


def current_text(env: VerifyEnv, rel: str) -> str | None:
    """A worktree file's text as the tools decode it; None for binaries and for paths the model
    may not read, such as a link out of the worktree (it could point one at /proc/self/environ
    and read it back as evidence). The same rule as the tools': the read policy of `PathPolicy`."""
    data = PathPolicy(env.root, None, ()).read(rel)
    if data is None:
        return None
    file = decode_file(data)
    return None if isinstance(file, NotText) else file.view
