"""Unix sockets of the host, which a confined command must not reach.

`--unshare-net` stops IP and abstract sockets (those belong to a network namespace), but a
pathname socket is a file: any command that can see it can `connect()` to it, and behind it
may sit the Docker daemon, a D-Bus session bus, an ssh or gpg agent. Most are under /run or
in a home, which the view hides whole; the rest are found where the kernel lists them
(/proc/net/unix of the harness's network namespace, read at each command start, since
sockets come and go) and masked one by one in the view. A command's own sockets live in its
own network namespace and are never in that list.

This masking is only a first layer: a socket bound after the lookup, or by a listener in
another network namespace, is not in the list. What holds is sandbox/unix_sockets.py: every
connect() of a confined command is decided by the harness, by the socket's inode.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

PROC_NET_UNIX = Path("/proc/net/unix")


def host_sockets(table: Path = PROC_NET_UNIX) -> list[Path]:
    """Every pathname socket bound in this network namespace that still exists."""
    try:
        lines = table.read_bytes().decode("utf-8", errors="surrogateescape").splitlines()[1:]
    except OSError:
        return []
    found: dict[Path, None] = {}
    for line in lines:
        fields = line.split(maxsplit=7)
        if len(fields) < 8 or not fields[7].startswith("/"):
            continue  # unbound, or abstract (@name)
        path = Path(os.path.realpath(os.path.dirname(fields[7]))) / os.path.basename(fields[7])
        try:
            if stat.S_ISSOCK(os.lstat(path).st_mode):
                found[path] = None
        except OSError:
            continue
    return list(found)
