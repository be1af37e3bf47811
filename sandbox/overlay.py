"""Dependency directories writable by commands, every write thrown away: an overlay per command.

Tools write inside `node_modules/` and `.venv/` (TypeScript's tsbuildinfo, `.vite`, a test runner's
cache, `__pycache__`); a read-only view fails them with EROFS, and copying the directories
up front costs seconds per run. So each command gets an overlay of each exposed directory:
the user's directory is the lower layer, untouched; the upper and work directories live in
the command's scratch directory and go with it. Nothing is copied until written. What a
command writes there lands on the host's disk ($TMPDIR), so it is bounded like the worktree's
growth (`Layer.upper`, watched by sandbox/running.py): past the bound the command is killed
and told so.

How, by what the host offers (decided once per sandbox, with a probe):
- `kernel`: a root harness mounts the overlays itself, in a private mount namespace a holder
  process keeps for the sandbox; each command enters it (`nsenter`), mounts its overlays
  and execs bwrap, which just binds the merged directories (so any bubblewrap, 0.8
  included). Commands run as `nobody`, so the lower layer is an idmapped mount showing the
  directory's owner as that uid: the files are its to rewrite, in the overlay. The upper
  layer is `volatile` (never synced to disk: it is thrown away).
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
import shlex
import shutil
import struct
import subprocess
import tempfile
import threading
import weakref
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from sandbox.scratch import sweep_stale

_CLONE_NEWNS = 0x00020000
_CLONE_NEWUSER = 0x10000000
_MS_BIND = 0x1000
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
    scratch: Path  # upper/ work/ merged/ for this command
    lower: Path  # the source as the holder's namespace shows it (idmapped)

    @property
    def merged(self) -> Path:
        return self.scratch / "merged"

    @property
    def upper(self) -> Path:
        """Where the command's writes land, on the host's disk: bounded by the wait loop like
        the worktree's growth (`sandbox.running.run_limited`, `dependency_roots`)."""
        return self.scratch / "upper"

    @property
    def options(self) -> str:
        return (
            f"lowerdir={self.lower},upperdir={self.scratch / 'upper'},"
            f"workdir={self.scratch / 'work'},volatile"  # no sync of the host's disk at the end
        )


@dataclass
class Overlays:
    """How the exposed directories of one sandbox are made writable.

    Kernel kind: a holder process (`cat` on a pipe, so it ends with the harness) keeps a private mount
    namespace in which each source is bind-mounted once, idmapped to the command's uid.
    A command enters it with `nsenter`, mounts its overlays there with `mount` and execs
    bwrap; they are unmounted after it, off the command's path. No Python fork per command
    (a preexec_fn costs a fork of the whole harness), no namespace of its own to tear down.
    """

    kind: str  # kernel | bwrap | read-only | none
    sources: list[Path] = field(default_factory=list)
    uid: int = 0  # who the command runs as (kernel: the owner the idmap shows)
    note: str | None = None
    base: Path | None = None  # kernel: lower-<i>/ and one directory per command
    holder: subprocess.Popen[bytes] | None = None
    _ready: list[tuple[list[Layer], subprocess.Popen[bytes]]] = field(default_factory=list)
    _mounted: set[Path] = field(default_factory=set)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _count: int = 0

    def layers(self) -> list[Layer]:
        """One command's layers (kernel kind only): the set mounted ahead of time after the
        previous command, or a fresh one the command's prefix mounts."""
        if self.kind != "kernel" or self.base is None:
            return []
        with self._lock:
            ready = self._ready.pop(0) if self._ready else None
            self._reap()
        if ready is not None:
            layers, mounting = ready
            if _mounted(mounting):
                self._mounted.add(layers[0].scratch.parent)
                return layers
        return self._new_layers()

    def prefix(self, layers: Sequence[Layer]) -> list[str]:
        """The argv before bwrap's: into the holder's namespace, the overlays mounted there
        unless they were mounted ahead of time."""
        if not layers or self.holder is None:
            return []
        enter = [_NSENTER, f"--mount=/proc/{self.holder.pid}/ns/mnt", "--"]
        if layers[0].scratch.parent in self._mounted:
            return enter
        pairs = [arg for layer in layers for arg in (layer.options, str(layer.merged))]
        return [*enter, "/bin/sh", "-c", _MOUNT_THEN_EXEC, "coder-overlay", *pairs, "--"]

    def release(self, layers: Sequence[Layer]) -> None:
        """Unmount one command's overlays, remove its layers and mount a later command's,
        all in the background: none of it is on a command's path (sets are mounted
        `_AHEAD` commands ahead, so even commands back to back find theirs ready)."""
        if self.holder is None or self.kind != "kernel":
            return
        threading.Thread(target=self._release, args=(list(layers),), daemon=True).start()

    def _release(self, layers: list[Layer]) -> None:
        following = self._new_layers()
        script = [_mount_script(following), "echo mounted"]
        if layers:
            command_dir = layers[0].scratch.parent
            self._mounted.discard(command_dir)
            script += [f"umount -l {shlex.quote(str(layer.merged))}" for layer in layers]
            script.append(f"rm -rf {shlex.quote(str(command_dir))}")
        mounting = self._enter("\n".join(script))
        with self._lock:
            self._ready.append((following, mounting))

    def _new_layers(self) -> list[Layer]:
        """Upper, work and merged directories for one command, not mounted yet."""
        assert self.base is not None
        with self._lock:
            self._count += 1
            command_dir = self.base / f"cmd-{self._count}"
        layers = [
            Layer(source, command_dir / str(index), self.base / f"lower-{index}")
            for index, source in enumerate(self.sources)
        ]
        for layer in layers:
            for name in ("upper", "work", "merged"):
                (layer.scratch / name).mkdir(parents=True)
            upper = layer.scratch / "upper"
            os.chown(upper, self.uid, self.uid)
            os.chmod(upper, layer.source.stat().st_mode & 0o7777)  # the merged top's mode
        return layers

    def _enter(self, script: str) -> subprocess.Popen[bytes]:
        assert self.holder is not None
        return subprocess.Popen(
            [_NSENTER, f"--mount=/proc/{self.holder.pid}/ns/mnt", "--", "/bin/sh", "-c", script],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )

    def close(self) -> None:
        with self._lock:
            for _layers, mounting in self._ready:
                mounting.wait()
            self._ready.clear()
        if self.holder is not None:
            self.holder.kill()
            self.holder.wait()
            self.holder = None
        if self.base is not None:
            shutil.rmtree(self.base, ignore_errors=True)

    def _reap(self) -> None:
        """Ready sets beyond the one in hand: only concurrent commands leave several."""
        for _layers, mounting in self._ready:
            mounting.poll()


def _mounted(mounting: subprocess.Popen[bytes]) -> bool:
    """Whether the background script got its layers mounted (it goes on to clean up)."""
    assert mounting.stdout is not None
    line = mounting.stdout.readline()
    mounting.stdout.close()
    return line == b"mounted\n"


def _mount_script(layers: Sequence[Layer]) -> str:
    """Shell lines that mount `layers` (run in the holder's namespace)."""
    return "\n".join(
        f"mount -t overlay overlay -o {shlex.quote(layer.options)} "
        f"{shlex.quote(str(layer.merged))} || exit 1"
        for layer in layers
    )


_NSENTER = shutil.which("nsenter") or "nsenter"
_MOUNT_THEN_EXEC = (
    'while [ "$1" != -- ]; do mount -t overlay overlay -o "$1" "$2" || exit 125; shift 2; done; '
    'shift; exec "$@"'
)
OVERLAY_PREFIX = "coder-overlay-"
_AHEAD = 2  # layer sets mounted ahead: commands back to back never wait for one


def choose_overlays(sources: Sequence[Path], *, command_uid: int, bwrap: str) -> Overlays:
    """The way to make `sources` writable here; for `kernel`, the holder is started and one
    overlay mounted as a probe."""
    dirs = [s for s in sources if s.is_dir()]
    if not dirs:
        return Overlays("none")
    if os.geteuid() == 0:
        try:
            return _kernel_overlays(dirs, command_uid)
        except (OSError, subprocess.SubprocessError) as error:
            return Overlays("read-only", note=_read_only_note(str(error) or "no overlay"))
    if bwrap_version(bwrap) >= _MIN_BWRAP:
        return Overlays("bwrap", dirs)
    version = ".".join(map(str, bwrap_version(bwrap))) or "unknown"
    return Overlays(
        "read-only", note=_read_only_note(f"bubblewrap {version} has no --overlay (0.9 has)")
    )


def _kernel_overlays(dirs: list[Path], uid: int) -> Overlays:
    if shutil.which("nsenter") is None or shutil.which("mount") is None:
        raise OSError("nsenter or mount (util-linux) is not installed")
    sweep_stale(OVERLAY_PREFIX)
    base = Path(tempfile.mkdtemp(prefix=f"{OVERLAY_PREFIX}{os.getpid()}-"))
    overlays = Overlays("kernel", dirs, uid=uid, base=base)
    try:
        binds: list[tuple[bytes, bytes, int | None]] = []
        userns: dict[tuple[int, int], int] = {}
        for index, source in enumerate(dirs):
            lower = base / f"lower-{index}"
            lower.mkdir()
            info = source.stat()
            owner = (info.st_uid, info.st_gid)
            if owner != (uid, uid) and owner not in userns:
                userns[owner] = _user_namespace({owner[0]: uid}, {owner[1]: uid})
            binds.append((bytes(source), bytes(lower), userns.get(owner)))
        try:
            overlays.holder = subprocess.Popen(
                ["cat"],  # ends when the harness does: its stdin is a pipe only we hold
                preexec_fn=lambda: _hold(binds),
                stdin=subprocess.PIPE,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
        finally:
            for fd in userns.values():
                os.close(fd)
        weakref.finalize(overlays, _stop, overlays.holder, base)
        for _ in range(_AHEAD):  # the first commands' layers; the first is the probe
            overlays._release([])
        _layers, mounting = overlays._ready[0]
        if mounting.wait(timeout=30) != 0:
            error = (mounting.stderr.read() if mounting.stderr else b"").decode().strip()
            raise OSError(error.splitlines()[-1] if error else "mount failed")
    except BaseException:
        overlays.close()
        raise
    return overlays


def _hold(binds: list[tuple[bytes, bytes, int | None]]) -> None:
    """Runs in the holder after fork: its own mount namespace, each source bound (idmapped
    when an fd is given)."""
    _check(_libc.unshare(_CLONE_NEWNS), "unshare")
    _check(_libc.mount(None, b"/", None, _MS_REC | _MS_PRIVATE, None), "mount --make-rprivate")
    for source, lower, userns in binds:
        _bind(source, lower, userns)


def _stop(holder: subprocess.Popen[bytes] | None, base: Path) -> None:
    if holder is not None and holder.poll() is None:
        holder.kill()
        holder.wait()
    shutil.rmtree(base, ignore_errors=True)


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


def _bind(source: bytes, lower: bytes, userns: int | None) -> None:
    """Runs in the holder: `source` at `lower`, idmapped through `userns` when given."""
    if userns is None:
        _check(_libc.mount(source, lower, None, _MS_BIND | _MS_REC, None), "bind")
        return
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
