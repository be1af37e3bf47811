"""No confined command reaches a Unix socket of the host, whichever network namespace holds
it and whenever it appears; its own sockets keep working (sandbox/unix_sockets.py). Real
bubblewrap, real listeners, the host's in another network namespace (`unshare -n`)."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

import sandbox.unix_sockets as unix_sockets
from sandbox.confine import make_sandbox
from sandbox.seccomp import build_launcher, compiled_launcher
from tests.sandbox.confined import confined, needs_bwrap
from tests.sandbox.gitrepos import make_repo

pytestmark = needs_bwrap
can_unshare_net = pytest.mark.skipif(
    os.geteuid() != 0 or shutil.which("unshare") is None,
    reason="a listener in another network namespace needs root and unshare(1)",
)


@pytest.fixture(autouse=True, params=["c", "python"])
def launcher(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Every test under both launchers: the C one scripts/bootstrap builds, and the Python
    one a host without a compiler uses."""
    if request.param == "c":
        if compiled_launcher() is None:
            built = build_launcher()
            if compiled_launcher() is None:
                pytest.skip(built)
    else:
        monkeypatch.setattr(unix_sockets, "compiled_launcher", lambda: None)
    return str(request.param)


_SERVE = textwrap.dedent(
    """\
    import os, socket, sys
    s = socket.socket(socket.AF_UNIX)
    s.bind(sys.argv[1] + ".tmp")
    os.chmod(sys.argv[1] + ".tmp", 0o777)
    s.listen(8)
    os.rename(sys.argv[1] + ".tmp", sys.argv[1])
    while True:
        c, _ = s.accept()
        c.sendall(b"HOST-SECRET")
        c.close()
    """
)

_CONNECT = textwrap.dedent(
    """\
    python3 - <<'EOF'
    import socket
    for path in {paths!r}:
        s = socket.socket(socket.AF_UNIX)
        s.settimeout(5)
        try:
            s.connect(path)
            print("CONNECTED", path, s.recv(64).decode())
        except OSError as error:
            print("refused", path, type(error).__name__)
    EOF
    """
)


def _wait_for(condition, what: str, timeout_s: float = 20.0) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout_s
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.01)


@contextmanager
def host_listener(path: Path, *, netns: bool) -> Iterator[Path]:
    """A host process serving HOST-SECRET at `path` (0777), in a network namespace of its
    own when `netns` (so no /proc/net/unix the harness can read lists it)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    argv = [sys.executable, "-c", _SERVE, str(path)]
    server = subprocess.Popen(["unshare", "-n", *argv] if netns else argv)
    try:
        _wait_for(path.exists, f"the listener at {path}")
        with socket.socket(socket.AF_UNIX) as probe:  # the host itself does reach it
            probe.connect(str(path))
            assert probe.recv(64) == b"HOST-SECRET"
        yield path
    finally:
        server.kill()
        server.wait()


def _outcomes(output: str) -> list[str]:
    return [line.split()[0] for line in output.splitlines() if line.split()]


@can_unshare_net
def test_a_listener_in_another_network_namespace_is_unreachable(visible_base: Path) -> None:
    repo = make_repo(visible_base / "repo", {".gitignore": "build/\n", "README.md": "hi\n"})
    with confined(repo) as c:
        with (
            host_listener(c.worktree / "build" / "ns.sock", netns=True),
            host_listener(repo / ".git" / "ns.sock", netns=True),
            host_listener(visible_base / "elsewhere" / "ns.sock", netns=True) as elsewhere,
        ):
            (c.worktree / "build" / "link.sock").symlink_to(elsewhere)
            targets = [
                "build/ns.sock",
                str(repo / ".git" / "ns.sock"),
                str(elsewhere),
                "build/link.sock",
            ]
            result = c.run(_CONNECT.format(paths=targets))
            control = make_sandbox("none", visible_base).run(
                _CONNECT.format(paths=[str(elsewhere)]), cwd=visible_base, timeout_s=30
            )
    assert "HOST-SECRET" not in result.output, result.output
    assert _outcomes(result.output) == ["refused"] * len(targets), result.output
    assert "CONNECTED" in control.output and "HOST-SECRET" in control.output


def test_a_listener_created_after_the_command_started_is_unreachable(visible_base: Path) -> None:
    repo = make_repo(visible_base / "repo", {".gitignore": "build/\n", "README.md": "hi\n"})
    late = visible_base / "late" / "late.sock"
    command = textwrap.dedent(
        """\
        touch build/started
        python3 - <<'EOF'
        import os, socket, time
        deadline = time.monotonic() + 20
        while not os.path.exists("build/go") and time.monotonic() < deadline:
            time.sleep(0.01)
        for path in ("build/late.sock", {late!r}):
            s = socket.socket(socket.AF_UNIX)
            try:
                s.connect(path)
                print("CONNECTED", path, s.recv(64).decode())
            except OSError as error:
                print("refused", path, type(error).__name__)
        EOF
        """
    ).format(late=str(late))
    with confined(repo) as c:
        (c.worktree / "build").mkdir()
        outcome: dict[str, object] = {}
        runner = threading.Thread(target=lambda: outcome.update(result=c.run(command)))
        runner.start()
        try:
            _wait_for((c.worktree / "build" / "started").exists, "the command to start")
            with (
                host_listener(c.worktree / "build" / "late.sock", netns=False),
                host_listener(late, netns=False),
            ):
                (c.worktree / "build" / "go").touch()
                runner.join(timeout=60)
        finally:
            (c.worktree / "build" / "go").touch()
            runner.join(timeout=60)
    output = outcome["result"].output  # type: ignore[attr-defined]
    assert _outcomes(output) == ["refused", "refused"], output


@can_unshare_net
def test_a_host_socket_renamed_over_the_commands_own_path_is_unreachable(
    visible_base: Path,
) -> None:
    """The command binds its own socket, then puts the host's inode at that path: the
    decision is by inode, not by the path its namespace lists."""
    repo = make_repo(visible_base / "repo", {".gitignore": "build/\n", "README.md": "hi\n"})
    command = textwrap.dedent(
        """\
        python3 - <<'EOF'
        import os, socket
        own = socket.socket(socket.AF_UNIX); own.bind("build/mine.sock"); own.listen(1)
        os.rename("build/host.sock", "build/mine.sock")
        s = socket.socket(socket.AF_UNIX)
        try:
            s.connect("build/mine.sock"); print("CONNECTED", s.recv(64).decode())
        except OSError as error:
            print("refused", type(error).__name__)
        EOF
        """
    )
    with confined(repo) as c, host_listener(c.worktree / "build" / "host.sock", netns=True):
        result = c.run(command)
    assert _outcomes(result.output) == ["refused"], result.output


def test_a_commands_own_sockets_keep_working(visible_base: Path) -> None:
    repo = make_repo(visible_base / "repo", {"README.md": "hi\n"})
    command = textwrap.dedent(
        """\
        python3 - <<'EOF'
        import multiprocessing, os, socket
        a, b = socket.socketpair(); a.sendall(b"pair"); print(b.recv(4).decode())
        for path in ("own.sock", "/tmp/own.sock", os.path.abspath("own2.sock")):
            srv = socket.socket(socket.AF_UNIX); srv.bind(path); srv.listen(1)
            os.symlink(path, path + ".link")
            for target in (path, path + ".link"):
                cli = socket.socket(socket.AF_UNIX); cli.connect(target)
                conn, _ = srv.accept(); cli.sendall(b"ok"); print(conn.recv(8).decode())
            os.unlink(path); os.unlink(path + ".link")
        tcp = socket.socket(); tcp.bind(("127.0.0.1", 0)); tcp.listen(1)
        cli = socket.create_connection(tcp.getsockname(), timeout=5); print("tcp")
        if __name__ == "__main__":
            with multiprocessing.Manager() as manager:
                shared = manager.dict(); shared["k"] = "manager"; print(shared["k"])
        EOF
        """
    )
    with confined(repo) as c:
        result = c.run(command)
    assert result.output.split() == ["pair", *["ok"] * 6, "tcp", "manager"], result.output


def test_the_ways_around_the_supervisor_are_closed(visible_base: Path) -> None:
    """A datagram socket (sendto needs no connect), io_uring (its own connect) and a
    seccomp listener of the command's own (asked first, it could let connect through)."""
    repo = make_repo(visible_base / "repo", {"README.md": "hi\n"})
    command = textwrap.dedent(
        """\
        python3 - <<'EOF'
        import ctypes, socket
        for kind in (socket.SOCK_DGRAM, socket.SOCK_RAW):
            try:
                socket.socket(socket.AF_UNIX, kind); print("dgram allowed")
            except PermissionError:
                print("dgram refused")
        try:
            socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM); print("pair allowed")
        except PermissionError:
            print("pair refused")
        libc = ctypes.CDLL(None, use_errno=True)
        params = ctypes.create_string_buffer(120)
        print("uring", libc.syscall(425, 4, params), ctypes.get_errno())
        allow = ctypes.create_string_buffer(bytes.fromhex("060000000000ff7f"))
        prog = ctypes.create_string_buffer(
            (1).to_bytes(8, "little") + ctypes.addressof(allow).to_bytes(8, "little")
        )
        print("listener", libc.syscall(317, 1, 8, prog), ctypes.get_errno())
        EOF
        """
    )
    with confined(repo) as c:
        result = c.run(command)
    assert result.output.splitlines() == [
        "dgram refused",
        "dgram refused",
        "pair refused",
        "uring -1 38",
        "listener -1 1",
    ], result.output


@can_unshare_net
def test_an_address_swapped_by_another_thread_mid_call_never_reaches_the_host(
    visible_base: Path,
) -> None:
    """The harness copies the address once and connects with that copy: a thread flipping the
    buffer between the command's own socket and the host's cannot win a race."""
    repo = make_repo(visible_base / "repo", {"README.md": "hi\n"})
    command = textwrap.dedent(
        """\
        python3 - <<'EOF'
        import ctypes, socket, struct, threading
        libc = ctypes.CDLL(None, use_errno=True)
        own = socket.socket(socket.AF_UNIX); own.bind("/tmp/own.sock"); own.listen(1024)
        mine, host = (struct.pack("=H", 1) + p.encode() + b"\\0" for p in ("/tmp/own.sock", {host!r}))
        buf = ctypes.create_string_buffer(110)
        def flip():
            while True:
                ctypes.memmove(buf, mine, len(mine)); ctypes.memmove(buf, host, len(host))
        threading.Thread(target=flip, daemon=True).start()
        peers = set()
        for _ in range(300):
            s = socket.socket(socket.AF_UNIX)
            if libc.connect(s.fileno(), buf, 110) == 0:
                peers.add(s.getpeername())
            s.close()
        print(sorted(peers))
        EOF
        """
    )
    with host_listener(visible_base / "elsewhere" / "ns.sock", netns=True) as host:
        with confined(repo) as c:
            result = c.run(command.format(host=str(host)))
    assert result.output.strip() == "['/tmp/own.sock']", result.output
    assert str(host) not in result.output
