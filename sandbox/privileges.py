"""Who a confined command runs as: never with root's power over the host's files.

A root harness would otherwise start bwrap, and so the command, as uid 0: dropping
capabilities still leaves root the owner of most of the host (and /etc/shadow readable).
So as root, bwrap keeps its capabilities just long enough for `setpriv` to switch to
`nobody` with an empty bounding set, no inheritable or ambient capabilities and
no_new_privs. The worktree is writable for `nobody` through the ACL it was created with
(sandbox/acl.py); the checkout's path and the git directory must be reachable for that uid.
When they are not (no ACL support, a 0700 parent, a git directory only root can read), the
command runs as root without capabilities and the shadow-like files are masked; the run says
so once. A non-root harness needs none of this: bwrap's user namespace keeps the user's uid.
"""

from __future__ import annotations

import os
import shutil
import stat
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from sandbox.acl import NOBODY_UID

SHADOW_FILES = (
    "/etc/shadow",
    "/etc/shadow-",
    "/etc/gshadow",
    "/etc/gshadow-",
    "/etc/sudoers",
    "/etc/sudoers.d",
    "/etc/ssl/private",
    "/etc/security/opasswd",
)


@dataclass(frozen=True)
class Privileges:
    kind: str  # nobody | root | user
    prefix: list[str] = field(default_factory=list)  # runs inside bwrap, before the command
    note: str | None = None  # why a root harness could not drop to nobody

    @property
    def cap_drop(self) -> bool:
        return self.kind != "nobody"  # setpriv needs CAP_SETUID, then drops everything

    @property
    def env(self) -> dict[str, str]:
        """`nobody` runs git in a tree root owns: trust it (git's safe.directory check)."""
        if self.kind != "nobody":
            return {}
        return {
            "GIT_CONFIG_COUNT": "1",
            "GIT_CONFIG_KEY_0": "safe.directory",
            "GIT_CONFIG_VALUE_0": "*",
        }

    def masks(self) -> list[Path]:
        """What root without capabilities could still read, masked in the view."""
        if self.kind != "root":
            return []
        found = [Path(p) for p in SHADOW_FILES if os.path.lexists(p)]
        ssh = Path("/etc/ssh")
        if ssh.is_dir():
            found += sorted(p for p in ssh.iterdir() if p.name.endswith("_key"))
        return found


def choose_privileges(
    *,
    shared_uid: int | None,
    mount_point: Path,
    readable: Iterable[Path],
    covered: Iterable[Path],
) -> Privileges:
    """`mount_point`: where the worktree is seen (its parents must be searchable);
    `readable`: host paths the command reads as the new uid (the git directory, exposed
    dependencies); `covered`: tmpfs roots of the view, whose parents bwrap makes 0755."""
    if os.geteuid() != 0:
        return Privileges("user")
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        return _as_root("setpriv (util-linux) is not installed")
    if shared_uid != NOBODY_UID:
        return _as_root("the worktree's file system does not support POSIX ACLs")
    why = _unreachable(mount_point, list(readable), list(covered))
    if why is not None:
        return _as_root(why)
    prefix = [
        setpriv,
        f"--reuid={NOBODY_UID}",
        f"--regid={NOBODY_UID}",
        "--clear-groups",
        "--bounding-set=-all",
        "--inh-caps=-all",
        "--ambient-caps=-all",
        "--no-new-privs",
        "--",
    ]
    return Privileges("nobody", prefix)


def _as_root(why: str) -> Privileges:
    note = f"commands run as root without capabilities ({why}); /etc/shadow and the like are masked"
    return Privileges("root", note=note)


def _unreachable(mount_point: Path, readable: list[Path], covered: list[Path]) -> str | None:
    """Why `nobody` could not get to the worktree, or read one of `readable` (bound
    elsewhere in the view, so only the path itself counts)."""
    for parent in reversed(mount_point.parents):
        if any(parent == c or parent.is_relative_to(c) for c in covered):
            continue
        if not _other_can(parent, stat.S_IXOTH):
            return f"{parent} is not searchable by other users"
    for path in readable:
        if not _other_can(path, stat.S_IROTH | (stat.S_IXOTH if path.is_dir() else 0)):
            return f"{path} is not readable by other users"
    return None


def _other_can(path: Path, bits: int) -> bool:
    try:
        mode = path.stat().st_mode
    except OSError:
        return True  # nothing there: nothing to be refused
    return mode & bits == bits
