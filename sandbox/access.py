"""Whether another user may read a path, decided from permission bits and POSIX ACLs.

A root harness copies included files into a worktree that `nobody` may read, and binds
included directories where `nobody` can reach them without passing the directories above
them. Either would hand a command what the host denies it: a 0600 key in a 0700 directory
of the repository. So before anything is brought in, the path is walked as the kernel would
walk it for that user, from the checkout's top (which commands reach by the view) down:
search on every directory, read on the end (and search, for a directory).
"""

from __future__ import annotations

import os
import stat
import struct
from pathlib import Path

_ACCESS_ACL = "system.posix_acl_access"
_USER_OBJ, _USER, _GROUP_OBJ, _GROUP, _MASK, _OTHER = 0x01, 0x02, 0x04, 0x08, 0x10, 0x20
_R, _X = 4, 1


def denied_below(top: Path, target: Path, uid: int, gid: int) -> Path | None:
    """The first path from `top` (exclusive) down to `target` that `uid`:`gid` (no other
    groups) could not pass or read; None when it could read `target`. `target` must be a
    resolved path under `top`."""
    rel = target.relative_to(top)
    path = top
    for index, part in enumerate(rel.parts):
        path = path / part
        last = index == len(rel.parts) - 1
        try:
            info = os.stat(path)
        except OSError:
            return path
        need = _R if last else _X
        if last and stat.S_ISDIR(info.st_mode):
            need |= _X
        if _allowed(path, info, uid, gid) & need != need:
            return path
    return None


def _allowed(path: Path, info: os.stat_result, uid: int, gid: int) -> int:
    """The rwx bits (as 0-7) `uid`:`gid` gets on `path`, ACL included."""
    mode = info.st_mode
    owner, group, other = (mode >> 6) & 7, (mode >> 3) & 7, mode & 7
    if info.st_uid == uid:
        return owner
    entries = _acl_entries(path)
    if not entries:
        return group if info.st_gid == gid else other
    mask = next((perm for tag, perm, _ in entries if tag == _MASK), 7)
    for tag, perm, ident in entries:
        if tag == _USER and ident == uid:
            return perm & mask
    groups = [
        perm
        for tag, perm, ident in entries
        if (tag == _GROUP_OBJ and info.st_gid == gid) or (tag == _GROUP and ident == gid)
    ]
    if groups:
        union = 0
        for perm in groups:
            union |= perm
        return union & mask
    return next((perm for tag, perm, _ in entries if tag == _OTHER), other)


def _acl_entries(path: Path) -> list[tuple[int, int, int]]:
    try:
        raw = os.getxattr(path, _ACCESS_ACL)
    except OSError:
        return []
    count = (len(raw) - 4) // 8
    return [struct.unpack_from("<HHI", raw, 4 + 8 * i) for i in range(count)]
