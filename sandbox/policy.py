"""Which paths an edit may touch.

Every refusal names what would have been allowed, because the reader is a model that has to
pick another path on its next turn. Reads are only checked for shape and containment; writes
must also fall within the step's declared files and outside the protected paths.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from sandbox.globs import any_match, normalize_path
from summarizers.repofiles import read_beneath

DEFAULT_PROTECTED: tuple[str, ...] = (".github/**",)


@dataclass(frozen=True)
class PolicyDecision:
    allowed: bool
    path: str  # the normalized repo-relative path (as given when it could not be normalized)
    reason: str  # empty when allowed
    resolved: str = ""
    """The path with links inside the repository followed (where an allowed path leads)."""


class PathPolicy:
    """The path rules for one step (or for a whole react run when `allowed` is None)."""

    def __init__(
        self,
        root: Path,
        allowed: Sequence[str] | None,
        protected: Sequence[str] = DEFAULT_PROTECTED,
    ) -> None:
        self.root = Path(os.path.realpath(root))
        self.allowed = None if allowed is None else tuple(allowed)
        self.protected = tuple(protected)

    def check(self, rel_path: str, *, write: bool) -> PolicyDecision:
        shape_problem = _shape_problem(rel_path)
        if shape_problem:
            return PolicyDecision(False, rel_path, f"{shape_problem}; {self._would_allow()}")
        path = normalize_path(rel_path)
        resolved = self._resolve(path)
        if resolved is None:
            return PolicyDecision(
                False,
                path,
                f"{path} goes through a symlink that leads outside the repository; "
                f"{self._would_allow()}",
            )
        if _touches_git_dir(resolved):
            return PolicyDecision(
                False,
                path,
                f"{path} resolves into .git/, which is off limits; {self._would_allow()}",
            )
        if not write:
            return PolicyDecision(True, path, "", resolved)
        for candidate in dict.fromkeys((path, resolved)):
            refusal = self._scope_refusal(candidate, path)
            if refusal:
                return PolicyDecision(False, path, refusal)
        return PolicyDecision(True, path, "", resolved)

    def read(self, rel_path: str, limit: int | None = None) -> bytes | None:
        """The bytes of a file the model may read (a link inside the repository is followed to
        its target there, by name), or None; the read itself never follows a link
        (`summarizers.repofiles.read_beneath`), so nothing outside the root is read even if the
        tree changed since the check."""
        decision = self.check(rel_path, write=False)
        if not decision.allowed or not decision.resolved:
            return None
        return read_beneath(self.root, decision.resolved, limit)

    def _scope_refusal(self, candidate: str, asked: str) -> str:
        via = "" if candidate == asked else f" (the symlink {asked} points to {candidate})"
        hit = any_match(candidate, self.protected)
        if hit is not None:
            return f"{candidate}{via} is protected ({hit}); {self._would_allow()}"
        if self.allowed is not None and any_match(candidate, self.allowed) is None:
            return f"{candidate}{via} is outside this step's files; {self._would_allow()}"
        return ""

    def _resolve(self, path: str) -> str | None:
        """The path after following symlinks, relative to the root; None when it escapes."""
        real = os.path.realpath(self.root / path)
        try:
            relative = os.path.relpath(real, self.root)
        except ValueError:
            return None
        if relative == os.curdir:
            return ""
        if relative == os.pardir or relative.startswith(os.pardir + os.sep):
            return None
        return normalize_path(relative)

    def _would_allow(self) -> str:
        protected = f" except {', '.join(self.protected)}" if self.protected else ""
        if self.allowed is None:
            return f"allowed: any repo-relative path outside .git/{protected}"
        files = ", ".join(self.allowed) if self.allowed else "(none)"
        return f"allowed: {files}{protected}"


def out_of_scope(
    paths: Iterable[str],
    allowed_globs: Sequence[str] | None,
    protected: Sequence[str] = DEFAULT_PROTECTED,
) -> list[str]:
    """The paths a step changed that it was not entitled to (for files_within_scope)."""
    allowed = None if allowed_globs is None else tuple(allowed_globs)
    shielded = tuple(protected)
    result: list[str] = []
    for raw in dict.fromkeys(paths):
        path = normalize_path(raw)
        if (
            _shape_problem(raw)
            or _touches_git_dir(path)
            or any_match(path, shielded) is not None
            or (allowed is not None and any_match(path, allowed) is None)
        ):
            result.append(raw)
    return result


def _shape_problem(rel_path: str) -> str:
    if not rel_path or not rel_path.strip():
        return "an empty path names nothing"
    if "\x00" in rel_path:
        return "a path may not contain a NUL byte"
    if (
        rel_path.startswith(("/", "\\", "~/"))
        or rel_path == "~"
        or (len(rel_path) > 1 and rel_path[1] == ":")
    ):
        return f"{rel_path} is absolute; use a path relative to the repository root"
    if ".." in rel_path.replace("\\", "/").split("/"):
        return f"{rel_path} contains '..'; use a path relative to the repository root"
    if not normalize_path(rel_path):
        return f"{rel_path} names the repository root, not a file"
    if _touches_git_dir(normalize_path(rel_path)):
        return f"{rel_path} is under .git/, which is off limits"
    return ""


def _touches_git_dir(path: str) -> bool:
    return any(segment.lower() == ".git" for segment in path.split("/"))
