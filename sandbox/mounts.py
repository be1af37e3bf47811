"""An ordered bubblewrap mount list that can answer "where does this host path show?".

bwrap applies mounts in argument order, a later one shadowing what an earlier one put at or
above its target. Keeping them as data (not strings) lets the view ask, for a host socket,
at which paths inside it is still reachable, and lets bind targets under a fresh tmpfs get
their parent directories created traversable (bwrap 0.8 makes them 0700 otherwise, and a
command running as `nobody` could not reach what is bound there).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

_SHADOWING = ("bind", "ro-bind", "tmpfs", "dev", "proc", "tmp-overlay")


@dataclass(frozen=True)
class Mount:
    op: str  # bind | ro-bind | tmpfs | dir | dev | proc | remount-ro | overlay-src | tmp-overlay
    dest: Path
    source: Path | None = None
    perms: int | None = None
    size: int | None = None


class MountPlan:
    def __init__(self) -> None:
        self.mounts: list[Mount] = []
        self._hidden: list[Path] = []

    def ro(self, source: Path, dest: Path | None = None) -> None:
        self._with_parents(Mount("ro-bind", dest or source, source))

    def rw(self, source: Path, dest: Path) -> None:
        self._with_parents(Mount("bind", dest, source))

    def tmp_overlay(self, source: Path, dest: Path) -> None:
        """bwrap 0.9+: `source` at `dest` with a throwaway writable layer over it."""
        self.mounts.append(Mount("overlay-src", source, source))
        self._with_parents(Mount("tmp-overlay", dest))

    def tmpfs(self, dest: Path, perms: int = 0o755, size: int | None = None) -> None:
        self._with_parents(Mount("tmpfs", dest, perms=perms, size=size))

    def dir(self, dest: Path, perms: int = 0o755) -> None:
        self._with_parents(Mount("dir", dest, perms=perms))

    def special(self, op: str, dest: Path) -> None:
        self.mounts.append(Mount(op, dest))

    def hide(self, dest: Path, size: int | None = None) -> None:
        """An empty tmpfs over `dest`, made read-only by `seal` once everything meant to
        be bound below it (for which bwrap makes mount points there) is in place."""
        self.tmpfs(dest, size=size)
        self._hidden.append(dest)

    def seal(self) -> None:
        for dest in self._hidden:
            self.mounts.append(Mount("remount-ro", dest))
        self._hidden = []

    def mask(self, dest: Path, *, is_dir: bool) -> None:
        """Make `dest` empty: a read-only tmpfs over a directory, /dev/null over a file."""
        if is_dir:
            self.tmpfs(dest, perms=0o555)
            self.mounts.append(Mount("remount-ro", dest))
        else:
            self.ro(Path("/dev/null"), dest)

    def visible_at(self, host: Path) -> list[Path]:
        """The paths inside at which the host file `host` can be reached."""
        seen: list[Path] = []
        for index, mount in enumerate(self.mounts):
            if mount.op not in ("bind", "ro-bind") or mount.source is None:
                continue
            if host != mount.source and not host.is_relative_to(mount.source):
                continue
            inside = mount.dest / host.relative_to(mount.source)
            if self._topmost(inside) == index and inside not in seen:
                seen.append(inside)
        return seen

    def argv(self) -> list[str]:
        args: list[str] = []
        for mount in self.mounts:
            if mount.perms is not None:
                args += ["--perms", f"{mount.perms:04o}"]
            if mount.size is not None:
                args += ["--size", str(mount.size)]
            if mount.op == "overlay-src" and mount.source is not None:
                args += ["--overlay-src", str(mount.source)]
            elif mount.source is not None:
                args += [f"--{mount.op}", str(mount.source), str(mount.dest)]
            else:
                args += [f"--{mount.op}", str(mount.dest)]
        return args

    def _topmost(self, path: Path) -> int | None:
        """The index of the mount that decides what is at `path`."""
        for index in range(len(self.mounts) - 1, -1, -1):
            mount = self.mounts[index]
            if mount.op in _SHADOWING and (path == mount.dest or path.is_relative_to(mount.dest)):
                return index
        return None

    def _with_parents(self, mount: Mount) -> None:
        """Create the target's missing parents as 0755 directories when they would be made
        on a tmpfs of ours (elsewhere they exist on the host, or bwrap cannot make them)."""
        top = self._topmost(mount.dest.parent)
        if top is not None and self.mounts[top].op == "tmpfs":
            base = self.mounts[top].dest
            made = {m.dest for m in self.mounts if m.op in ("dir", *_SHADOWING)}
            for parent in reversed(mount.dest.parents):
                if parent.is_relative_to(base) and parent != base and parent not in made:
                    self.mounts.append(Mount("dir", parent, perms=0o755))
        self.mounts.append(mount)
