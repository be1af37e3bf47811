"""Every connect() of a confined command, decided by the harness: no Unix socket of the host.

Threat model. A confined command (any code, any number of threads and processes, uid 65534
or root without capabilities, in its own network, PID and IPC namespaces) sees host paths
read-only, and any of them can hold a Unix socket: one bound later, or by a listener in
another network namespace (`unshare -n`), which /proc/net/unix of ours never lists. Such a
socket is a file; connect() reaches it whatever the namespace. So no path is trusted:
connect() is trapped for the whole process tree (sandbox/seccomp.py) and decided here, by
what the socket *is*: a pathname socket may be reached only if its inode is bound by a
socket of the command's own network namespace (sock_diag, UDIAG_SHOW_VFS, asked through a
netlink socket the launcher opened inside it). The host's sockets never are, whenever they
appear; the command's own (under its /tmp, the worktree, multiprocessing's) always are.
Abstract sockets belong to a network namespace, so only the command's own exist for it.

No time-of-check race: the harness never lets the kernel redo the call (no
SECCOMP_USER_NOTIF_FLAG_CONTINUE, which re-reads memory another thread can change). It
copies the address once, resolves the path once inside the command's root
(openat2 RESOLVE_IN_ROOT, no magic links, symlinks followed as connect() would) to an O_PATH
fd, checks that inode, and connects the command's own socket (pidfd_getfd: the very open
file, not the fd number) to `/proc/self/fd/N` of that O_PATH fd, replying with the result.
Other families (loopback TCP inside the namespace) are connected the same way.

Limits: the peer credentials (SO_PEERCRED) a listener of the command sees for a connection
are the harness's; AF_UNIX datagram sockets are refused outright (sandbox/seccomp.py); a
process on the host that joins the command's network namespace (root only) could bind there.
Should the harness's supervisor be gone, a trapped connect() fails (ENOSYS): closed, not open.
"""

from __future__ import annotations

import ctypes
import errno
import fcntl
import os
import select
import socket
import stat
import struct
import sys
import threading
import time
from pathlib import Path

from sandbox.seccomp import compiled_argv, compiled_launcher, launcher_argv

_NOTIF = struct.Struct("=QIIiIQ6Q")  # struct seccomp_notif
_RESP = struct.Struct("=QqiI")  # struct seccomp_notif_resp
NOTIF_RECV, NOTIF_SEND, NOTIF_ID_VALID = 0xC0502100, 0xC0182101, 0x40082102
_NR_OPENAT2, _NR_PIDFD_GETFD = 437, 438
_RESOLVE_NO_MAGICLINKS, _RESOLVE_IN_ROOT = 0x02, 0x10
_PIDFD_THREAD = os.O_EXCL
_SOCK_DIAG_BY_FAMILY, _NLM_F_REQUEST, _NLM_F_DUMP = 20, 0x1, 0x300
_NLMSG_DONE, _NLMSG_ERROR, _UDIAG_SHOW_VFS, _UNIX_DIAG_VFS = 3, 2, 0x2, 1
_MAX_ADDR = 128  # sizeof(struct sockaddr_storage)
MAX_PENDING = 64  # connect()s answered at once (a blocking one holds its thread); more wait

_libc = ctypes.CDLL(None, use_errno=True)
_libc.syscall.restype = ctypes.c_long


def python_for_launcher() -> str:
    """A Python every view shows (/usr is always bound), else the harness's own."""
    return "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else sys.executable


class ConnectSupervisor:
    """Answers the trapped connect() calls of one command; `prefix` goes before its argv
    (inside bwrap) and `pass_fds` to the process that starts bwrap."""

    def __init__(self) -> None:
        self._ours, self._theirs = socket.socketpair()
        channel = self._theirs.fileno()
        binary = compiled_launcher()
        self._binary = os.open(binary, os.O_RDONLY | os.O_CLOEXEC) if binary else None
        if self._binary is None:
            self.pass_fds: tuple[int, ...] = (channel,)
            self.prefix = launcher_argv(python_for_launcher(), channel)
        else:
            self.pass_fds = (channel, self._binary)
            self.prefix = compiled_argv(self._binary, channel)
        self._stop = threading.Event()
        self._wake_r, self._wake_w = os.pipe2(os.O_CLOEXEC)
        self._diag_lock = threading.Lock()
        self._workers: list[threading.Thread] = []
        self._slots = threading.BoundedSemaphore(MAX_PENDING)
        self._thread = threading.Thread(target=self._serve, name="connect-supervisor", daemon=True)
        self._thread.start()

    def close(self) -> None:
        """After the command ended: stop answering and release every fd."""
        if self._stop.is_set():
            return
        self._stop.set()
        os.write(self._wake_w, b"x")
        self._theirs.close()
        if self._binary is not None:
            os.close(self._binary)
        try:
            self._ours.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self._thread.join(timeout=5)
        self._ours.close()
        os.close(self._wake_r)
        os.close(self._wake_w)

    def _serve(self) -> None:
        try:
            _, fds, _, _ = socket.recv_fds(self._ours, 1, 2)
        except OSError:
            return
        if len(fds) != 2:
            for fd in fds:
                os.close(fd)
            return
        listener, diag = fds
        try:
            self._loop(listener, diag)
        finally:
            deadline = time.monotonic() + 2
            for worker in self._workers:
                worker.join(timeout=max(0.0, deadline - time.monotonic()))
            if not any(w.is_alive() for w in self._workers):  # else a late answer could
                os.close(listener)  # reach whatever file reused the number: leave them open
                os.close(diag)

    def _loop(self, listener: int, diag: int) -> None:
        poller = select.poll()
        poller.register(listener, select.POLLIN)
        poller.register(self._wake_r, select.POLLIN)
        while not self._stop.is_set():
            events = dict(poller.poll())
            if self._wake_r in events:
                return
            if not events.get(listener, 0) & select.POLLIN:
                return  # every process under the filter is gone (POLLHUP)
            buffer = bytearray(_NOTIF.size)
            try:
                fcntl.ioctl(listener, NOTIF_RECV, buffer, True)
            except OSError:
                continue  # the caller was interrupted before we got to it
            nid, pid, _flags, _nr, _arch, _ip, *args = _NOTIF.unpack(buffer)
            while not self._slots.acquire(timeout=0.1):
                if self._stop.is_set():
                    return
            worker = threading.Thread(
                target=self._answer, args=(listener, diag, nid, pid, args), daemon=True
            )
            self._workers = [w for w in self._workers if w.is_alive()] + [worker]
            worker.start()

    def _answer(self, listener: int, diag: int, nid: int, pid: int, args: list[int]) -> None:
        try:
            code = self._connect(listener, diag, nid, pid, args)
        except OSError as error:
            code = error.errno or errno.EACCES
        except Exception:  # never leave the caller hanging; refuse instead
            code = errno.EACCES
        try:
            fcntl.ioctl(listener, NOTIF_SEND, _RESP.pack(nid, 0, -code, 0))
        except OSError:
            pass  # the caller is gone (killed, or interrupted by a signal)
        finally:
            self._slots.release()

    def _connect(self, listener: int, diag: int, nid: int, pid: int, args: list[int]) -> int:
        fd, address_at, length = args[0] & 0xFFFFFFFF, args[1], args[2] & 0xFFFFFFFF
        if length > _MAX_ADDR:
            return errno.EINVAL
        with _Opened() as opened:
            pidfd = opened.add(_pidfd(pid))
            mem = opened.add(os.open(f"/proc/{pid}/mem", os.O_RDONLY | os.O_CLOEXEC))
            root = opened.add(os.open(f"/proc/{pid}/root", os.O_PATH | os.O_CLOEXEC))
            cwd = os.readlink(f"/proc/{pid}/cwd")
            _still_waiting(listener, nid)  # so pid was the caller when we opened all that
            sock = opened.add(_checked(_libc.syscall(_NR_PIDFD_GETFD, pidfd, fd, 0)))
            address = os.pread(mem, length, address_at) if length else b""
            if len(address) != length:
                return errno.EFAULT
            family = struct.unpack_from("=H", address)[0] if length >= 2 else -1
            if family == socket.AF_UNIX and length > 2 and address[2] != 0:
                path = address[2:].split(b"\0", 1)[0]
                if not path.startswith(b"/"):
                    path = os.fsencode(cwd).rstrip(b"/") + b"/" + path
                target = opened.add(_open_in_root(root, path))
                info = os.fstat(target)
                if not stat.S_ISSOCK(info.st_mode):
                    return errno.ECONNREFUSED
                if (info.st_dev, info.st_ino) not in self._own_sockets(diag):
                    return errno.EACCES
                address = _sockaddr_un(f"/proc/self/fd/{target}".encode())
            buffer = ctypes.create_string_buffer(address, len(address))
            if _libc.connect(sock, buffer, len(address)) != 0:
                return ctypes.get_errno()
            return 0

    def _own_sockets(self, diag: int) -> set[tuple[int, int]]:
        """(st_dev, st_ino) of every pathname socket bound in the command's namespace."""
        request = struct.pack("=BBHIII8x", socket.AF_UNIX, 0, 0, 0xFFFFFFFF, 0, _UDIAG_SHOW_VFS)
        header = struct.pack(
            "=IHHII", 16 + len(request), _SOCK_DIAG_BY_FAMILY, _NLM_F_REQUEST | _NLM_F_DUMP, 1, 0
        )
        found: set[tuple[int, int]] = set()
        with self._diag_lock:
            os.write(diag, header + request)
            while True:
                data = os.read(diag, 1 << 16)
                offset = 0
                while offset + 16 <= len(data):
                    size, kind = struct.unpack_from("=IH", data, offset)
                    if kind == _NLMSG_DONE:
                        return found
                    if kind == _NLMSG_ERROR or size < 16:
                        raise OSError(errno.EACCES, "sock_diag failed")
                    found |= _vfs_attributes(data[offset + 32 : offset + size])
                    offset += (size + 3) & ~3
                if not data:
                    return found


def _vfs_attributes(attributes: bytes) -> set[tuple[int, int]]:
    found = set()
    offset = 0
    while offset + 4 <= len(attributes):
        size, kind = struct.unpack_from("=HH", attributes, offset)
        if size < 4:
            break
        if kind == _UNIX_DIAG_VFS and size >= 12:
            inode, device = struct.unpack_from("=II", attributes, offset + 4)
            found.add((os.makedev(device >> 20, device & 0xFFFFF), inode))
        offset += (size + 3) & ~3
    return found


class _Opened:
    def __init__(self) -> None:
        self.fds: list[int] = []

    def add(self, fd: int) -> int:
        self.fds.append(fd)
        return fd

    def __enter__(self) -> _Opened:
        return self

    def __exit__(self, *_: object) -> None:
        for fd in self.fds:
            os.close(fd)


def _pidfd(tid: int) -> int:
    try:
        return os.pidfd_open(tid, _PIDFD_THREAD)
    except OSError as error:
        if error.errno != errno.EINVAL:
            raise
    tgid = next(
        int(line.split()[1])
        for line in Path(f"/proc/{tid}/status").read_text().splitlines()
        if line.startswith("Tgid:")
    )
    return os.pidfd_open(tgid)


def _still_waiting(listener: int, nid: int) -> None:
    fcntl.ioctl(listener, NOTIF_ID_VALID, struct.pack("=Q", nid))


def _checked(result: int) -> int:
    if result < 0:
        code = ctypes.get_errno()
        raise OSError(code, os.strerror(code))
    return result


class _OpenHow(ctypes.Structure):
    _fields_ = [("flags", ctypes.c_uint64), ("mode", ctypes.c_uint64), ("resolve", ctypes.c_uint64)]


def _open_in_root(root: int, path: bytes) -> int:
    how = _OpenHow(os.O_PATH | os.O_CLOEXEC, 0, _RESOLVE_IN_ROOT | _RESOLVE_NO_MAGICLINKS)
    return _checked(
        _libc.syscall(
            _NR_OPENAT2, root, ctypes.c_char_p(path), ctypes.byref(how), ctypes.sizeof(how)
        )
    )


def _sockaddr_un(path: bytes) -> bytes:
    return struct.pack("=H", socket.AF_UNIX) + path + b"\0"
