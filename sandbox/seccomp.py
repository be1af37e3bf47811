"""The seccomp filter every confined command runs under, and the launcher that installs it.

bwrap can load a classic BPF program (`--seccomp FD`) but cannot hand out a user-notification
listener, so a few lines of the host's Python run first inside the sandbox (LAUNCHER, passed
with `-c`, the program in hex on its command line; or sandbox/launch.c, the same in C, when
`scripts/bootstrap` could compile it: a Python start-up costs every command tens of
milliseconds, the C launcher about one): it opens a sock_diag netlink socket in
the sandbox's network namespace, installs the filter with SECCOMP_FILTER_FLAG_NEW_LISTENER,
sends both fds to the harness over an inherited socket (SCM_RIGHTS), and execs the command.
The filter is inherited by every descendant and cannot be removed.

What the program does (x86_64 only; any other ABI, i386 `int 0x80` and x32 included, gets
ENOSYS so `socketcall()` cannot go around it):
- connect(2) goes to the harness (SECCOMP_RET_USER_NOTIF; sandbox/unix_sockets.py decides);
- AF_UNIX datagram sockets (socket/socketpair with SOCK_DGRAM or SOCK_RAW) are refused with
  EACCES: a datagram socket can `sendto()` any path without connect(), which the filter cannot
  see into. Stream and seqpacket sockets ignore a destination on send, so connect() is their
  only way to a peer;
- io_uring_setup gets ENOSYS (its IORING_OP_CONNECT would bypass the filter);
- seccomp(2) asking for a listener of its own gets EPERM: a newer filter's listener would be
  asked first and could answer CONTINUE.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import struct
import subprocess
from pathlib import Path

AUDIT_ARCH_X86_64 = 0xC000003E
X32_BIT = 0x40000000
NR_SOCKET, NR_CONNECT, NR_SOCKETPAIR, NR_SECCOMP, NR_IO_URING_SETUP = 41, 42, 53, 317, 425
AF_UNIX = 1
SOCK_STREAM, SOCK_SEQPACKET = 1, 5
SECCOMP_SET_MODE_FILTER = 1
SECCOMP_FILTER_FLAG_NEW_LISTENER = 1 << 3
SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV = 1 << 5
EPERM, EACCES, ENOSYS = 1, 13, 38

RET_ALLOW = 0x7FFF0000
RET_USER_NOTIF = 0x7FC00000
RET_ERRNO = 0x00050000

_LD_W_ABS = 0x20  # BPF_LD | BPF_W | BPF_ABS
_JEQ_K = 0x15  # BPF_JMP | BPF_JEQ | BPF_K
_JGE_K = 0x35
_JSET_K = 0x45
_AND_K = 0x54  # BPF_ALU | BPF_AND | BPF_K
_RET_K = 0x06

_NR, _ARCH = 0, 4


def _arg(n: int) -> int:
    return 16 + 8 * n  # the low 32 bits of args[n] (little endian)


def filter_program() -> bytes:
    """The classic BPF program, as `struct sock_filter[]` bytes."""
    errno_nosys = RET_ERRNO | ENOSYS
    code: list[tuple[int, int, int, int]] = []

    def op(c: int, k: int, jt: int = 0, jf: int = 0) -> None:
        code.append((c, jt, jf, k))

    op(_LD_W_ABS, _ARCH)
    op(_JEQ_K, AUDIT_ARCH_X86_64, 1, 0)
    op(_RET_K, errno_nosys)
    op(_LD_W_ABS, _NR)
    op(_JGE_K, X32_BIT, 0, 1)
    op(_RET_K, errno_nosys)
    op(_JEQ_K, NR_CONNECT, 0, 1)
    op(_RET_K, RET_USER_NOTIF)
    op(_JEQ_K, NR_IO_URING_SETUP, 0, 1)
    op(_RET_K, errno_nosys)
    op(_JEQ_K, NR_SECCOMP, 0, 6)
    op(_LD_W_ABS, _arg(0))
    op(_JEQ_K, SECCOMP_SET_MODE_FILTER, 0, 2)
    op(_LD_W_ABS, _arg(1))
    op(_JSET_K, SECCOMP_FILTER_FLAG_NEW_LISTENER, 1, 0)
    op(_RET_K, RET_ALLOW)
    op(_RET_K, RET_ERRNO | EPERM)
    # socket / socketpair: AF_UNIX only as stream or seqpacket
    op(_JEQ_K, NR_SOCKET, 1, 0)
    op(_JEQ_K, NR_SOCKETPAIR, 0, 7)
    op(_LD_W_ABS, _arg(0))
    op(_JEQ_K, AF_UNIX, 0, 5)
    op(_LD_W_ABS, _arg(1))
    op(_AND_K, 0xF)  # SOCK_TYPE_MASK: the flags (CLOEXEC, NONBLOCK) are above it
    op(_JEQ_K, SOCK_STREAM, 2, 0)
    op(_JEQ_K, SOCK_SEQPACKET, 1, 0)
    op(_RET_K, RET_ERRNO | EACCES)
    op(_RET_K, RET_ALLOW)
    return b"".join(struct.pack("=HBBI", c, jt, jf, k) for c, jt, jf, k in code)


# Runs inside the sandbox as `python3 -I -S -c LAUNCHER <fd> <program hex> <argv...>`; only
# built-in modules (`socket` and `ctypes` would add ~35 ms to every command).
LAUNCHER = r"""
import _ctypes as C, _signal as P, _socket as S, os, sys
fd, program, argv = int(sys.argv[1]), bytes.fromhex(sys.argv[2]), sys.argv[3:]
class Long(C._SimpleCData):
    _type_ = "l"
class Char(C._SimpleCData):
    _type_ = "c"
class Libc:
    _handle = C.dlopen(None, os.RTLD_NOW)
class Func(C.CFuncPtr):
    _flags_ = C.FUNCFLAG_CDECL | C.FUNCFLAG_USE_ERRNO
    _restype_ = Long
syscall = Func(("syscall", Libc))
diag = S.socket(S.AF_NETLINK, S.SOCK_RAW | S.SOCK_CLOEXEC, 4)
if syscall(157, 38, 1, 0, 0, 0) != 0:
    sys.exit("coder: could not set no_new_privs")
code = (Char * len(program)).from_buffer_copy(program)
fprog = (len(program) // 8).to_bytes(8, "little") + C.addressof(code).to_bytes(8, "little")
listener = -1
for flags in FLAGS:
    listener = syscall(317, 1, flags, fprog)
    if listener >= 0:
        break
if listener < 0:
    sys.exit("coder: could not install the seccomp filter: " + os.strerror(C.get_errno()))
channel = S.socket(fileno=fd)
fds = listener.to_bytes(4, "little") + diag.fileno().to_bytes(4, "little")
channel.sendmsg([b"L"], [(S.SOL_SOCKET, S.SCM_RIGHTS, fds)])
channel.close(); os.close(listener); diag.close()
for number in (P.SIGPIPE, P.SIGXFSZ):  # Python ignores them; the command must not
    P.signal(number, P.SIG_DFL)
try:
    os.execv(argv[0], argv)
except OSError as error:
    sys.exit(f"coder: could not run {argv[0]}: {error.strerror}")
""".replace(
    "FLAGS",
    repr(
        (
            SECCOMP_FILTER_FLAG_NEW_LISTENER | SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV,
            SECCOMP_FILTER_FLAG_NEW_LISTENER,  # before Linux 5.19
        )
    ),
)


SOURCE = Path(__file__).with_name("launch.c")
BUILD_DIR = Path(__file__).with_name("_build")


def launcher_argv(python: str, channel_fd: int) -> list[str]:
    """The prefix that installs the filter and then runs what follows it."""
    return [python, "-I", "-S", "-c", LAUNCHER, str(channel_fd), filter_program().hex()]


def compiled_argv(binary_fd: int, channel_fd: int) -> list[str]:
    """The same with the C launcher, run from an fd the command inherits (its path on the
    host need not be in the view); it closes that fd before the command starts."""
    hexed = filter_program().hex()
    return [f"/proc/self/fd/{binary_fd}", str(binary_fd), str(channel_fd), hexed]


def compiled_launcher() -> Path | None:
    """The C launcher built from this very source, if it was."""
    path = BUILD_DIR / f"coder-launch-{_digest()}"
    return path if os.access(path, os.X_OK) else None


def build_launcher(cc: str | None = None) -> str:
    """Compile sandbox/launch.c next to this module; says what it did, or why not."""
    compiler = cc or shutil.which("cc") or shutil.which("gcc")
    if compiler is None:
        return "no C compiler: commands start through the Python launcher (slower)"
    target = BUILD_DIR / f"coder-launch-{_digest()}"
    try:
        BUILD_DIR.mkdir(exist_ok=True)
        partial = target.with_suffix(".tmp")
        subprocess.run(
            [compiler, "-O2", "-o", str(partial), str(SOURCE)],
            check=True,
            capture_output=True,
            text=True,
        )
        os.replace(partial, target)
    except (OSError, subprocess.CalledProcessError) as error:
        detail = getattr(error, "stderr", "") or str(error)
        return f"could not build the C launcher ({detail.strip()[:200]}); using Python's"
    for stale in BUILD_DIR.glob("coder-launch-*"):
        if stale != target:
            stale.unlink(missing_ok=True)
    return f"built {target}"


def _digest() -> str:
    return hashlib.sha256(SOURCE.read_bytes()).hexdigest()[:12]
