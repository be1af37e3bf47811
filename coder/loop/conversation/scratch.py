"""Scratch files a step's commands left behind, shown to the model once before verification.

A `run` that writes `reproduce.py` or appends to `ran.log` creates a file outside the step's
files, which fails the scope check and rolls the whole step back. The model is told first, at
its first `finish_step`, so it can remove them; a second `finish_step` with them still there
goes to verification and fails scope as before. No rollback for a file the model was never
told about.
"""

from __future__ import annotations

from dataclasses import dataclass

from sandbox.checkpoint import Checkpoints
from sandbox.policy import out_of_scope


@dataclass
class ScratchNotice:
    """The execute phase's `on_final`: rejects the first finish_step that would leave files
    the step created outside its `files`, naming them; accepts every later one."""

    checkpoints: Checkpoints
    checkpoint_sha: str
    files: list[str]
    protected: list[str]
    told: bool = False

    def __call__(self, tool: str, args: dict[str, object]) -> str | None:
        if self.told or tool != "finish_step":
            return None
        created = [
            c.path for c in self.checkpoints.changes_since(self.checkpoint_sha) if c.kind == "added"
        ]
        outside = out_of_scope(created, self.files, self.protected)
        if not outside:
            return None
        self.told = True
        listed = ", ".join(outside)
        return (
            f"not finished yet: this step created file(s) outside its files: {listed}. If they "
            f"are scratch (a reproduction script, a log), remove them with `run` (`rm {outside[0]}`), "
            "then call finish_step again. Left there, they fail the scope check and the whole "
            "step is rolled back. This is said once."
        )
