"""What test runners write into the tree (`.tap/`, `coverage/`, `.pytest_cache/`): never a
change of the step's, never committed, never a scratch file to remove.

The runner modules name their artifacts (`Runner.artifacts`, gitignore-style); a project that
does not ignore them would otherwise see the harness's own baseline run blamed on the model
("this step created file(s) outside its files") and its commit carry a coverage report.

Untracked, they are ignored rather than removed after each run: the model's own `run` of the
test command writes them too, and they are no more its doing then. Only files git does not
track are left out of a change: a tracked file a step changes is always its change, and is
never removed. A tracked one the harness's own run rewrites (a `junit.xml` the project keeps in
git) is put back as it was before that run (`keep_tracked`), so it is neither blamed on the
model nor committed.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from sandbox.gitcli import git, split_z
from sandbox.nofollow import read_beneath, write_beneath

MAGIC_PATHSPECS = {"GIT_LITERAL_PATHSPECS": "0"}
"""The environment a git call taking `exclude_pathspecs` needs: the harness's git reads every
pathspec literally otherwise, and `:(exclude)` would name a file of that name."""


@dataclass(frozen=True)
class Artifacts:
    patterns: tuple[str, ...] = ()
    """`dir/` names a directory anywhere, `/path` a file or directory at that path from the
    root (what a runner's arguments named), any other pattern a file's name anywhere."""

    def matches(self, path: str) -> bool:
        return self._artifact_root(path) is not None

    def exclude_pathspecs(self, untracked: Iterable[str]) -> list[str]:
        """git pathspecs that leave the artifacts among `untracked` (paths git lists as
        untracked) out of `git add -A -- . <these>`: each artifact directory once, each
        artifact file by itself (git refuses a pathspec that matches nothing, so only what
        is there is named). The git call needs `MAGIC_PATHSPECS` in its environment."""
        out: dict[str, None] = {}
        for path in untracked:
            top = self._artifact_root(path)
            if top is not None:
                out[f":(exclude,literal){top}"] = None
        return list(out)

    def pathspecs(self) -> list[str]:
        """git pathspecs for what the patterns match (with `MAGIC_PATHSPECS`), so that git
        lists only those of a large tree."""
        out = []
        for pattern in self.patterns:
            if pattern.startswith("/"):
                out.append(f":(literal){pattern.strip('/')}")
            elif pattern.endswith("/"):
                out.append(f":(glob)**/{pattern.rstrip('/')}/**")
            else:
                out.append(f":(glob)**/{pattern}")
        return out

    def _artifact_root(self, path: str) -> str | None:
        """The artifact `path` is or lies in (a directory's path), or None."""
        clean = path.strip("/")
        parts = clean.split("/")
        for pattern in self.patterns:
            if pattern.startswith("/"):
                anchored = pattern.strip("/")
                if clean == anchored or clean.startswith(anchored + "/"):
                    return anchored
            elif pattern.endswith("/"):
                name = pattern.rstrip("/")
                dirs = parts if path.endswith("/") else parts[:-1]
                for i, part in enumerate(dirs):
                    if fnmatch.fnmatchcase(part, name):
                        return "/".join(parts[: i + 1])
            elif fnmatch.fnmatchcase(parts[-1], pattern):
                return clean
        return None

    def without(self, paths: Iterable[str]) -> list[str]:
        return [p for p in paths if not self.matches(p)]


@dataclass
class Kept:
    """The tracked artifacts of a tree as they were before a run, to put back after it."""

    root: Path
    files: dict[str, tuple[bytes, int]] = field(default_factory=dict)
    """Path -> its bytes and mode."""

    def restore(self) -> list[str]:
        """Each kept file the run changed, removed or replaced, put back; the paths put back."""
        back: list[str] = []
        for rel, (data, mode) in self.files.items():
            if read_beneath(self.root, rel) != data:
                write_beneath(self.root, rel, data, mode)
                back.append(rel)
        return back


_REGULAR = {"100644": 0o644, "100755": 0o755}


def keep_tracked(root: Path, artifacts: Artifacts) -> Kept:
    """The regular files git tracks in `root` that `artifacts` match, as they are now (outside
    a git tree nothing is kept)."""
    kept = Kept(root)
    if not artifacts.patterns:
        return kept
    listed = git(
        ["ls-files", "-z", "--stage", "--", *artifacts.pathspecs()],
        root,
        check=False,
        env=MAGIC_PATHSPECS,
    )
    for entry in split_z(listed):
        meta, _, rel = entry.partition("\t")
        mode = _REGULAR.get(meta.split(" ", 1)[0])
        if mode is None or rel in kept.files or not artifacts.matches(rel):
            continue
        data = read_beneath(root, rel)
        if data is not None:
            kept.files[rel] = (data, mode)
    return kept
