"""Dependency directories writable by commands, every write thrown away: an overlay per command.

Tools write inside `node_modules/` and `.venv/` (TypeScript's tsbuildinfo, `.vite`, jest's
cache, `__pycache__`); a read-only view fails them with EROFS, and copying the directories
up front costs seconds per run. So each command gets an overlay of each exposed directory:
the user's directory is the lower layer, untouched; the upper and work directories live in
the command's scratch directory and go with it. Nothing is copied until written.

How, by what the host offers (decided once per sandbox, with a probe):
- `kernel`: a root harness mounts the overlays itself, in a private mount namespace the
  command's process enters before bwrap starts (so any bubblewrap, 0.8 included, just binds
  the merged directory). Commands run as `nobody`, so the lower layer is an idmapped mount
  showing the directory's owner as that uid: the files are its to rewrite, in the overlay.
- `bwrap`: a non-root harness with bubblewrap 0.9 or newer: `--overlay-src`/`--tmp-overlay`
  (the user owns the files already).
- `read-only`: neither (a non-root harness with an older bubblewrap, or a kernel or file
  system without idmapped mounts): the directories stay read-only with a throwaway tmpfs
  over their caches, as before, and the run says so once.
"""

from __future__ import annotations

import ctypes
import os
import re
import shutil
import struct
import subprocess
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

_CLONE_NEWNS = 0x00020000
_CLONE_NEWUSER = 0x10000000
_MS_REC = 0x4000
_MS_PRIVATE = 1 << 18
_AT_FDCWD = -100
_AT_EMPTY_PATH = 0x1000
_OPEN_TREE_CLONE = 1
_MOVE_MOUNT_F_EMPTY_PATH = 0x4
_MOUNT_ATTR_IDMAP = 0x00100000
_SYS_OPEN_TREE, _SYS_MOVE_MOUNT, _SYS_MOUNT_SETATTR = 428, 429, 442  # same on every arch
_MIN_BWRAP = (0, 9)

_libc = ctypes.CDLL(None, use_errno=True)


@dataclass(frozen=True)
class Layer:
    """One exposed directory as one command sees it."""

    source: Path  # the user's directory: the lower layer
    scratch: Path  # lower/ upper/ work/ merged/ for this command

    @property
    def merged(self) -> Path:
        return self.scratch / "merged"


@dataclass
class Overlays:
    """How the exposed directories of one sandbox are made writable."""

    kind: str  # kernel | bwrap | read-only | none
    sources: list[Path] = field(default_factory=list)
    uid: int = 0  # who the command runs as (kernel: the owner the idmap shows)
    note: str | None = None
    _userns: dict[tuple[int, int], int] = field(default_factory=dict)

    def layers(self, scratch: Path) -> list[Layer]:
        """Fresh upper and work directories for one command (kernel kind only)."""
        if self.kind != "kernel":
            return []
        made: list[Layer] = []
        for index, source in enumerate(self.sources):
            layer = Layer(source, scratch / f"overlay-{index}")
            for name in ("lower", "upper", "work", "merged"):
                (layer.scratch / name).mkdir(parents=True)
            info = source.stat()
            upper = layer.scratch / "upper"
            os.chown(upper, self.uid, self.uid)
            os.chmod(upper, info.st_mode & 0o7777)  # the merged top takes the upper's mode
            made.append(layer)
        return made

    def before_exec(self, layers: Sequence[Layer]) -> Callable[[], None] | None:
        """What the command's process runs after fork: its own mount namespace, the
        overlays mounted in it (bwrap then binds each merged directory)."""
        if not layers:
            return None
        plans = [self._mount_plan(layer) for layer in layers]

        def mount_all() -> None:
            _check(_libc.unshare(_CLONE_NEWNS), "unshare")
            _check(
                _libc.mount(None, b"/", None, _MS_REC | _MS_PRIVATE, None), "mount --make-rprivate"
            )
            for plan in plans:
                _mount(*plan)

        return mount_all

    def _mount_plan(self, layer: Layer) -> tuple[bytes, bytes, bytes, bytes, int | None]:
        info = layer.source.stat()
        owner = (info.st_uid, info.st_gid)
        userns = None if owner == (self.uid, self.uid) else self._idmap(*owner)
        lower = layer.scratch / "lower"
        options = (
            f"lowerdir={lower},upperdir={layer.scratch / 'upper'},workdir={layer.scratch / 'work'}"
        )
        return (
            bytes(layer.source),
            bytes(lower),
            bytes(layer.merged),
            options.encode(),
            userns,
        )

    def _idmap(self, uid: int, gid: int) -> int:
        """A user namespace that maps `uid`/`gid` to the command's uid (kept for reuse)."""
        key = (uid, gid)
        if key not in self._userns:
            self._userns[key] = _user_namespace({uid: self.uid}, {gid: self.uid})
        return self._userns[key]

    def close(self) -> None:
        for fd in self._userns.values():
            os.close(fd)
        self._userns.clear()


def choose_overlays(sources: Sequence[Path], *, command_uid: int, bwrap: str) -> Overlays:
    """The way to make `sources` writable here; a probe on the first one decides `kernel`."""
    dirs = [s for s in sources if s.is_dir()]
    if not dirs:
        return Overlays("none")
    if os.geteuid() == 0:
        overlays = Overlays("kernel", dirs, uid=command_uid)
        why = _probe(overlays)
        if why is None:
            return overlays
        overlays.close()
        return Overlays("read-only", note=_read_only_note(why))
    if bwrap_version(bwrap) >= _MIN_BWRAP:
        return Overlays("bwrap", dirs)
    version = ".".join(map(str, bwrap_version(bwrap))) or "unknown"
    return Overlays(
        "read-only", note=_read_only_note(f"bubblewrap {version} has no --overlay (0.9 has)")
    )


@cache
def bwrap_version(bwrap: str) -> tuple[int, ...]:
    try:
        done = subprocess.run([bwrap, "--version"], capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return ()
    found = re.search(r"(\d+)\.(\d+)(?:\.(\d+))?", done.stdout)
    return tuple(int(g) for g in found.groups() if g is not None) if found else ()


def _read_only_note(why: str) -> str:
    return (
        f"dependency directories are read-only for commands ({why}); a tool that writes "
        "inside node_modules/ or .venv/ fails with a read-only file system"
    )


def _probe(overlays: Overlays) -> str | None:
    """Mount the first directory's overlay in a throwaway child; None when it works."""
    scratch = Path(tempfile.mkdtemp(prefix="coder-overlay-probe-"))
    try:
        probe = Overlays(overlays.kind, overlays.sources[:1], uid=overlays.uid)
        probe._userns = overlays._userns
        run = probe.before_exec(probe.layers(scratch))
        assert run is not None
        read, write = os.pipe()
        pid = os.fork()
        if pid == 0:  # pragma: no cover - the child reports through the pipe
            os.close(read)
            try:
                run()
                os.write(write, b"ok")
            except BaseException as error:  # noqa: BLE001
                os.write(write, str(error).encode()[:300] or b"failed")
            os._exit(0)
        os.close(write)
        answer = os.read(read, 400).decode(errors="replace")
        os.close(read)
        os.waitpid(pid, 0)
        return None if answer == "ok" else answer
    except OSError as error:
        return str(error)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def _mount(source: bytes, lower: bytes, merged: bytes, options: bytes, userns: int | None) -> None:
    """Runs in the forked child: the lower layer (idmapped when `userns`), then the overlay."""
    if userns is None:
        _check(_libc.mount(source, lower, None, 0x1000 | _MS_REC, None), "bind")  # MS_BIND
    else:
        fd = _check(
            _libc.syscall(_SYS_OPEN_TREE, _AT_FDCWD, source, _OPEN_TREE_CLONE | os.O_CLOEXEC),
            "open_tree",
        )
        attr = ctypes.create_string_buffer(struct.pack("QQQQ", _MOUNT_ATTR_IDMAP, 0, 0, userns))
        _check(
            _libc.syscall(_SYS_MOUNT_SETATTR, fd, b"", _AT_EMPTY_PATH, attr, ctypes.c_size_t(32)),
            "mount_setattr (idmap)",
        )
        _check(
            _libc.syscall(_SYS_MOVE_MOUNT, fd, b"", _AT_FDCWD, lower, _MOVE_MOUNT_F_EMPTY_PATH),
            "move_mount",
        )
        os.close(fd)
    _check(_libc.mount(b"overlay", merged, b"overlay", 0, options), "mount overlay")


def _user_namespace(uids: dict[int, int], gids: dict[int, int]) -> int:
    """An fd of a new user namespace mapping each on-disk id to the id shown (root only)."""
    ready_r, ready_w = os.pipe()
    done_r, done_w = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - lives until the parent has opened its namespace
        os.close(ready_r)
        os.close(done_w)
        ok = _libc.unshare(_CLONE_NEWUSER) == 0
        os.write(ready_w, b"1" if ok else b"0")
        os.read(done_r, 1)
        os._exit(0)
    os.close(ready_w)
    os.close(done_r)
    try:
        if os.read(ready_r, 1) != b"1":
            raise OSError("could not make a user namespace for the idmapped mount")
        for name, mapping in (("uid_map", uids), ("gid_map", gids)):
            text = "".join(f"{inside} {shown} 1\n" for inside, shown in mapping.items())
            with open(f"/proc/{pid}/{name}", "w", encoding="ascii") as handle:
                handle.write(text)
        return os.open(f"/proc/{pid}/ns/user", os.O_RDONLY | os.O_CLOEXEC)
    finally:
        os.write(done_w, b"x")
        os.close(done_w)
        os.close(ready_r)
        os.waitpid(pid, 0)


def _check(result: int, what: str) -> int:
    if result < 0:
        errno = ctypes.get_errno()
        raise OSError(errno, f"{what}: {os.strerror(errno)}")
    return result
