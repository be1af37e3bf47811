"""A POSIX ACL that lets one more user write a directory tree without chown.

When the harness runs as root, confined commands run as `nobody` (sandbox/privileges.py) and
must still write the worktree. Setting an access and a default ACL on the worktree's empty
directory before git populates it makes every file git, the tools, rollbacks and the commands
create inherit the grant: no walk, no chown, nothing to undo. The xattrs are written directly
(the format of `system.posix_acl_*`: a version-2 header, then (tag u16, perm u16, id u32)
entries), so no acl tools need be installed.
"""

from __future__ import annotations

import errno
import os
import struct
from pathlib import Path

NOBODY_UID = 65534

_VERSION = 2
_USER_OBJ, _USER, _GROUP_OBJ, _MASK, _OTHER = 0x01, 0x02, 0x04, 0x10, 0x20
_UNDEFINED = 0xFFFFFFFF
_RWX, _RX = 7, 5
_ATTRS = ("system.posix_acl_access", "system.posix_acl_default")


def encode_acl(entries: list[tuple[int, int, int]]) -> bytes:
    """The xattr value for (tag, perm, id) entries, which must be sorted by tag then id."""
    header = struct.pack("<I", _VERSION)
    return header + b"".join(struct.pack("<HHI", tag, perm, ident) for tag, perm, ident in entries)


def grant_tree(directory: Path, uid: int = NOBODY_UID) -> bool:
    """Give `uid` rwx on `directory` and, by inheritance, on everything created below it
    from now on. False when the file system does not support ACLs (the caller falls back)."""
    value = encode_acl(
        [
            (_USER_OBJ, _RWX, _UNDEFINED),
            (_USER, _RWX, uid),
            (_GROUP_OBJ, _RX, _UNDEFINED),
            (_MASK, _RWX, _UNDEFINED),
            (_OTHER, _RX, _UNDEFINED),
        ]
    )
    try:
        for attr in _ATTRS:
            os.setxattr(directory, attr, value)
    except OSError as error:
        if error.errno in (errno.ENOTSUP, errno.EOPNOTSUPP, errno.EPERM, errno.EACCES):
            return False
        raise
    return True


def grants(path: Path, uid: int = NOBODY_UID) -> bool:
    """Whether `path`'s access ACL has a named-user entry for `uid` (used by the tests)."""
    try:
        raw = os.getxattr(path, _ATTRS[0])
    except OSError:
        return False
    entries = [struct.unpack_from("<HHI", raw, 4 + 8 * i) for i in range((len(raw) - 4) // 8)]
    return any(tag == _USER and ident == uid for tag, _perm, ident in entries)
