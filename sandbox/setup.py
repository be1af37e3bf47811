"""`setup_cmd`: the repository's own build step, run confined in the fresh worktree.

It runs once, after the environment is in place and before the baseline, under the same
sandbox and timeout as every command. It may only create ignored files (a build directory,
generated code): a change git would see would be taken for the first step's work, so that
is refused like a failure. Every failure is one line for the person (exit 2); the
compacted tail of the output goes with it for the run directory.
"""

from __future__ import annotations

from pathlib import Path

from sandbox.changes import scan_worktree
from sandbox.confine import Sandbox
from sandbox.running import CommandResult
from summarizers.logs import compact_log

TAIL_BUDGET = 800


class SetupFailed(Exception):
    """`setup_cmd` could not prepare the worktree; `str()` is one line, `log` the output."""

    def __init__(self, message: str, result: CommandResult | None = None) -> None:
        super().__init__(message)
        self.result = result
        self.log = compact_log(result.output, budget=TAIL_BUDGET).text if result else ""


def run_setup(sandbox: Sandbox, root: Path, command: str, timeout_s: float) -> CommandResult:
    """Run `command` in `root`; SetupFailed unless it exits 0 and leaves git's view clean."""
    result = sandbox.run(command, cwd=root, timeout_s=timeout_s)
    shown = f"setup_cmd `{command}`"
    if result.timed_out:
        raise SetupFailed(f"{shown} did not finish within {timeout_s:.0f}s", result)
    if result.exit_code == 127:
        raise SetupFailed(f"{shown}: command not found (exit 127)", result)
    if result.exit_code == 126:
        raise SetupFailed(f"{shown}: not executable (exit 126)", result)
    if result.exit_code != 0:
        last = _last_line(result.output)
        raise SetupFailed(f"{shown} failed with exit {result.exit_code}{last}", result)
    changed = [c.path for c in scan_worktree(root, classify=False).changes]
    if changed:
        listed = ", ".join(changed[:3]) + (
            f" and {len(changed) - 3} more" if len(changed) > 3 else ""
        )
        raise SetupFailed(
            f"{shown} changed files git sees ({listed}); a setup step may only create "
            "ignored files",
            result,
        )
    return result


def _last_line(output: str) -> str:
    lines = [line.strip() for line in output.splitlines() if line.strip()]
    return f": {lines[-1][:200]}" if lines else ""
