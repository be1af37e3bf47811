"""What test runners write into the tree (`.tap/`, `coverage/`, `.pytest_cache/`): never a
change of the step's, never committed, never a scratch file to remove.

The runner modules name their artifacts (`Runner.artifacts`, gitignore-style); a project that
does not ignore them would otherwise see the harness's own baseline run blamed on the model
("this step created file(s) outside its files") and its commit carry a coverage report. Only
files git does not track are left out: a tracked file a step changes is always its change.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Iterable
from dataclasses import dataclass


@dataclass(frozen=True)
class Artifacts:
    patterns: tuple[str, ...] = ()
    """`dir/` names a directory anywhere; any other pattern a file's name anywhere."""

    def matches(self, path: str) -> bool:
        parts = path.strip("/").split("/")
        for pattern in self.patterns:
            if pattern.endswith("/"):
                name = pattern.rstrip("/")
                if any(fnmatch.fnmatchcase(p, name) for p in parts[:-1]) or (
                    path.endswith("/") and fnmatch.fnmatchcase(parts[-1], name)
                ):
                    return True
            elif fnmatch.fnmatchcase(parts[-1], pattern):
                return True
        return False

    def exclude_pathspecs(self, untracked: Iterable[str]) -> list[str]:
        """git pathspecs that leave the artifacts among `untracked` (paths git lists as
        untracked) out of `git add -A -- . <these>`: each artifact directory once, each
        artifact file by itself (git refuses a pathspec that matches nothing, so only what
        is there is named)."""
        out: dict[str, None] = {}
        for path in untracked:
            top = self._artifact_root(path)
            if top is not None:
                out[f":(exclude,literal){top}"] = None
        return list(out)

    def _artifact_root(self, path: str) -> str | None:
        parts = path.strip("/").split("/")
        for pattern in self.patterns:
            if pattern.endswith("/"):
                name = pattern.rstrip("/")
                for i, part in enumerate(parts[:-1]):
                    if fnmatch.fnmatchcase(part, name):
                        return "/".join(parts[: i + 1])
            elif fnmatch.fnmatchcase(parts[-1], pattern):
                return path
        return None

    def without(self, paths: Iterable[str]) -> list[str]:
        return [p for p in paths if not self.matches(p)]
